// C's element type as a build parameter (c_dtype, steps 17 and 18): bf16 C is the f32 sum
// rounded to nearest even once, on the model bit for bit with the reference rounded the same
// way, at the example shape and at edges; the kernels without the parameter keep their own
// type; the command line takes the values by name.
#include <cstring>
#include <string>

#include <catch2/catch.hpp>

#include "cli/values.hpp"
#include "engine/ir/bf16.hpp"
#include "engine/ptx/emit.hpp"
#include "kernels/registry.hpp"
#include "run/sim_job.hpp"

using namespace gs;

TEST_CASE("c_dtype: which kernels take it, and the type each build gets", "[kernels][params]") {
  for (const char* id :
       {"hopper_cluster_multicast", "hopper_tma_store", "blackwell_tma_store_epilogue", "blackwell_pair_persistent"}) {
    const kernels::KernelInfo& info = kernels::kernel_or_throw(id);
    INFO(id);
    CHECK(kernels::c_dtype_of(info, {}) == kernels::DType::f32);  // the default: as cuBLAS's f32 output
    CHECK(kernels::c_dtype_of(info, {{"c_dtype", 32}}) == kernels::DType::f32);
    CHECK(kernels::c_dtype_of(info, {{"c_dtype", 16}}) == kernels::DType::bf16);
    // The built kernel's C: 2 bytes an element (the model's record of C's tiles reads it).
    CHECK(kernels::build_kernel(info, {info.example_shape, {}, {{"c_dtype", 16}}}).output.elem_bytes == 2);
    CHECK(kernels::build_kernel(info, {info.example_shape, {}, {}}).output.elem_bytes == 4);
  }
  // A kernel without the parameter keeps its own type and refuses the parameter by name.
  const kernels::KernelInfo& naive = kernels::kernel_or_throw("simt_naive");
  CHECK(kernels::c_dtype_of(naive, {{"c_dtype", 16}}) == naive.c_dtype);
  CHECK_THROWS_WITH(kernels::resolve_params(naive, {{"c_dtype", 16}}), Catch::Contains("unknown build parameter 'c_dtype'"));
  const kernels::KernelInfo& store = kernels::kernel_or_throw("hopper_tma_store");
  CHECK_THROWS_WITH(kernels::resolve_params(store, {{"c_dtype", 8}}), Catch::Contains("choose one of 16, 32"));
}

TEST_CASE("c_dtype: the command line takes f32 and bf16 (and the tile orders) by name", "[cli][params]") {
  const kernels::ParamValues p = cli::parse_params({"c_dtype=bf16", "order=hilbert", "stages=3"});
  CHECK(p.at("c_dtype") == 16);
  CHECK(p.at("order") == 2);
  CHECK(p.at("stages") == 3);
  CHECK(cli::parse_params({"c_dtype=f32", "order=row"}).at("c_dtype") == 32);
  CHECK(cli::parse_params({"order=grouped"}).at("order") == 1);
  // A name that means nothing for that parameter is refused, saying which names exist.
  CHECK_THROWS_WITH(cli::parse_params({"c_dtype=fp8"}), Catch::Contains("c_dtype=f32 or bf16"));
  CHECK_THROWS_WITH(cli::parse_params({"stages=bf16"}), Catch::Contains("is not a build parameter"));
}

TEST_CASE("c_dtype: a bf16 C is the exact sum rounded once, on the model, bit for bit", "[kernels][params][model]") {
  struct Case {
    const char* id;
    kernels::GemmShape shape;
  };
  // An edge: N not a multiple of the 256-wide tile, M not of the cluster's rows; K = 136 gives
  // integer sums up to 2176, so many need rounding to bf16's 8 bits of mantissa. (The example
  // shapes run with c_dtype=16 in test_build_params.cpp's "shallowest and deepest" case.)
  for (const Case& c : {Case{"hopper_cluster_multicast", {200, 264, 136}}, Case{"hopper_tma_store", {200, 264, 136}},
                        Case{"hopper_stmatrix_epilogue", {200, 264, 136}},
                        Case{"blackwell_tma_store_epilogue", {200, 264, 136}},
                        Case{"blackwell_pair_persistent", {200, 264, 136}}}) {
    DYNAMIC_SECTION(c.id << " " << c.shape.m << "x" << c.shape.n << "x" << c.shape.k) {
      run::SimRequest req;
      req.kernel_id = c.id;
      req.shape = c.shape;
      req.params = {{"c_dtype", 16}};
      req.trace = false;
      const run::SimReport r = run::run_sim(req);
      REQUIRE(r.result.completed);
      CHECK(r.result.hazards.empty());
      CHECK(r.c_dtype == kernels::DType::bf16);
      REQUIRE(r.buffers.c.size() == size_t(r.shape.m) * r.shape.n * 2);
      CHECK(r.cmp.correct);
      CHECK(r.cmp.mismatches == 0);
      CHECK(r.cmp.unwritten == 0);
      // The rounding was exercised: some exact sums are not bf16 values, and C holds them rounded.
      size_t rounded = 0;
      for (size_t i = 0; i < r.reference.size(); ++i) {
        const float exact = float(r.reference[i]);
        const uint16_t bits = ir::f32_to_bf16_rne(exact);
        uint16_t got;
        std::memcpy(&got, r.buffers.c.data() + 2 * i, 2);
        CHECK(got == bits);
        rounded += ir::bf16_to_f32(bits) != exact;
        if (got != bits) break;  // one mismatch says enough
      }
      CHECK(rounded > 0);
    }
  }
}

TEST_CASE("c_dtype: the bf16 epilogues round with cvt.rn.bf16x2.f32 and store half the bytes", "[kernels][params]") {
  const kernels::KernelInfo& multicast = kernels::kernel_or_throw("hopper_cluster_multicast");
  const std::string direct = ptx::emit(kernels::build_kernel(multicast, {multicast.example_shape, {}, {{"c_dtype", 16}}})).text;
  CHECK_THAT(direct, Catch::Contains("cvt.rn.bf16x2.f32"));
  CHECK_THAT(direct, Catch::Contains("st.global.b32"));
  CHECK_THAT(direct, !Catch::Contains("st.global.v2.f32"));
  const kernels::KernelInfo& store = kernels::kernel_or_throw("hopper_tma_store");
  const ir::Kernel staged = kernels::build_kernel(store, {store.example_shape, {}, {{"c_dtype", 16}}});
  const std::string text = ptx::emit(staged).text;
  CHECK_THAT(text, Catch::Contains("cvt.rn.bf16x2.f32"));
  CHECK_THAT(text, Catch::Contains("st.shared.b32"));
  // Four staging buffers of 64 x 64 bf16: 8 KiB each, half of f32's.
  for (const ir::SharedAlloc& a : staged.smem)
    if (a.name == "sC") CHECK(a.bytes == 4 * 8192);
}
