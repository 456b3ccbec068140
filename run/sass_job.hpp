// The "SASS" job: build a kernel for a shape (and mistakes), print its PTX, and compile it with
// ptxas into SASS linked to the PTX lines (engine/ptx/sass.hpp). `gemmscope sass` and the
// GUI's SASS view both run it through here.
//
//   run::SassReport r = run::run_sass({.kernel_id = "hopper_tma_wgmma_64"});
//   r.listing.ok();              // false: r.listing.message says what is missing or failed
//   run::sass_report_text(r);    // what `gemmscope sass` prints
#pragma once

#include <set>
#include <string>

#include "engine/ptx/emit.hpp"
#include "engine/ptx/sass.hpp"
#include "kernels/registry.hpp"

namespace gs::run {

struct SassRequest {
  std::string kernel_id;
  kernels::GemmShape shape;        // a 0 takes that dimension of the kernel's example shape
  std::set<std::string> mistakes;  // names from the kernel's registry entry
  kernels::ParamValues params;     // build parameters; an unset one takes the kernel's default
  // true: the kernel instrumented by the timeline pass (engine/ir/instrument.hpp; CTA 0
  // records), as `bench --timeline` runs it: what the recording costs, in SASS.
  bool timeline = false;
};

struct SassReport {
  std::string kernel_id;
  kernels::GemmShape shape;
  std::set<std::string> mistakes;
  kernels::ParamValues params;  // every parameter the kernel declares, as built
  bool timeline = false;        // the instrumented kernel
  ptx::PtxModule module;     // the PTX that was compiled (its lines are SassInstruction::ptx_line)
  ptx::SassListing listing;
};

// Throws kernels::ConfigError for a bad id, shape or mistake (before any tool runs).
SassReport run_sass(const SassRequest& req);

// The listing as text: a header (kernel, target, ptxas's report with spills called out), then
// each SASS instruction with its address and the PTX line it came from, under that PTX line.
std::string sass_report_text(const SassReport& r);

}  // namespace gs::run
