// The Blackwell steps beyond what every kernel gets (tests/kernels/test_kernels.cpp,
// tests/model/test_model_kernels.cpp): ptxas -arch=sm_100a at 8192^3, the model exact at an
// edge shape (multiples of 8, not of the tile), and the tcgen05 structure step 20 teaches.
#include <catch2/catch.hpp>

#include "engine/ptx/emit.hpp"
#include "kernels/registry.hpp"
#include "tests/model/model_fixture.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;

namespace {
size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("blackwell_tcgen05_basic assembles for sm_100a at 8192^3 and at its example", "[kernels][ptxas][tcgen05]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("blackwell_tcgen05_basic");
  for (kernels::GemmShape s : {info.example_shape, kernels::GemmShape{8192, 8192, 8192}}) {
    const std::string ptx = ptx::emit(kernels::build_kernel(info, {s, {}})).text;
    CHECK(ptx.find(".target sm_100a") != std::string::npos);
    test::check_assembles(ptx, ir::Arch::sm_100a, info.id);
  }
}

TEST_CASE("blackwell_tcgen05_basic has the tcgen05 structure of step 20", "[kernels][tcgen05]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("blackwell_tcgen05_basic");
  CHECK(info.step == 20);
  CHECK(info.arch == ir::Arch::sm_100a);
  const std::string ptx = ptx::emit(kernels::build_kernel(info, {info.example_shape, {}})).text;
  CHECK(count(ptx, "tcgen05.alloc.cta_group::1") == 1);
  CHECK(count(ptx, "tcgen05.dealloc.cta_group::1") == 1);
  CHECK(count(ptx, "tcgen05.mma.cta_group::1.kind::f16") == 4);  // k16 steps of one K-block, in a loop
  CHECK(count(ptx, "tcgen05.commit.cta_group::1") == 1);
  CHECK(count(ptx, "tcgen05.ld.sync.aligned.32x32b.x32.b32") == 4);  // 128 columns, 32 at a time
  CHECK(count(ptx, "wgmma") == 0);
}

TEST_CASE("blackwell_tcgen05_basic is exact in the model at an edge shape", "[model][tcgen05]") {
  // 200 x 136 x 72: every dimension a multiple of 8 and none of the 128 x 128 x 64 tile.
  for (bool integer : {true, false}) {
    test::ModelRun r = test::run_model("blackwell_tcgen05_basic", {200, 136, 72}, integer, 3);
    INFO(test::hazard_list(r.result) << r.result.error);
    REQUIRE(r.result.completed);
    CHECK(r.result.hazards.empty());
    if (integer) CHECK(r.mismatches == 0);
    else CHECK(r.rel_err < 1e-5);
  }
}
