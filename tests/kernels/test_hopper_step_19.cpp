// Step 19 (a stmatrix epilogue through a 128B-swizzled staging tile): what the epilogue issues
// per tile for each C type (stmatrix.x4 of bf16 pairs, or st.shared.v2.f32), C's tensor map
// with the swizzle, the staging buffers and the ring within shared memory, its mistakes and
// refusals, the c_store_hint parameter (none: today's PTX; evict_first: an L2 policy and the
// stores' .L2::cache_hint form), cuBLAS's 256x128 tile (bm=256) and clusters sharing A (share=a),
// the variants as they were before those two, and ptxas for sm_90a. Whether it computes C, and its
// banks, is tests/model's job (test_stmatrix_epilogue.cpp).
#include <map>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "cli/values.hpp"
#include "engine/ir/signature.hpp"
#include "engine/ptx/emit.hpp"
#include "kernels/registry.hpp"
#include "tests/support/kernel_ops.hpp"
#include "tests/support/ptx_fingerprint.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;
using gs::test::count;
using gs::test::op_counts;

namespace {

constexpr const char* kId = "hopper_stmatrix_epilogue";

ir::Kernel build(kernels::GemmShape shape, std::set<std::string> mistakes = {}, kernels::ParamValues params = {}) {
  return kernels::build_kernel(kernels::kernel_or_throw(kId), {shape, std::move(mistakes), std::move(params)});
}

const ir::SharedAlloc& staging(const ir::Kernel& k) {
  for (const ir::SharedAlloc& a : k.smem)
    if (a.name == "sC") return a;
  FAIL("no sC allocation");
  throw;
}

}  // namespace

TEST_CASE("step 19 assembles for sm_90a with each C type, cluster and mistake", "[kernels][ptxas]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kId);
  for (uint32_t c_dtype : {16u, 32u})
    for (uint32_t cluster : {1u, 2u, 4u}) {
      DYNAMIC_SECTION("c_dtype=" << c_dtype << " cluster=" << cluster) {
        const ir::Kernel k = build({8192, 8192, 8192}, {}, {{"cluster", cluster}, {"c_dtype", c_dtype}});
        test::check_assembles(ptx::emit(k).text, ir::Arch::sm_90a,
                              fmt::format("{} c_dtype={} cluster={}", kId, c_dtype, cluster));
      }
    }
  for (const kernels::Mistake& m : info.mistakes)
    for (uint32_t c_dtype : {16u, 32u}) {
      DYNAMIC_SECTION("--break " << m.name << " c_dtype=" << c_dtype) {
        test::check_assembles(ptx::emit(build(info.example_shape, {m.name}, {{"c_dtype", c_dtype}})).text,
                              ir::Arch::sm_90a, std::string(kId) + " " + m.name);
      }
    }
}

TEST_CASE("step 19's C is bf16 unless asked for f32", "[kernels][params]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kId);
  CHECK(kernels::c_dtype_of(info, {}) == kernels::DType::bf16);  // the type stmatrix stores
  CHECK(info.c_dtype == kernels::DType::bf16);
  CHECK(kernels::c_dtype_of(info, {{"c_dtype", 32}}) == kernels::DType::f32);
  CHECK(build(info.example_shape).output.elem_bytes == 2);
  CHECK(build(info.example_shape, {}, {{"c_dtype", 32}}).output.elem_bytes == 4);
  CHECK(kernels::resolve_params(info, {}).at("c_dtype") == 16);
  CHECK_THROWS_WITH(kernels::resolve_params(info, {{"c_dtype", 8}}), Catch::Contains("choose one of 16, 32"));
}

TEST_CASE("step 19 bf16: four stmatrix.x4 a chunk into a 128B-swizzled box, stored by TMA", "[kernels]") {
  const ir::Kernel k = build({256, 512, 512});
  const auto c = op_counts(k);
  CHECK(count(c, ir::Op::st_global) == 0);
  CHECK(count(c, ir::Op::st_shared) == 0);         // every staging write is a stmatrix
  CHECK(count(c, ir::Op::stmatrix) == 4 * 4);      // 4 chunks of 64 columns: 8 blocks, two per x4
  CHECK(count(c, ir::Op::stmatrix_trans) == 0);    // C is row-major like the fragment
  CHECK(count(c, ir::Op::cvt_pack) == 64);         // 128 accumulators a thread, in pairs
  for (const ir::Inst& i : k.insts)
    if (i.op == ir::Op::stmatrix) CHECK(i.aux == 4);
  CHECK(count(c, ir::Op::fence_proxy_async) == 4);
  CHECK(count(c, ir::Op::cp_async_bulk_tensor_store) == 4);
  CHECK(count(c, ir::Op::cp_async_bulk_commit_group) == 4);
  CHECK(count(c, ir::Op::bar_sync) == 1 + 4 * 2);  // the init's, and two per chunk
  std::vector<int64_t> waits;
  for (const ir::Inst& i : k.insts)
    if (i.op == ir::Op::cp_async_bulk_wait_group_read) waits.push_back(i.operands[0].imm);
  CHECK(waits == std::vector<int64_t>{1, 1, 1, 1, 0});
  const ir::Param* tc = k.find_param(ir::ParamRole::tmap_c);
  REQUIRE(tc);
  CHECK(tc->tensor_map.dtype == ir::TensorDtype::bf16);
  CHECK(tc->tensor_map.swizzle == layout::Swizzle::b128);
  CHECK(tc->tensor_map.box_dim[0] * 2 == 128);  // the swizzle's span: one row of the box
  CHECK(tc->tensor_map.box_bytes() == 8192);
  const ir::SharedAlloc& sC = staging(k);
  CHECK(sC.operand == ir::GemmOperand::c);
  CHECK(sC.stages == 4);  // 2 buffers x 2 consumer warpgroups
  CHECK(sC.bytes == 4 * 8192);
  CHECK(sC.offset % 1024 == 0);  // the swizzle's pattern comes from address bits 7-9
  CHECK(sC.swizzle == layout::Swizzle::b128);
}

TEST_CASE("step 19 f32: st.shared.v2.f32 into the same swizzled 8-KiB boxes, 32 columns a chunk", "[kernels]") {
  const ir::Kernel k = build({256, 512, 512}, {}, {{"c_dtype", 32}});
  const auto c = op_counts(k);
  CHECK(count(c, ir::Op::stmatrix) == 0);          // stmatrix stores b16 only
  CHECK(count(c, ir::Op::cvt_pack) == 0);
  CHECK(count(c, ir::Op::st_shared) == 8 * 8);     // 8 chunks; 4 blocks x 2 row halves each
  CHECK(count(c, ir::Op::cp_async_bulk_tensor_store) == 8);
  CHECK(count(c, ir::Op::cp_async_bulk_wait_group_read) == 8 + 1);
  const ir::Param* tc = k.find_param(ir::ParamRole::tmap_c);
  REQUIRE(tc);
  CHECK(tc->tensor_map.dtype == ir::TensorDtype::f32);
  CHECK(tc->tensor_map.swizzle == layout::Swizzle::b128);
  CHECK(tc->tensor_map.box_dim[0] == 32);
  CHECK(tc->tensor_map.global_strides_bytes[0] == 512 * 4);
  CHECK(staging(k).bytes == 4 * 8192);
}

TEST_CASE("step 19: its mistakes change what they say", "[kernels]") {
  const ir::Kernel clean = build({256, 512, 512});
  const ir::Kernel packed = build({256, 512, 512}, {"unswizzled-staging"});
  CHECK(packed.find_param(ir::ParamRole::tmap_c)->tensor_map.swizzle == layout::Swizzle::none);
  CHECK(staging(packed).swizzle == layout::Swizzle::none);
  CHECK(count(op_counts(packed), ir::Op::stmatrix) == 16);
  // The swizzled writes, a map that reads the tile packed: only the map differs.
  const ir::Kernel unmapped = build({256, 512, 512}, {"swizzle-not-in-store-map"});
  CHECK(unmapped.find_param(ir::ParamRole::tmap_c)->tensor_map.swizzle == layout::Swizzle::none);
  CHECK(staging(unmapped).swizzle == layout::Swizzle::b128);
  CHECK(unmapped.insts.size() == clean.insts.size());
  const auto fence = op_counts(build({256, 512, 512}, {"missing-proxy-fence"}));
  CHECK(count(fence, ir::Op::fence_proxy_async) == 0);
  const auto reuse = op_counts(build({256, 512, 512}, {"reuse-staging-before-wait"}));
  CHECK(count(reuse, ir::Op::cp_async_bulk_wait_group_read) == 1);  // only the last one, before the end
}

TEST_CASE("step 19: four ring stages fit beside the staging buffers, five do not", "[kernels][errors]") {
  for (uint32_t c_dtype : {16u, 32u}) {
    INFO("c_dtype=" << c_dtype);
    CHECK(build({256, 512, 512}, {}, {{"stages", 4}, {"c_dtype", c_dtype}}).smem_bytes() <= 227 * 1024);
  }
  CHECK_THROWS_WITH(build({256, 512, 512}, {}, {{"stages", 5}}),
                    Catch::Contains("stages=5") && Catch::Contains("at bn=256 take stages 2..4"));
  CHECK_THROWS_WITH(build({256, 512, 100}), Catch::Contains("K=100"));
}

TEST_CASE("step 19's c_store_hint=none is the step's PTX as it was; evict_first hints every C store", "[kernels][params]") {
  for (const kernels::GemmShape shape : {kernels::GemmShape{256, 512, 512}, kernels::GemmShape{4096, 4096, 4096}})
    for (uint32_t c_dtype : {16u, 32u})
      for (uint32_t cluster : {1u, 2u}) {
        INFO(shape.m << "x" << shape.n << "x" << shape.k << " c_dtype=" << c_dtype << " cluster=" << cluster);
        const kernels::ParamValues base{{"c_dtype", c_dtype}, {"cluster", cluster}};
        kernels::ParamValues none = base, first = base;
        none["c_store_hint"] = 0;
        first["c_store_hint"] = 1;
        const std::string plain = ptx::emit(build(shape, {}, base)).text;
        CHECK(ptx::emit(build(shape, {}, none)).text == plain);  // the default, byte for byte
        CHECK(plain.find("cache_hint") == std::string::npos);
        CHECK(plain.find("createpolicy") == std::string::npos);
        const ir::Kernel hinted = build(shape, {}, first);
        const auto c = op_counts(hinted);
        CHECK(count(c, ir::Op::createpolicy_fractional_evict_first) == 1);  // once per consumer thread, before the tiles
        // Every store of C carries the policy; nothing else changes but that one instruction.
        int stores = 0;
        for (const ir::Inst& i : hinted.insts)
          if (i.op == ir::Op::cp_async_bulk_tensor_store) {
            ++stores;
            CHECK(ir::tensor_store_operands_of(i).policy.has_value());
          }
        CHECK(stores == count(op_counts(build(shape, {}, base)), ir::Op::cp_async_bulk_tensor_store));
        CHECK(hinted.insts.size() == build(shape, {}, base).insts.size() + 1);
        const std::string text = ptx::emit(hinted).text;
        CHECK_THAT(text, Catch::Contains("createpolicy.fractional.L2::evict_first.b64 %c_policy;"));
        CHECK_THAT(text, Catch::Contains("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group.L2::cache_hint [%tmC, "));
        CHECK_THAT(text, Catch::Contains("], %c_policy;"));
      }
}

TEST_CASE("step 19 with c_store_hint=evict_first assembles for sm_90a", "[kernels][ptxas]") {
  for (uint32_t c_dtype : {16u, 32u}) {
    DYNAMIC_SECTION("c_dtype=" << c_dtype) {
      const ir::Kernel k = build({8192, 8192, 8192}, {}, {{"c_dtype", c_dtype}, {"c_store_hint", 1}});
      test::check_assembles(ptx::emit(k).text, ir::Arch::sm_90a, fmt::format("{} c_store_hint=evict_first", kId));
    }
  }
}

TEST_CASE("step 19's c_store_hint: its values by name, and a value it does not take refused", "[kernels][params][errors]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kId);
  CHECK(kernels::resolve_params(info, {}).at("c_store_hint") == 0);  // no hint unless asked
  CHECK(kernels::named_param_value("c_store_hint", "none") == 0u);
  CHECK(kernels::named_param_value("c_store_hint", "evict_first") == 1u);
  CHECK_FALSE(kernels::named_param_value("c_store_hint", "evict_last").has_value());
  CHECK(cli::parse_params({"c_store_hint=evict_first"}).at("c_store_hint") == 1);
  CHECK_THROWS_WITH(kernels::resolve_params(info, {{"c_store_hint", 2}}),
                    Catch::Contains("c_store_hint=2") && Catch::Contains("choose one of 0, 1"));
  CHECK_THROWS_WITH(cli::parse_params({"c_store_hint=evict_last"}),
                    Catch::Contains("c_store_hint=evict_last") && Catch::Contains("c_store_hint=none or evict_first"));
  // Only step 19 takes it: step 18, the same kernel with st.shared staging, refuses it by name.
  CHECK_THROWS_WITH(kernels::resolve_params(kernels::kernel_or_throw("hopper_tma_store"), {{"c_store_hint", 1}}),
                    Catch::Contains("unknown build parameter 'c_store_hint'"));
}

TEST_CASE("step 19's store_barrier: both consumers at one barrier of 256 by default, each its own of 128 when asked",
          "[kernels][params]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kId);
  CHECK(kernels::resolve_params(info, {}).at("store_barrier") == 0);
  CHECK(kernels::named_param_value("store_barrier", "consumers") == 0u);
  CHECK(kernels::named_param_value("store_barrier", "warpgroup") == 1u);
  CHECK(cli::parse_params({"store_barrier=warpgroup"}).at("store_barrier") == 1);
  CHECK_THROWS_WITH(kernels::resolve_params(info, {{"store_barrier", 2}}),
                    Catch::Contains("store_barrier=2") && Catch::Contains("choose one of 0, 1"));
  const kernels::GemmShape shape{1000, 1000, 512};
  for (uint32_t c_dtype : {16u, 32u}) {
    INFO("c_dtype=" << c_dtype);
    const std::string both = ptx::emit(build(shape, {}, {{"c_dtype", c_dtype}})).text;
    const std::string own = ptx::emit(build(shape, {}, {{"c_dtype", c_dtype}, {"store_barrier", 1}})).text;
    CHECK(both == ptx::emit(build(shape, {}, {{"c_dtype", c_dtype}, {"store_barrier", 0}})).text);
    CHECK_THAT(both, Catch::Contains("bar.sync 1, 256;"));
    CHECK(both.find("bar.sync 2, ") == std::string::npos);
    CHECK(own.find("bar.sync 1, 256;") == std::string::npos);
    CHECK_THAT(own, Catch::Contains("bar.sync 1, 128;") && Catch::Contains("bar.sync 2, 128;"));
  }
  // Only step 19 takes it.
  CHECK_THROWS_WITH(kernels::resolve_params(kernels::kernel_or_throw("hopper_tma_store"), {{"store_barrier", 1}}),
                    Catch::Contains("unknown build parameter 'store_barrier'"));
}

TEST_CASE("step 19 with store_barrier=warpgroup assembles for sm_90a", "[kernels][ptxas]") {
  for (uint32_t c_dtype : {16u, 32u}) {
    DYNAMIC_SECTION("c_dtype=" << c_dtype) {
      const ir::Kernel k = build({8192, 8192, 8192}, {}, {{"c_dtype", c_dtype}, {"store_barrier", 1}});
      test::check_assembles(ptx::emit(k).text, ir::Arch::sm_90a, fmt::format("{} store_barrier=warpgroup", kId));
    }
  }
}

TEST_CASE("step 19's staging: two buffers in turn by default; slab gives each chunk its own and meets twice a tile",
          "[kernels][params]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kId);
  CHECK(kernels::resolve_params(info, {}).at("staging") == 0);
  CHECK(kernels::named_param_value("staging", "chunks") == 0u);
  CHECK(kernels::named_param_value("staging", "slab") == 1u);
  CHECK(cli::parse_params({"staging=slab"}).at("staging") == 1);
  CHECK_THROWS_WITH(cli::parse_params({"staging=whole"}),
                    Catch::Contains("staging=whole") && Catch::Contains("staging=chunks or slab"));
  CHECK_THROWS_WITH(kernels::resolve_params(info, {{"staging", 2}}),
                    Catch::Contains("staging=2") && Catch::Contains("choose one of 0, 1"));
  const kernels::GemmShape shape{1000, 1000, 512};
  // The default's PTX is the same whether staging=chunks is named or not.
  CHECK(ptx::emit(build(shape)).text == ptx::emit(build(shape, {}, {{"staging", 0}})).text);
  for (const uint32_t bn : {128u, 256u}) {
    INFO("bn=" << bn);
    const kernels::ParamValues base{{"bn", bn}, {"stages", 3}};
    kernels::ParamValues slab = base;
    slab["staging"] = 1;
    const ir::Kernel a = build(shape, {}, base), k = build(shape, {}, slab);
    const uint32_t chunks = bn / 64;  // of bf16, the default C
    CHECK(staging(a).bytes == 2 * 2 * 8192);
    CHECK(staging(k).bytes == 2 * chunks * 8192);  // a buffer for every chunk of both consumers' slabs
    // The same writes and stores, the epilogue's two meetings a chunk become two a tile, and the
    // issuer waits once a tile (and once before exiting) instead of once a chunk.
    const auto ops_a = op_counts(a), ops_k = op_counts(k);
    CHECK(count(ops_k, ir::Op::stmatrix) == count(ops_a, ir::Op::stmatrix));
    CHECK(count(ops_k, ir::Op::cp_async_bulk_tensor_store) == count(ops_a, ir::Op::cp_async_bulk_tensor_store));
    CHECK(count(ops_k, ir::Op::bar_sync) == count(ops_a, ir::Op::bar_sync) - 2 * (int(chunks) - 1));
    CHECK(count(ops_k, ir::Op::cp_async_bulk_commit_group) == 1);
    CHECK(count(ops_a, ir::Op::cp_async_bulk_commit_group) == int(chunks));
    const std::string text = ptx::emit(k).text;
    CHECK_THAT(text, Catch::Contains("cp.async.bulk.wait_group.read 0;"));
    CHECK(text.find("cp.async.bulk.wait_group.read 1;") == std::string::npos);
  }
  // Refused: f32 C (its slab would leave 2 stages), and more stages than the slab leaves room for.
  CHECK_THROWS_WITH(build(shape, {}, {{"staging", 1}, {"stages", 3}, {"c_dtype", 32}}),
                    Catch::Contains("staging=slab takes c_dtype=bf16 only") && Catch::Contains("staging=chunks"));
  CHECK_THROWS_WITH(build(shape, {}, {{"staging", 1}}),
                    Catch::Contains("staging=slab at bn=256") && Catch::Contains("64 KiB of staging") &&
                        Catch::Contains("take stages 2..3"));
  CHECK_NOTHROW(build(shape, {}, {{"staging", 1}, {"bn", 128}, {"stages", 6}}));  // a slab of 16 KiB a consumer
  // Only step 19 takes it.
  CHECK_THROWS_WITH(kernels::resolve_params(kernels::kernel_or_throw("hopper_tma_store"), {{"staging", 1}}),
                    Catch::Contains("unknown build parameter 'staging'"));
}

TEST_CASE("step 19 at bn=192: three chunks of bf16 a slab, the tile's first waiting for every store before it",
          "[kernels][params]") {
  // Chunk i goes through buffer i % 2 and waits until only the newest store may still read
  // (wait_group.read 1). With three chunks a tile the tile before's last chunk went through buffer
  // 0 and is that newest store, so the first chunk must wait for all (read 0); six chunks of f32
  // and four of bf16 at bn=256 alternate across tiles as they do within one.
  const auto waits = [](const ir::Kernel& k) {
    std::map<int64_t, size_t> n;  // groups left reading -> waits
    for (const ir::Inst& i : k.insts)
      if (i.op == ir::Op::cp_async_bulk_wait_group_read) ++n[i.operands.at(0).imm];
    return n;
  };
  const kernels::GemmShape shape{1000, 1000, 512};
  CHECK(waits(build(shape, {}, {{"bn", 192}})) == std::map<int64_t, size_t>{{0, 2}, {1, 2}});
  CHECK(waits(build(shape, {}, {{"bn", 192}, {"c_dtype", 32}})) == std::map<int64_t, size_t>{{0, 1}, {1, 6}});
  CHECK(waits(build(shape)) == std::map<int64_t, size_t>{{0, 1}, {1, 4}});
  // B's box and stage at 192 rows (24 KiB): 40 KiB a stage, four beside the 32 KiB of buffers.
  CHECK_NOTHROW(build(shape, {}, {{"bn", 192}, {"stages", 4}}));
  CHECK_THROWS_WITH(build(shape, {}, {{"bn", 192}, {"stages", 5}}), Catch::Contains("bn=192"));
}

TEST_CASE("step 19 at bn=192 assembles for sm_90a", "[kernels][ptxas]") {
  for (const kernels::ParamValues& p :
       {kernels::ParamValues{{"bn", 192}}, kernels::ParamValues{{"bn", 192}, {"c_dtype", 32}, {"cluster", 1}},
        kernels::ParamValues{{"bn", 192}, {"share", 1}, {"cluster", 4}},
        kernels::ParamValues{{"bn", 192}, {"staging", 1}, {"stages", 4}}}) {
    DYNAMIC_SECTION(kernels::params_text(p)) {
      const ir::Kernel k = build({8192, 8192, 8192}, {}, p);
      test::check_assembles(ptx::emit(k).text, ir::Arch::sm_90a, fmt::format("{} {}", kId, kernels::params_text(p)));
    }
  }
}

TEST_CASE("step 19 with staging=slab assembles for sm_90a", "[kernels][ptxas]") {
  // staging=slab with the other defaults is assembled by test_build_params.cpp; here the combinations.
  for (const kernels::ParamValues& p :
       {kernels::ParamValues{{"staging", 1}, {"stages", 3}, {"store_barrier", 1}, {"c_store_hint", 1}},
        kernels::ParamValues{{"staging", 1}, {"stages", 6}, {"bn", 128}}}) {
    DYNAMIC_SECTION("params " << p.size() << " bn " << (p.count("bn") ? p.at("bn") : 256)) {
      const ir::Kernel k = build({8192, 8192, 8192}, {}, p);
      test::check_assembles(ptx::emit(k).text, ir::Arch::sm_90a, fmt::format("{} staging=slab", kId));
    }
  }
}

TEST_CASE("step 19's wgmma_in_flight: a K block waits for its own wgmmas by default, for the block before's when asked",
          "[kernels][params]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kId);
  CHECK(kernels::resolve_params(info, {}).at("wgmma_in_flight") == 0);
  CHECK_THROWS_WITH(kernels::resolve_params(info, {{"wgmma_in_flight", 2}}),
                    Catch::Contains("wgmma_in_flight=2") && Catch::Contains("choose one of 0, 1"));
  const kernels::GemmShape shape{1000, 1000, 512};
  for (uint32_t cluster : {1u, 2u}) {
    INFO("cluster=" << cluster);
    const std::string plain = ptx::emit(build(shape, {}, {{"cluster", cluster}})).text;
    CHECK(plain == ptx::emit(build(shape, {}, {{"cluster", cluster}, {"wgmma_in_flight", 0}})).text);
    CHECK(plain.find("wgmma.wait_group.sync.aligned 1;") == std::string::npos);
    const ir::Kernel k = build(shape, {}, {{"cluster", cluster}, {"wgmma_in_flight", 1}});
    const std::string text = ptx::emit(k).text;
    // In the K loop wait_group 1, after it wait_group 0 before the epilogue reads the sums; the
    // stage released a block later, and the tile's last one after the loop: one release more.
    CHECK_THAT(text, Catch::Contains("wgmma.wait_group.sync.aligned 1;") &&
                         Catch::Contains("wgmma.wait_group.sync.aligned 0;"));
    const auto releases = [&](const ir::Kernel& kk) {
      return count(op_counts(kk), cluster == 1 ? ir::Op::mbarrier_arrive : ir::Op::mbarrier_arrive_remote);
    };
    CHECK(releases(k) == releases(build(shape, {}, {{"cluster", cluster}})) + 1);
  }
}

TEST_CASE("step 19 with wgmma_in_flight=1 assembles for sm_90a", "[kernels][ptxas]") {
  // bf16 C (the default) is assembled by test_build_params.cpp; f32 C and a cluster of 4 here.
  const ir::Kernel k = build({8192, 8192, 8192}, {}, {{"c_dtype", 32}, {"cluster", 4}, {"wgmma_in_flight", 1}});
  test::check_assembles(ptx::emit(k).text, ir::Arch::sm_90a, fmt::format("{} wgmma_in_flight=1 c_dtype=f32", kId));
}

// ---- bm=256 and share=a: cuBLAS's 256x128 tile in clusters side by side --------------------

namespace {

// The shared-memory tile allocation of operand `op` (the ring's A or B stages).
const ir::SharedAlloc& ring_tile(const ir::Kernel& k, ir::GemmOperand op) {
  for (const ir::SharedAlloc& a : k.smem)
    if (a.use == ir::SmemUse::tile && a.operand == op) return a;
  FAIL("no tile allocation");
  throw;
}

// The tensor map of the producer's multicast loads: which operand's box a cluster shares.
std::vector<std::string> multicast_maps(const std::string& ptx) {
  std::vector<std::string> maps;
  for (size_t at = ptx.find(".multicast::cluster"); at != std::string::npos; at = ptx.find(".multicast::cluster", at + 1)) {
    const size_t map = ptx.find("[%tm", at);
    maps.push_back(ptx.substr(map + 2, 3));
  }
  return maps;
}

const kernels::ParamValues kWide{{"bm", 256}, {"bn", 128}};  // cuBLAS's tile

kernels::ParamValues wide(kernels::ParamValues more) {
  more.insert(kWide.begin(), kWide.end());
  return more;
}

}  // namespace

TEST_CASE("step 19 bm=256: two wgmma.m64n128k16 a k16 step, A's stage 32 KiB, each consumer's two slabs stored in turn",
          "[kernels][params]") {
  const ir::Kernel k = build({512, 512, 512}, {}, wide({{"cluster", 1}}));
  const auto c = op_counts(k);
  // The K loop's body: 4 k16 steps x 2 slabs; every wgmma N=128.
  CHECK(count(c, ir::Op::wgmma_mma_async) == 4 * 2);
  for (const ir::Inst& i : k.insts)
    if (i.op == ir::Op::wgmma_mma_async) CHECK(i.aux == 128);
  // 2 slabs x 2 chunks of 64 bf16 columns, four stmatrix.x4 each; 128 accumulators a thread in pairs.
  CHECK(count(c, ir::Op::stmatrix) == 2 * 2 * 4);
  CHECK(count(c, ir::Op::cvt_pack) == 64);
  CHECK(count(c, ir::Op::cp_async_bulk_tensor_store) == 4);
  CHECK(count(c, ir::Op::bar_sync) == 1 + 4 * 2);  // the init's, and two per chunk
  CHECK(ring_tile(k, ir::GemmOperand::a).stages == 4);
  CHECK(ring_tile(k, ir::GemmOperand::a).bytes == 4 * 256 * 128);  // 4 stages of 256 rows of 128 B
  CHECK(ring_tile(k, ir::GemmOperand::b).bytes == 4 * 128 * 128);
  CHECK(k.smem_bytes() <= 227 * 1024);
  CHECK(staging(k).bytes == 4 * 8192);  // the same two buffers a consumer as at 128x256
  CHECK(k.find_param(ir::ParamRole::tmap_a)->tensor_map.box_dim[1] == 256);  // one box: A's whole tile
  CHECK(k.find_param(ir::ParamRole::tmap_b)->tensor_map.box_dim[1] == 128);
  CHECK(k.output.tile_rows == 256);
  CHECK(k.output.tile_cols == 128);
  // The second slab's stores are 64 rows further: two row registers.
  const std::string text = ptx::emit(k).text;
  CHECK_THAT(text, Catch::Contains("rows 64..127, columns 64..127 through buffer 1"));
  CHECK(kernels::tile_of(kernels::kernel_or_throw(kId), kWide).m == 256);
  // f32 C: 32 columns a chunk, 4 a slab, 8 a consumer.
  const ir::Kernel f = build({512, 512, 512}, {}, wide({{"cluster", 1}, {"c_dtype", 32}}));
  CHECK(count(op_counts(f), ir::Op::st_shared) == 8 * 8);
  CHECK(count(op_counts(f), ir::Op::cp_async_bulk_tensor_store) == 8);
}

TEST_CASE("step 19 share=a: each CTA multicasts its slice of A's box and loads its own B whole", "[kernels][params]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kId);
  CHECK(kernels::resolve_params(info, {}).at("share") == 0);  // step 17's way unless asked
  CHECK(kernels::resolve_params(info, {}).at("bm") == 128);
  CHECK(kernels::named_param_value("share", "b") == 0u);
  CHECK(kernels::named_param_value("share", "a") == 1u);
  CHECK(cli::parse_params({"share=a"}).at("share") == 1);
  CHECK_THROWS_WITH(cli::parse_params({"share=c"}), Catch::Contains("share=c") && Catch::Contains("share=b or a"));
  struct Case {
    uint32_t bm, bn, cluster;
  };
  for (const Case& c : {Case{256, 128, 2}, Case{256, 128, 4}, Case{128, 256, 2}}) {
    INFO("bm=" << c.bm << " bn=" << c.bn << " cluster=" << c.cluster);
    const ir::Kernel a = build({1024, 1024, 512}, {}, {{"bm", c.bm}, {"bn", c.bn}, {"cluster", c.cluster}, {"share", 1}});
    const ir::Kernel b = build({1024, 1024, 512}, {}, {{"bm", c.bm}, {"bn", c.bn}, {"cluster", c.cluster}, {"share", 0}});
    CHECK(multicast_maps(ptx::emit(a).text) == std::vector<std::string>{"tmA"});
    CHECK(multicast_maps(ptx::emit(b).text) == std::vector<std::string>{"tmB"});
    CHECK(a.find_param(ir::ParamRole::tmap_a)->tensor_map.box_dim[1] == c.bm / c.cluster);
    CHECK(a.find_param(ir::ParamRole::tmap_b)->tensor_map.box_dim[1] == c.bn);
    CHECK(b.find_param(ir::ParamRole::tmap_a)->tensor_map.box_dim[1] == c.bm);
    CHECK(b.find_param(ir::ParamRole::tmap_b)->tensor_map.box_dim[1] == c.bn / c.cluster);
    // Every CTA's full barrier expects both whole boxes: every slice of the shared one, the other whole.
    for (const ir::Kernel* k : {&a, &b})
      CHECK_THAT(ptx::emit(*k).text, Catch::Contains(fmt::format("[%full_s], {};", (c.bm + c.bn) * 128)));
    // The stage is released on every CTA's empty barrier either way.
    CHECK(count(op_counts(a), ir::Op::mbarrier_arrive_remote) == count(op_counts(b), ir::Op::mbarrier_arrive_remote));
    CHECK(count(op_counts(a), ir::Op::mbarrier_arrive_remote) > 0);
    CHECK(a.launch.cluster[0] == c.cluster);
  }
}

TEST_CASE("step 19 share=a walks cluster tiles side by side: each pair takes two neighbouring tiles of a tile-row",
          "[kernels][params][tile_order]") {
  // 520x648: 3 tile-rows x 6 tile-columns of 256x128 minus edges (N = 5 x 128 + 8): the last tile-column
  // is 8 wide; cluster tiles of 2 side by side, 3 x 3 of them, none outside C; with 4, 3 x 2 and the
  // second cluster tile's last two ranks right of C.
  for (const uint32_t cluster : {2u, 4u})
    for (const uint32_t order : {0u, 1u, 2u}) {
      INFO("cluster=" << cluster << " order=" << order);
      const ir::Kernel k = build({520, 648, 64}, {}, wide({{"cluster", cluster}, {"share", 1}, {"order", order}}));
      const std::vector<uint32_t>& w = k.output.walk;
      const uint32_t tiles_n = 6, tiles = 3 * 6;
      CHECK(w.size() == tiles);
      CHECK(std::set<uint32_t>(w.begin(), w.end()).size() == tiles);
      // A cluster's ranks take consecutive tiles of one tile-row, the first in a tile-column that is a
      // multiple of the cluster; the ranks right of C take none.
      for (size_t i = 0; i < w.size();) {
        const uint32_t first = w[i];
        CHECK((first % tiles_n) % cluster == 0);
        uint32_t r = 1;
        for (; r < cluster && first % tiles_n + r < tiles_n; ++r) {
          REQUIRE(i + r < w.size());
          CHECK(w[i + r] == first + r);
        }
        i += r;
      }
    }
}

TEST_CASE("step 19: bm and share combinations it does not build are refused, naming what would be valid",
          "[kernels][params][errors]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kId);
  CHECK_THROWS_WITH(kernels::resolve_params(info, {{"bm", 256}}),
                    Catch::Contains("bm=256 takes bn=128 only (bn=256 given)") &&
                        Catch::Contains("bm=128 takes bn=128, 192 or 256"));
  CHECK_THROWS_WITH(kernels::resolve_params(info, {{"bm", 192}}),
                    Catch::Contains("bm=192 is not a value") && Catch::Contains("choose one of 128, 256"));
  CHECK_THROWS_WITH(kernels::resolve_params(info, {{"share", 1}, {"cluster", 1}}),
                    Catch::Contains("share=a takes cluster=2 or 4 (cluster=1 given)") &&
                        Catch::Contains("share=b"));
  CHECK_THROWS_WITH(kernels::resolve_params(info, {{"share", 2}}), Catch::Contains("choose one of 0, 1"));
  // The ring at 256x128: 48 KiB a stage beside the 32 KiB of buffers, 4 stages; staging=slab 3.
  CHECK_THROWS_WITH(build({512, 512, 512}, {}, wide({{"stages", 5}})),
                    Catch::Contains("at bm=256 bn=128") && Catch::Contains("32 KiB of A") &&
                        Catch::Contains("take stages 2..4"));
  CHECK_THROWS_WITH(build({512, 512, 512}, {}, wide({{"staging", 1}})),
                    Catch::Contains("staging=slab at bm=256 bn=128") && Catch::Contains("128 x 128 slab of bf16 C") &&
                        Catch::Contains("take stages 2..3"));
  CHECK_THROWS_WITH(build({512, 512, 512}, {}, wide({{"staging", 1}, {"stages", 3}, {"c_dtype", 32}})),
                    Catch::Contains("staging=slab takes c_dtype=bf16 only"));
  CHECK_NOTHROW(build({512, 512, 512}, {}, wide({{"staging", 1}, {"stages", 3}})));
  CHECK_NOTHROW(build({512, 512, 512}, {}, wide({{"share", 1}, {"cluster", 4}, {"stages", 2}})));
  // Only step 19 takes them.
  CHECK_THROWS_WITH(kernels::resolve_params(kernels::kernel_or_throw("hopper_tma_store"), {{"share", 1}}),
                    Catch::Contains("unknown build parameter 'share'"));
  CHECK_THROWS_WITH(kernels::resolve_params(kernels::kernel_or_throw("hopper_tma_store"), {{"bm", 256}}),
                    Catch::Contains("unknown build parameter 'bm'"));
}

TEST_CASE("step 19's variants as they were before bm and share, byte for byte", "[kernels][params]") {
  // Fingerprints of `gemmscope ptx hopper_stmatrix_epilogue --m 1000 --n 1000 --k 512 ...` at commit
  // bf7de3d, before the tile's M and the shared operand became build parameters; regenerated on
  // 2026-12-07 when the consumers' descriptors became low-word arithmetic (hopper::RingDescriptors)
  // and again when its unused 64-bit stage-0 descriptors went, the only changes in their PTX since.
  struct Golden {
    kernels::ParamValues params;
    uint64_t fingerprint;
  };
  const Golden golden[] = {
      {{}, 0xffa52d7fd9c9234dull},
      {{{"cluster", 1}}, 0xbe532b8c20ae86d5ull},
      {{{"cluster", 4}}, 0x68c37f28c69da06eull},
      {{{"c_dtype", 32}}, 0x4b2c7ef33ea1d12cull},
      {{{"c_dtype", 32}, {"cluster", 1}}, 0x11ec03d8beae7c9cull},
      {{{"c_dtype", 32}, {"cluster", 4}}, 0x6c9c165ea6df4773ull},
      {{{"bn", 128}}, 0x5883f230e3516542ull},
      {{{"bn", 128}, {"stages", 6}}, 0xc217e9dceaf18d50ull},
      {{{"bn", 128}, {"c_dtype", 32}, {"ctas", 64}}, 0xbaf35bb6055ff6ccull},
      {{{"staging", 1}, {"stages", 3}}, 0x952ffdac3b39549full},
      {{{"staging", 1}, {"stages", 6}, {"bn", 128}}, 0x0a363432ed28365dull},
      {{{"store_barrier", 1}}, 0x22981d7d9857d34full},
      {{{"wgmma_in_flight", 1}}, 0x4a2e983b26bb3c1eull},
      {{{"wgmma_in_flight", 1}, {"cluster", 1}}, 0xf0e6aa662d5e5974ull},
      {{{"order", 2}}, 0xc46e3a3534b6a1ebull},
      {{{"order", 0}}, 0xfeef2481b325802aull},
      {{{"order", 2}, {"cluster", 4}}, 0xcf43f15e9614be18ull},
      {{{"c_store_hint", 1}}, 0x40ad6f47c23e6dbaull},
      {{{"stages", 2}}, 0xacc83249875ad033ull},
  };
  for (const Golden& g : golden) {
    INFO(kernels::params_text(g.params));
    const std::string text = ptx::emit(build({1000, 1000, 512}, {}, g.params)).text;
    CHECK(test::ptx_fingerprint(text) == g.fingerprint);
    // Naming the new parameters' defaults changes nothing.
    kernels::ParamValues named = g.params;
    named["bm"] = 128;
    named["share"] = 0;
    CHECK(ptx::emit(build({1000, 1000, 512}, {}, named)).text == text);
  }
}

TEST_CASE("step 19 at bm=256 and with share=a assembles for sm_90a", "[kernels][ptxas]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kId);
  std::vector<kernels::ParamValues> builds;
  for (const uint32_t c_dtype : {16u, 32u})
    for (const uint32_t cluster : {1u, 2u, 4u})
      for (const uint32_t share : {0u, 1u})
        if (share == 0 || cluster > 1) builds.push_back(wide({{"c_dtype", c_dtype}, {"cluster", cluster}, {"share", share}}));
  builds.push_back(wide({{"share", 1}, {"cluster", 2}, {"staging", 1}, {"stages", 3}, {"store_barrier", 1}}));
  builds.push_back(wide({{"share", 1}, {"cluster", 2}, {"wgmma_in_flight", 1}, {"order", 2}, {"c_store_hint", 1}}));
  builds.push_back({{"share", 1}, {"cluster", 2}});  // 128x256 sharing A
  for (const kernels::ParamValues& p : builds) {
    DYNAMIC_SECTION(kernels::params_text(p)) {
      const ir::Kernel k = build({8192, 8192, 8192}, {}, p);
      test::check_assembles(ptx::emit(k).text, ir::Arch::sm_90a, fmt::format("{} {}", kId, kernels::params_text(p)));
    }
  }
  for (const kernels::Mistake& m : info.mistakes) {
    DYNAMIC_SECTION("--break " << m.name << " bm=256 share=a") {
      test::check_assembles(ptx::emit(build({512, 512, 512}, {m.name}, wide({{"share", 1}, {"cluster", 2}}))).text,
                            ir::Arch::sm_90a, std::string(kId) + " bm=256 share=a " + m.name);
    }
  }
}
