// "What changed": one kernel's source and PTX against another's (by default the step before
// it on the ladder), or against itself with a mistake switched on. The command line
// (`gemmscope diff`) and the GUI's Diff view both show this.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/registry.hpp"
#include "run/line_diff.hpp"

namespace gs::run {

// Two texts as lines, and the rows of their diff.
struct TextDiff {
  std::string left_title, right_title;  // what each side is: a file name, "PTX of ..."
  std::vector<std::string> left, right;
  std::vector<DiffRow> rows;
};

struct KernelDiffRequest {
  std::string id;       // the kernel on the right (the newer step, or the one with the mistake)
  std::string against;  // the kernel on the left; empty: the step before `id` (or `id` itself with a mistake)
  std::string mistake;  // when set: `id` as written (left) against `id` with this mistake (right)
  kernels::GemmShape shape;  // 0s: each kernel's example shape
};

struct KernelDiff {
  std::string left_name, right_name;  // "simt_naive", "hopper_tma_wgmma_64 + missing-init-fence"
  std::string summary;                // the registry's delta sentence, or the mistake's description
  // Steps: the two step files. A mistake: the kernel's source lines in the order they recorded
  // instructions ("kernels/11_....cpp:57  b.fence_mbarrier_init();"), since a mistake changes
  // which lines run, not the file.
  TextDiff source;
  TextDiff ptx;  // compared through ptx_compare_keys
};

// Throws kernels::ConfigError naming the valid choices for an unknown id or mistake, or for a
// first step asked for the step before it.
KernelDiff diff_kernels(const KernelDiffRequest& request);

// One build of a kernel: its id, its build parameters (unset ones at their defaults) and the
// mistakes switched on. The Compare view diffs any two.
struct KernelVariant {
  std::string id;
  kernels::ParamValues params;
  std::set<std::string> mistakes;
};
// "hopper_tma_wgmma_64 stages=2 + skip-mbarrier-wait": the id, the parameters that differ from
// the kernel's defaults, and the mistakes.
std::string variant_name(const KernelVariant& v);

// What changed from `left` to `right`, both built at `shape` (0s: each kernel's example shape).
// Two kernels: their step files and the PTX of the two builds; one kernel (other parameters or
// mistakes): the source lines each build recorded instructions from, in order (the file is the
// same), and the PTX. The summary names the steps' deltas, the parameters that differ and the
// mistakes' descriptions. Throws kernels::ConfigError for an unknown id, mistake or parameter
// value, naming the valid ones.
KernelDiff diff_variants(const KernelVariant& left, const KernelVariant& right, const kernels::GemmShape& shape = {});

// The diff as text: a header, then one line per row: "  ", "- " or "+ " and the line. With
// context >= 0, only that many unchanged lines around each change are kept ("..." between).
std::string format_text_diff(const TextDiff& d, int context = -1);

}  // namespace gs::run
