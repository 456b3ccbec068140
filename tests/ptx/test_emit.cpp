// The PTX printer: module layout, version choice, names, the line <-> instruction map, and
// an all-families kernel that ptxas must accept (the spellings of the later ladder steps).
#include <sstream>

#include <catch2/catch.hpp>

#include "engine/builder/builder.hpp"
#include "engine/ir/verify.hpp"
#include "engine/ptx/emit.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;
using namespace gs::builder;
using ir::Type;

namespace {
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) out.push_back(l);
  return out;
}
}  // namespace

TEST_CASE("emit: .version follows the target and the ops used", "[ptx]") {
  Builder b("k", ir::Arch::sm_80);
  b.set_launch({.block = {32, 1, 1}});
  b.mov(Type::u32, 1, "x");
  b.ret();
  const ir::Kernel k80 = b.finish();
  CHECK(ptx::required_ptx_version(k80) == 70);
  CHECK_THAT(ptx::emit(k80).text, Catch::Contains(".version 7.0\n.target sm_80\n.address_size 64"));

  Builder h("k", ir::Arch::sm_90);
  h.set_launch({.block = {32, 1, 1}});
  Reg x = h.mov(Type::u32, 1, "x");
  h.mapa(x, 0, "r");  // PTX 7.8
  h.fence_proxy_async();  // PTX 8.0
  h.ret();
  CHECK(ptx::required_ptx_version(h.kernel()) == 80);
  CHECK(ptx::ptx_version_string(86) == "8.6");
}

TEST_CASE("emit: unique register names kept clear of special registers", "[ptx]") {
  Builder b("k", ir::Arch::sm_90a);
  b.set_launch({.block = {32, 1, 1}});
  b.mov(Type::u32, 1, "x");
  b.mov(Type::u32, 2, "x");
  b.mov(Type::u32, 3, "tid");
  b.mov(Type::u32, 4, "9lives");
  b.mov(Type::u32, 5, "a-b");
  b.ret();
  const ptx::PtxModule m = ptx::emit(b.finish());
  CHECK(m.reg_names == std::vector<std::string>{"x", "x_1", "tid_", "v9lives", "a_b"});
}

TEST_CASE("emit: the line map links every instruction to its PTX line", "[ptx]") {
  Builder b("k", ir::Arch::sm_90a);
  b.set_launch({.block = {128, 1, 1}});
  Reg x = b.mov(Type::u32, 1, "x");
  b.loop("i", 4, [&](const Reg& i) { x += i; });
  b.ret();
  const ir::Kernel k = b.finish();
  const ptx::PtxModule m = ptx::emit(k);
  const std::vector<std::string> lines = lines_of(m.text);
  REQUIRE(lines.size() == m.line_to_inst.size());
  REQUIRE(m.inst_to_line.size() == k.insts.size());
  for (uint32_t i = 0; i < k.insts.size(); ++i) {
    const uint32_t line = m.inst_to_line[i];
    CHECK(m.line_to_inst.at(line - 1) == int32_t(i));
    CHECK_THAT(lines.at(line - 1), Catch::Contains(ptx::format_instruction(k, m.reg_names, k.insts[i])));
  }
  int mapped = 0;
  for (int32_t v : m.line_to_inst) mapped += v >= 0;
  CHECK(mapped == int(k.insts.size()));
}

TEST_CASE("emit: dynamic shared memory, clusters and launch directives", "[ptx]") {
  Builder b("k", ir::Arch::sm_90a);
  b.set_launch({.grid = {4, 1, 1}, .block = {384, 1, 1}, .cluster = {2, 1, 1}});
  b.set_min_ctas_per_sm(1);
  b.use_dynamic_smem();
  b.shared("ring", 96 * 1024, 1024, ir::SmemUse::tile, layout::Swizzle::b128);
  b.ret();
  const std::string t = ptx::emit(b.finish()).text;
  CHECK_THAT(t, Catch::Contains(".extern .shared .align 1024 .b8 gs_smem[];"));
  CHECK_THAT(t, Catch::Contains(".maxntid 384, 1, 1\n.minnctapersm 1\n.explicitcluster\n.reqnctapercluster 2, 1, 1\n{"));
}

TEST_CASE("emit: a kernel using every builder family assembles for sm_90a", "[ptx][ptxas]") {
  Builder b("all_families", ir::Arch::sm_90a);
  b.set_launch({.grid = {2, 1, 1}, .block = {128, 1, 1}, .cluster = {2, 1, 1}});
  b.set_min_ctas_per_sm(1);
  ir::TensorMapDesc d;
  d.source = ir::ParamRole::a;
  d.global_dim = {64, 64, 1, 1, 1};
  d.global_strides_bytes = {128, 0, 0, 0};
  d.box_dim = {64, 64, 1, 1, 1};
  d.swizzle = layout::Swizzle::b128;
  auto tm = b.tensor_map_param("tmap", d);
  auto pg = b.param("G", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto tile = b.shared("tile", 8192, 1024, ir::SmemUse::tile, layout::Swizzle::b128);
  auto bar = b.shared("bar", 8, 8, ir::SmemUse::mbarrier);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg g = b.global_ptr(pg, "g");
  Reg map = b.tensor_map_address(tm, "map");
  Reg addr = b.smem_address(tile, 0, "tile_addr");
  b.prefetch_tensormap(map);
  b.mbarrier_init(bar.at(), 1);
  b.fence_mbarrier_init();
  b.fence_proxy_async();
  b.barrier_cluster_arrive();
  b.barrier_cluster_wait();
  b.mbarrier_expect_tx(bar.at(), 0);
  b.mbarrier_arrive_expect_tx(bar.at(), 8192);
  b.cp_async_bulk_tensor_load(tile.at(), map, {0, 0}, bar.at());
  b.mbarrier_wait(bar.at(), 0);
  (void)b.mbarrier_test_wait_parity(bar.at(), 1);
  b.cp_async_bulk_tensor_store(map, {0, 0}, tile.at());
  b.cp_async_bulk_commit_group();
  b.cp_async_bulk_wait_group_read(0);
  Reg remote = b.mapa(addr, 1, "remote");
  (void)remote;
  Reg elected = b.elect_sync("elected");
  (void)elected;
  // Ampere families on plain registers.
  std::vector<Reg> frag = b.ldmatrix(4, false, Addr::at(addr), "fa");
  std::vector<Reg> fb = b.ldmatrix(2, true, Addr::at(addr), "fb");
  std::vector<Reg> acc;
  for (int i = 0; i < 4; ++i) acc.push_back(b.mov(Type::f32, 0.0, "c" + std::to_string(i)));
  b.mma_sync(acc, frag, fb, acc);
  b.stmatrix(4, false, Addr::at(addr), frag);
  b.cp_async_cg(Addr::at(addr), Addr::at(g));
  b.cp_async_commit_group();
  b.cp_async_wait_group(0);
  b.bar_sync(1, 128);
  // wgmma with a descriptor.
  Reg desc = b.wgmma_descriptor(addr, layout::kmajor_tile_descriptor(0, layout::Swizzle::b128), "desc");
  std::vector<Reg> wacc;
  for (int i = 0; i < 8; ++i) wacc.push_back(b.reg(Type::f32, "w" + std::to_string(i)));
  b.wgmma_fence();
  b.wgmma_mma_async(16, wacc, desc, desc, 0);
  b.wgmma_commit_group();
  b.wgmma_wait_group(0);
  b.st(ir::Op::st_global, Type::f32, Addr::at(g), {wacc[0], acc[0]});
  b.cvt(Type::bf16, wacc[1], ir::Rounding::rn, "h");
  b.if_(tid == 0, [&] { b.setmaxnreg(false, 24); });
  b.ret();
  const ir::Kernel k = b.finish();
  INFO(ir::verify_problems(k).size() << " problems");
  REQUIRE_NOTHROW(ir::verify(k));
  test::check_assembles(ptx::emit(k).text, ir::Arch::sm_90a, "all_families");
}
