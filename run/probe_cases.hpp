// The probe cases that `gemmscope probe` and the tests run: kernel + inputs per case.
//
// These are inline on purpose: the probe kernels live in the gemmscope_kernels library, which
// links after gemmscope_engine's users but before gemmscope_engine itself (engine -> kernels is
// not declared, to keep the libraries acyclic). Building the kernels in the caller's object
// file (the command line, a test) makes that object pull the probe kernels into the link.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "run/probe_run.hpp"
#include "kernels/probes.hpp"
#include "kernels/registry.hpp"

namespace gs::run {

// The names `gemmscope probe NAME` accepts.
inline std::vector<std::string> probe_group_names() { return {"tma", "mbarrier", "wgmma", "mma", "all"}; }

// The cases of one group ("tma", "mbarrier", "wgmma", "mma") or of "all". Throws kernels::ConfigError
// naming the valid names for anything else.
inline std::vector<ProbeCase> probe_cases(std::string_view group) {
  const bool all = group == "all";
  if (!all && group != "tma" && group != "mbarrier" && group != "wgmma" && group != "mma")
    throw kernels::ConfigError(
        fmt::format("'{}' is not a probe: valid names are tma, mbarrier, wgmma, mma and all", group));
  std::vector<ProbeCase> cases;
  if (all || group == "tma") {
    struct Box {
      uint32_t cols;
      layout::Swizzle swizzle;
    };
    // Each swizzle with the widest box its span allows, and the unswizzled layout at two widths
    // (the same boxes as tests/model/test_model_facts.cpp).
    for (const Box box : {Box{16, layout::Swizzle::b32}, Box{32, layout::Swizzle::b64}, Box{64, layout::Swizzle::b128},
                          Box{64, layout::Swizzle::none}, Box{16, layout::Swizzle::none}})
      cases.push_back(
          make_tma_probe_case(box.cols, box.swizzle, kernels::build_tma_placement_probe(box.cols, box.swizzle)));
  }
  if (all || group == "mbarrier") cases.push_back(make_mbarrier_probe_case(kernels::build_mbarrier_parity_probe()));
  if (all || group == "wgmma")
    for (const uint32_t n : {8u, 16u, 64u, 256u}) cases.push_back(make_wgmma_probe_case(n, kernels::build_wgmma_layout_probe(n)));
  if (all || group == "mma") cases.push_back(make_mma_probe_case(kernels::build_mma_sync_probe()));
  return cases;
}

}  // namespace gs::run
