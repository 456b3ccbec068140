// Every registered kernel computes the right GEMM in the model: exactly for integer inputs,
// within bf16 rounding for random ones, at its example shape and two more.
#include <catch2/catch.hpp>

#include "tests/model/model_fixture.hpp"
#include "tests/support/param_combos.hpp"

using namespace gs;

namespace {
// The example as it ships (a large persistent example with fewer CTAs: test::small_whole_grid)
// and two shapes of whole tiles.
std::vector<test::WholeGrid> runs_for(const kernels::KernelInfo& info) {
  const kernels::GemmShape t = info.tile;
  return {test::small_whole_grid(info),
          {{t.m * 2, t.n * 3, std::max<uint32_t>(t.k * 2, 64)}, {}},
          {{t.m * 3, t.n, std::max<uint32_t>(t.k * 5, 128)}, {}}};
}
}  // namespace

TEST_CASE("model: every kernel is exact on integer inputs and close on random ones", "[model]") {
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    for (const test::WholeGrid& g : runs_for(info)) {
      const kernels::GemmShape& s = g.shape;
      for (bool integer : {true, false}) {
        DYNAMIC_SECTION(info.id << " " << s.m << "x" << s.n << "x" << s.k << (integer ? " int" : " random")) {
          test::ModelRun r = test::run_model(info.id, s, integer, 42 + s.m, {}, {}, g.params);
          INFO(test::hazard_list(r.result) << r.result.error);
          CHECK(r.result.completed);
          CHECK(r.result.hazards.empty());
          if (integer) {
            CHECK(r.mismatches == 0);
          } else {
            // A bf16 C (step 19's default) is compared with the reference rounded once: where the
            // model's f32 sum differs in its last bits, the rounding may go one bf16 step (2^-8) the
            // other way, in a few elements.
            const bool bf16_c = kernels::c_dtype_of(info, {}) == kernels::DType::bf16;
            CHECK(r.rel_err < (bf16_c ? 1e-3 : info.ab_dtype == kernels::DType::bf16 ? 1e-5 : 1e-6));
          }
          CHECK(r.result.stats.warp_instructions > 0);
          CHECK(r.result.stats.ctas == r.kernel.launch.ctas());
        }
      }
    }
  }
}
