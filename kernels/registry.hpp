// The ladder's registry: every kernel gemmscope knows, with what a learner needs to pick it
// (title, step, what changed), its shape rules and its deliberate mistakes. It feeds the
// command line, the GUI menu and the parameterised tests.
//
// The GEMM convention, shared by every kernel, the model, the runner and cuBLAS:
//   C[M×N] = A[M×K] · B[K×N], A row-major; B stored either "nk" (N×K row-major: K-major,
//   what the tensor cores and cuBLAS's fast path want) or "kn" (K×N row-major, as in the
//   article's SIMT kernels); C row-major.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/ir/kernel.hpp"
#include "kernels/stops.hpp"

namespace gs::kernels {

struct GemmShape {
  uint32_t m = 0, n = 0, k = 0;
};

// The largest M, N or K any kernel of the ladder takes (each kernel's check_shape says what it
// takes within it). The command line and the readers of outside data reject anything larger
// before a kernel is built; tests/kernels checks that no kernel accepts more.
inline constexpr uint32_t kMaxGemmDimension = 65536;

// Values of a kernel's build parameters, by name ("stages" -> 3).
using ParamValues = std::map<std::string, uint32_t, std::less<>>;

// Everything a build function depends on: the problem shape, the mistakes switched on and the
// build parameters' values.
struct GemmConfig {
  GemmShape shape;
  std::set<std::string> mistakes;
  // build_kernel fills every parameter the kernel declares (its default where unset), so a
  // build function reads them with param() and never decides a default itself.
  ParamValues params;
  bool has(const std::string& mistake) const { return mistakes.count(mistake) > 0; }
  // Throws std::logic_error for a parameter the kernel did not declare (a bug, not bad input).
  uint32_t param(std::string_view name) const;
};

enum class Family { simt, ampere, hopper, blackwell };
std::string_view family_name(Family f);

enum class DType { f32, bf16 };
std::string_view dtype_name(DType d);
enum class BLayout { nk, kn };  // see the convention above
std::string_view b_layout_name(BLayout b);

// The part of C one CTA computes: rows [m0, m1) and columns [n0, n1), clipped to the shape.
// It reads those rows of A and those columns of B, over all of K.
struct CtaTile {
  uint32_t m0 = 0, m1 = 0, n0 = 0, n1 = 0;
};
// The tile at (row_block, col_block) of a grid of tile.m × tile.n tiles.
CtaTile tile_of_block(const GemmShape& shape, const GemmShape& tile, uint32_t row_block, uint32_t col_block);

// A deliberate bug a learner can switch on, and how it shows itself.
struct Mistake {
  std::string name;         // "skip-mbarrier-wait"
  std::string description;  // what the builder changes
  std::string symptom;      // what the model/GPU should show
};

// A knob a learner can turn without editing the kernel (the depth of its ring of stages): the
// kernel declares the name, every value it accepts and the default, the fastest on the H100
// (docs/results say which run measured it).
struct BuildParam {
  std::string name;         // "stages"
  std::string description;  // "shared-memory stages in the TMA ring (48 KiB each)"
  uint32_t default_value = 0;
  std::vector<uint32_t> choices;  // ascending; contains default_value
};

// Bad user input (shape, mistake name, id): the message names the value and what is valid.
class ConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct KernelInfo {
  std::string id;           // "hopper_tma_wgmma_64"
  std::string title;        // "TMA + wgmma, one warpgroup, 64×64 tile"
  ir::Arch arch = ir::Arch::sm_80;
  Family family = Family::simt;
  int step = 0;             // position on the ladder: the NN of kernels/NN_<name>.cpp, set by the registry
  std::string delta;        // what changed from the step before, one line
  std::string explanation;  // a paragraph for learners
  // The views that carry this step's lesson, by their `--view` names (gui/core/views.def:
  // "coalescing", "smem", "tma", "timeline", ...), most telling first. Opening the step in the
  // app shows these large and the others as tabs; `list --json` prints them.
  // tests/gui/test_focus_views.cpp checks every name is a view.
  std::vector<std::string> focus_views;
  // The moments of its own traced run the step's lesson stops at (kernels/stops.def), in the
  // order they happen; a stop tied to a mistake is offered only with that mistake switched on.
  // The app finds each from the model's events (gui/core/guided_stops.hpp), and
  // tests/gui/test_guided_stops.cpp checks every one is found at two shapes.
  std::vector<StepStop> stops;
  // The article's pictures that belong to the step, offered in its lesson: a `gemmscope draw`
  // layout with its options ("wgmma-acc --n 64", "swizzle --mode 128B") or a view that draws
  // the step's own run ("schedule", "smem"); gui/core/article_pictures.hpp reads them.
  std::vector<std::string> pictures;
  // The CTA's output tile (m, n) and K step as the kernel ships (its default build); tile_of(info,
  // params) is any build's.
  GemmShape tile;
  GemmShape example_shape;  // the small shape used for demos and tests
  DType ab_dtype = DType::f32;
  DType c_dtype = DType::f32;
  BLayout b_layout = BLayout::nk;
  std::vector<std::string> constraints;  // shape rules in words
  std::vector<Mistake> mistakes;
  std::vector<BuildParam> params;
  // Set by a kernel whose CTA tile is a build parameter (the SIMT steps 04-07: bm, bn, bk): the
  // tile of a build, from its resolved parameters. Unset: every build has `tile`. Read through
  // tile_of().
  std::function<GemmShape(const ParamValues&)> build_tile;
  // Set by a kernel whose parameters constrain one another: nullopt when the resolved values
  // (every declared parameter, each one of its choices) make a kernel, else why not, naming the
  // values and what would be valid ("bm·bn/tm = 64·256/4 = 4096 threads: a CTA has at most
  // 1024"). resolve_params checks it, so no build, run or view sees such a combination.
  std::function<std::optional<std::string>(const ParamValues&)> check_params;
  // Throws ConfigError when the shape does not fit a build of the kernel whose CTA tile is `tile`
  // (tile_of: `tile` unless the tile is a build parameter). check_build_shape calls it.
  std::function<void(const GemmShape& shape, const GemmShape& tile)> check_shape;
  // The tile of C the CTA at `ctaid` computes in a build whose CTA tile is `tile`: how the kernel
  // maps its grid onto C. Opening a kernel generates only that tile's rows of A and columns of B
  // (run/sim_job.cpp), so it must cover everything the CTA reads, mistakes included (tests/run
  // check it against a run on the whole inputs). Unset for a kernel whose CTAs read more than
  // one tile (a persistent kernel): opening it then generates all of A and B.
  std::function<CtaTile(const GemmShape& shape, const GemmShape& tile, const std::array<uint32_t, 3>& ctaid)> cta_tile;
  std::function<ir::Kernel(const GemmConfig&)> build;

  // The shape to run: each dimension the request leaves 0 takes the example shape's. The one
  // place where "0 means the example shape" is decided.
  GemmShape resolve(const GemmShape& requested) const;
};

std::span<const KernelInfo> all_kernels();
const KernelInfo* find_kernel(std::string_view id);
// find_kernel that throws ConfigError naming the valid ids.
const KernelInfo& kernel_or_throw(std::string_view id);

// Throws ConfigError naming the kernel's valid mistakes for a name it does not declare.
void require_mistakes(const KernelInfo& info, const std::set<std::string>& mistakes);

// The depth of a kernel's ring of shared-memory stages as a build parameter "stages":
// first..last stages of stage_bytes each (A's and B's tiles together), default_value the fastest.
BuildParam stages_param(uint32_t default_value, uint32_t first, uint32_t last, uint32_t stage_bytes);
// log2 of a power of two: a tile parameter's value in the shifts and masks a build writes, as
// the step wrote them with a fixed tile. Throws std::logic_error for any other value (a step's
// choices are powers of two where it shifts by them).
uint32_t log2_exact(uint32_t power_of_two);

// The persistent grid's CTA count as a build parameter "ctas" (128 by default: fast.cu measured
// 128 faster than one per SM of the H100's 132). Every choice is a multiple of 4, so it divides
// into clusters of 1, 2 or 4. A kernel launches min(ctas, its tiles) CTAs.
BuildParam persistent_ctas_param();

// C's element type as a build parameter "c_dtype": 32 (f32, the default, as cuBLAS's f32 output
// that every table compares with) or 16 (bf16, as fast.cu and the article write C). On the
// command line c_dtype=f32 and c_dtype=bf16 mean the same (named_param_value).
BuildParam c_dtype_param();
// C's element type of one build: the "c_dtype" parameter where the kernel declares it (its
// default where `params` leaves it unset), else the kernel's own c_dtype.
DType c_dtype_of(const KernelInfo& info, const ParamValues& params);
// The number a named value of a build parameter stands for: c_dtype f32/bf16 (32/16), order
// row/grouped/hilbert (0/1/2), c_store_hint none/evict_first (0/1), store_barrier
// consumers/warpgroup (0/1), staging chunks/slab (0/1), share b/a (0/1); nullopt for any other
// name or value.
std::optional<uint32_t> named_param_value(std::string_view param, std::string_view value);
// Every named value, for an error message: "c_dtype=f32 or bf16, order=row, grouped or hilbert, ...".
std::string named_param_values_text();

// The declared parameter `name`; throws ConfigError naming the kernel's parameters when it has
// no such one.
const BuildParam& require_param(const KernelInfo& info, std::string_view name);
// Throws ConfigError for a parameter the kernel does not declare or a value it does not take,
// naming the valid ones: one value on its own, whatever the others are.
void require_param_value(const KernelInfo& info, std::string_view name, uint32_t value);
// Throws ConfigError for a parameter the kernel does not declare or a value it does not take,
// naming the valid ones, or for values that cannot be combined (KernelInfo::check_params, its
// reason); returns every declared parameter's value (the default where unset).
ParamValues resolve_params(const KernelInfo& info, const ParamValues& requested);
// The CTA tile of the build with these parameters (unset ones at their defaults): the kernel's
// build_tile where it declares one, else its `tile`. Throws ConfigError as resolve_params does.
GemmShape tile_of(const KernelInfo& info, const ParamValues& params);
// Throws ConfigError when the shape does not fit the build with these parameters (the kernel's
// check_shape with that build's tile), or when the parameters do not (resolve_params).
void check_build_shape(const KernelInfo& info, const GemmShape& shape, const ParamValues& params = {});
// The tile of C the CTA at `ctaid` computes in that build; nullopt for a kernel without a
// cta_tile (a persistent one).
std::optional<CtaTile> cta_tile_of(const KernelInfo& info, const ParamValues& params, const GemmShape& shape,
                                   const std::array<uint32_t, 3>& ctaid);
// "stages=3 unroll=2" (every declared parameter, in name order), "" for a kernel without any.
std::string params_text(const ParamValues& values);
// Only the values that differ from the kernel's defaults ("" when the kernel is built as it
// ships): how a measurement of a variant is told apart from the kernel's own.
std::string non_default_params_text(const KernelInfo& info, const ParamValues& values);

// Checks the shape, the mistake names and the parameters, builds, and runs ir::verify: the one way back
// ends get a kernel.
ir::Kernel build_kernel(const KernelInfo& info, const GemmConfig& config);

// Shared shape rules, with messages that name the value, e.g.
// "M=100 is not a multiple of the 64-row tile of hopper_tma_wgmma_64".
void require_multiple(std::string_view kernel, char dim, uint32_t value, uint32_t multiple, std::string_view what);
void require_range(std::string_view kernel, char dim, uint32_t value, uint32_t lo, uint32_t hi);
// A tiled kernel's usual rules: M, N and K positive multiples of tile.m, tile.n and tile.k
// ("the 64-row tile", "the 16-element K step"), each at most kMaxGemmDimension.
void require_tiles(std::string_view kernel, const GemmShape& shape, const GemmShape& tile);

// The ladder's steps in file order, from the list CMake generates out of the step files
// kernels/NN_<name>.cpp (registry_list.cpp.in): the <name> part of the file name and what
// <name>_info() returned. all_kernels() checks (the id is the file's name), gives each its
// step number from the file's NN, and keeps them.
struct LadderStep {
  std::string_view file_name;
  int step = 0;
  KernelInfo info;
};
std::vector<LadderStep> ladder_steps();

}  // namespace gs::kernels
