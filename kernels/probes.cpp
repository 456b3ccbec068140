#include "kernels/probes.hpp"

#include <cctype>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "engine/layout/wgmma_descriptor.hpp"

namespace gs::kernels {

using builder::Addr;
using builder::Builder;
using builder::Reg;
using ir::Type;
using layout::Swizzle;

namespace {

// A whole rows × cols table in one box.
ir::TensorMapDesc table_map(ir::ParamRole source, uint32_t cols, uint32_t rows, Swizzle sw) {
  return ir::row_major_bf16_map(source, cols, rows, cols, rows, sw);
}

// Thread 0: init the barrier (count 1), fence, expect `bytes`, issue loads; everyone waits.
void load_and_wait(Builder& b, const Reg& leader, const builder::Smem& bar,
                   const std::vector<std::pair<builder::Smem, Reg>>& loads, uint32_t bytes) {
  b.if_(leader, [&] {
    b.mbarrier_init(bar.at(), 1);
    b.fence_mbarrier_init();
  });
  b.bar_sync(0);
  b.if_(leader, [&] {
    b.mbarrier_arrive_expect_tx(bar.at(), bytes);
    for (const auto& [tile, map] : loads) b.cp_async_bulk_tensor_load(tile.at(), map, {0, 0}, bar.at());
  });
  b.mbarrier_wait(bar.at(), 0);
}

}  // namespace

ir::Kernel build_tma_placement_probe(uint32_t box_cols, Swizzle swizzle) {
  constexpr uint32_t kRows = 64, kThreads = 128;
  Builder b(fmt::format("probe_tma_{}x{}_{}", box_cols, kRows, layout::swizzle_name(swizzle)), ir::Arch::sm_90);
  b.set_launch({.grid = {1, 1, 1}, .block = {kThreads, 1, 1}});
  auto map = b.tensor_map_param("tmap_A", table_map(ir::ParamRole::a, box_cols, kRows, swizzle));
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  const uint32_t bytes = box_cols * kRows * 2;
  auto tile = b.shared("tile", bytes, 1024, ir::SmemUse::tile, swizzle);
  auto bar = b.shared("bar", 8, 8, ir::SmemUse::mbarrier);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg leader = (tid == 0).named("leader");
  Reg tm = b.tensor_map_address(map, "tm");
  load_and_wait(b, leader, bar, {{tile, tm}}, bytes);
  // Copy the raw tile: thread t moves words t, t + 128, ...
  Reg base = b.smem_address(tile, 0, "tile_addr");
  Reg src = (base + (tid << 2)).named("src");
  Reg C = b.global_ptr(pc, "C_ptr");
  Reg dst = (C + b.mul_wide(tid, 4u, "dst_off")).named("dst");
  for (uint32_t i = 0; i < bytes / 4 / kThreads; ++i) {
    Reg v = b.ld_shared(Type::b32, Addr::at(src, int64_t(i) * kThreads * 4), fmt::format("w{}", i));
    b.st_global(Type::b32, Addr::at(dst, int64_t(i) * kThreads * 4), {v});
  }
  b.ret();
  return b.finish();
}

ir::Kernel build_mbarrier_parity_probe() {
  Builder b("probe_mbarrier_parity", ir::Arch::sm_90);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto bar = b.shared("bar", 8, 8, ir::SmemUse::mbarrier);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg leader = (tid == 0).named("leader");
  Reg C = b.global_ptr(pc, "C_ptr");
  b.if_(leader, [&] {
    b.mbarrier_init(bar.at(), 1);
    for (int round = 0; round < 2; ++round) {
      for (uint32_t parity = 0; parity < 2; ++parity) {
        Reg p = b.mbarrier_test_wait_parity(bar.at(), parity, fmt::format("done_r{}_p{}", round, parity));
        Reg v = b.selp(1u, 0u, p, fmt::format("v_r{}_p{}", round, parity));
        b.st_global(Type::u32, Addr::at(C, (round * 2 + parity) * 4), {v});
      }
      if (round == 0) b.mbarrier_arrive(bar.at());
    }
  });
  b.ret();
  return b.finish();
}

ir::Kernel build_warpgroup_probe() {
  Builder b("probe_warpgroup", ir::Arch::sm_90a);
  b.set_launch({.grid = {1, 1, 1}, .block = {kWarpgroupProbeThreads, 1, 1}});
  b.set_min_ctas_per_sm(1);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg wg = (tid >> 7).named("wg");
  b.if_((wg == 0).named("producer_wg"), [&] { b.setmaxnreg(false, 24); });
  b.if_((wg != 0).named("consumer_wg"), [&] {
    b.setmaxnreg(true, 240);
    b.bar_sync(1, 256);
  });
  Reg elected = b.elect_sync("elected");
  Reg v = b.selp(1u, 2u, elected, "v");
  Reg C = b.global_ptr(pc, "C_ptr");
  b.st_global(Type::u32, Addr::at((C + b.mul_wide(tid, 4u, "off")).named("c_ptr")), {v});
  b.ret();
  return b.finish();
}

ir::Kernel build_cluster_probe() {
  constexpr uint32_t kThreads = 64;
  Builder b("probe_cluster", ir::Arch::sm_90);
  b.set_launch({.grid = {4, 1, 1}, .block = {kThreads, 1, 1}, .cluster = {2, 1, 1}});
  // A: 4 rows of 64 bf16 (128 bytes); CTA c multicasts row c, one box, to both CTAs of its pair.
  auto map = b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, 64, 4, 64, 1, Swizzle::none));
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto tile = b.shared("tile", 2 * 128, 128, ir::SmemUse::tile);
  auto own = b.shared("own", kThreads * 4, 16, ir::SmemUse::other);
  auto inbox = b.shared("inbox", kThreads * 4, 16, ir::SmemUse::other);
  auto bar = b.shared("bar", 8, 8, ir::SmemUse::mbarrier);
  auto tile_bar = b.shared("tile_bar", 8, 8, ir::SmemUse::mbarrier);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg cta = b.special(ir::Special::ctaid_x, "cta");
  Reg rank = b.special(ir::Special::cluster_ctarank, "rank");
  Reg peer = (rank ^ 1u).named("peer");
  Reg C = b.global_ptr(pc, "C_ptr");
  b.if_((tid == 0).named("leader"), [&] {
    b.mbarrier_init(bar.at(), kThreads);  // one remote arrival per thread of the peer
    b.mbarrier_init(tile_bar.at(), 1);
    b.fence_mbarrier_init();
  });
  Reg word = (tid << 2).named("word");
  b.st_shared(Type::u32, Addr::at(b.smem_address(own, 0, "own_addr") + word), {(cta * 1000u + tid).named("mine")});
  // Every CTA's barrier and words exist before any peer touches them.
  b.barrier_cluster_arrive();
  b.barrier_cluster_wait();
  Reg tm = b.tensor_map_address(map, "tm");
  b.if_((tid == 0).named("issuer"), [&] {
    b.mbarrier_arrive_expect_tx(tile_bar.at(), 2 * 128u);  // both halves land here
    Reg both = b.mov(Type::b16, 3u, "both_ctas");
    Reg half = b.mapa((b.smem_address(tile, 0, "tile_addr") + rank * 128u).named("half_local"), rank, "half");
    b.cp_async_bulk_tensor_load_multicast(Addr::at(half), tm, {0u, cta}, tile_bar.at(), both);
  });
  Reg peer_own = b.mapa((b.smem_address(own, 0, "own_base") + word).named("own_word"), peer, "peer_own");
  Reg seen = b.ld_shared_cluster(Type::u32, Addr::at(peer_own), "seen");
  Reg peer_inbox = b.mapa((b.smem_address(inbox, 0, "inbox_base") + word).named("inbox_word"), peer, "peer_inbox");
  b.st_shared_cluster(Type::u32, Addr::at(peer_inbox), {(cta * 1000u + tid + 500000u).named("gift")});
  b.mbarrier_arrive_remote(Addr::at(b.mapa(b.smem_address(bar, 0, "bar_addr"), peer, "peer_bar")));
  b.mbarrier_wait(bar.at(), 0u);
  b.mbarrier_wait(tile_bar.at(), 0u);
  Reg tiled = b.ld_shared(Type::u32, Addr::at(b.smem_address(tile, 0, "tile_base") + word), "tiled");
  Reg received = b.ld_shared(Type::u32, Addr::at(b.smem_address(inbox, 0, "inbox_own") + word), "received");
  Reg out = (C + b.mul_wide((cta * 192u + tid).named("out_index"), 4u, "out_off")).named("out");
  b.st_global(Type::u32, Addr::at(out), {seen});
  b.st_global(Type::u32, Addr::at(out, 256), {received});
  b.st_global(Type::u32, Addr::at(out, 512), {tiled});
  // No CTA exits while its peer may still read or write its shared memory.
  b.barrier_cluster_arrive();
  b.barrier_cluster_wait();
  b.ret();
  return b.finish();
}

ir::Kernel build_wgmma_layout_probe(uint32_t n) {
  constexpr uint32_t kThreads = 128;
  Builder b(fmt::format("probe_wgmma_m64n{}k16", n), ir::Arch::sm_90a);
  b.set_launch({.grid = {1, 1, 1}, .block = {kThreads, 1, 1}});
  auto map_a = b.tensor_map_param("tmap_A", table_map(ir::ParamRole::a, 16, 64, Swizzle::b32));
  auto map_b = b.tensor_map_param("tmap_B", table_map(ir::ParamRole::b, 16, n, Swizzle::b32));
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto sA = b.shared("sA", 64 * 32, 256, ir::SmemUse::tile, Swizzle::b32);
  auto sB = b.shared("sB", n * 32, 256, ir::SmemUse::tile, Swizzle::b32);
  auto bar = b.shared("bar", 8, 8, ir::SmemUse::mbarrier);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg leader = (tid == 0).named("leader");
  Reg ta = b.tensor_map_address(map_a, "tmA");
  Reg tb = b.tensor_map_address(map_b, "tmB");
  load_and_wait(b, leader, bar, {{sA, ta}, {sB, tb}}, (64 + n) * 32);
  Reg da = b.wgmma_descriptor(b.smem_address(sA, 0, "sA_addr"), layout::kmajor_tile_descriptor(0, Swizzle::b32), "a_desc");
  Reg db = b.wgmma_descriptor(b.smem_address(sB, 0, "sB_addr"), layout::kmajor_tile_descriptor(0, Swizzle::b32), "b_desc");
  std::vector<Reg> acc;
  for (uint32_t v = 0; v < n / 2; ++v) acc.push_back(b.reg(Type::f32, fmt::format("d{}", v)));
  b.wgmma_fence();
  b.wgmma_mma_async(n, acc, da, db, 0);
  b.wgmma_commit_group();
  b.wgmma_wait_group(0);
  Reg C = b.global_ptr(pc, "C_ptr");
  Reg dst = (C + b.mul_wide(tid, n * 2, "dst_off")).named("dst");
  for (uint32_t v = 0; v < n / 2; ++v) b.st_global(Type::f32, Addr::at(dst, int64_t(v) * 4), {acc[v]});
  b.ret();
  return b.finish();
}

uint32_t wgmma_desc_identity_bytes(const WgmmaDescProbe& probe) { return (probe.operand == 'A' ? 16 : 64) * 128; }

ir::Kernel build_wgmma_descriptor_probe(const WgmmaDescProbe& p) {
  constexpr uint32_t kThreads = 128, kRegion = kWgmmaDescRegionBytes;
  const bool on_a = p.operand == 'A';
  if (!on_a && p.operand != 'B')
    throw std::invalid_argument(fmt::format("wgmma descriptor probe '{}': operand '{}' is not A or B", p.name, p.operand));
  if (on_a ? p.n != 16 : (p.n < 16 || p.n > 256 || p.n % 8 != 0))
    throw std::invalid_argument(fmt::format("wgmma descriptor probe '{}': N={} is not {}", p.name, p.n,
                                            on_a ? "16 (the identity B of an A probe)" : "a multiple of 8 in 16..256"));
  if (p.start_offset % 16 != 0 || p.start_offset >= kRegion)
    throw std::invalid_argument(fmt::format("wgmma descriptor probe '{}': start offset {} is not a multiple of 16 in "
                                            "0..{}",
                                            p.name, p.start_offset, kRegion - 16));
  const uint32_t ident_bytes = wgmma_desc_identity_bytes(p);
  std::string id = "probe_wgmma_desc_" + p.name;  // a PTX identifier: letters, digits, '_'
  for (char& ch : id)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  Builder b(id, ir::Arch::sm_90a);
  b.set_launch({.grid = {1, 1, 1}, .block = {kThreads, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pb = b.param("B", ir::ParamKind::global_ptr, ir::ParamRole::b);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto region = b.shared("region", kRegion, 1024, ir::SmemUse::tile, p.fields.swizzle);
  auto ident = b.shared("identity", ident_bytes, 1024, ir::SmemUse::tile, Swizzle::b128);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  // Copy both operands in: thread t moves 16-byte vectors t, t + 128, ... (ordinary stores, so
  // the fence below makes them visible to the tensor core's async proxy).
  const std::pair<builder::Param, builder::Smem> copies[2] = {{pa, region}, {pb, ident}};
  for (const auto& [param, tile] : copies) {
    Reg src = (b.global_ptr(param, "src_ptr") + b.mul_wide(tid, 16u, "src_off")).named("src");
    Reg dst = (b.smem_address(tile, 0, "dst_base") + (tid << 4)).named("dst");
    for (uint32_t i = 0; i < tile.bytes / 16 / kThreads; ++i) {
      const int64_t at = int64_t(i) * kThreads * 16;
      std::vector<Reg> v = b.ld_vec(ir::Op::ld_global, Type::b32, 4, Addr::at(src, at), fmt::format("v{}", i));
      b.st(ir::Op::st_shared, Type::b32, Addr::at(dst, at), v);
    }
  }
  b.fence_proxy_async();
  b.bar_sync(0);
  Reg d_test = b.wgmma_descriptor(b.smem_address(region, p.start_offset, "test_addr"), p.fields, "test_desc");
  if (p.reserved_bits != 0)
    d_test = b.alu(ir::Op::or_, Type::b64, {d_test, static_cast<unsigned long long>(p.reserved_bits)}, "test_desc_rsv");
  Reg d_ident = b.wgmma_descriptor(b.smem_address(ident, 0, "ident_addr"), layout::kmajor_tile_descriptor(0, Swizzle::b128),
                                   "ident_desc");
  std::vector<Reg> acc;
  for (uint32_t v = 0; v < p.n / 2; ++v) acc.push_back(b.reg(Type::f32, fmt::format("d{}", v)));
  const int trans = p.k_major ? 0 : 1;
  b.wgmma_fence();
  if (on_a) b.wgmma_mma_async(p.n, acc, d_test, d_ident, 0, 1, 1, trans, 0);
  else b.wgmma_mma_async(p.n, acc, d_ident, d_test, 0, 1, 1, 0, trans);
  b.wgmma_commit_group();
  b.wgmma_wait_group(0);
  Reg C = b.global_ptr(pc, "C_ptr");
  Reg out = (C + b.mul_wide(tid, p.n * 2, "out_off")).named("out");
  for (uint32_t v = 0; v < p.n / 2; ++v) b.st_global(Type::f32, Addr::at(out, int64_t(v) * 4), {acc[v]});
  b.ret();
  return b.finish();
}

ir::Kernel build_mma_sync_probe() {
  Builder b("probe_mma_sync_m16n8k16", ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pb = b.param("B", ir::ParamKind::global_ptr, ir::ParamRole::b);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  Reg lane = b.special(ir::Special::laneid, "lane");
  Reg A = b.global_ptr(pa, "A_ptr");
  Reg B = b.global_ptr(pb, "B_ptr");
  Reg C = b.global_ptr(pc, "C_ptr");
  Reg a_at = (A + b.mul_wide(lane, 16u, "a_off")).named("a_at");
  Reg b_at = (B + b.mul_wide(lane, 8u, "b_off")).named("b_at");
  Reg c_at = (C + b.mul_wide(lane, 16u, "c_off")).named("c_at");
  std::vector<Reg> fa = b.ld_vec(ir::Op::ld_global, Type::b32, 4, Addr::at(a_at), "a");
  std::vector<Reg> fb = b.ld_vec(ir::Op::ld_global, Type::b32, 2, Addr::at(b_at), "b");
  std::vector<Reg> fc = b.ld_vec(ir::Op::ld_global, Type::f32, 4, Addr::at(c_at), "c");
  std::vector<Reg> fd;
  for (int v = 0; v < 4; ++v) fd.push_back(b.reg(Type::f32, fmt::format("d{}", v)));
  b.mma_sync(fd, fa, fb, fc);
  b.st(ir::Op::st_global, Type::f32, Addr::at(c_at, 32 * 16), fd);
  b.ret();
  return b.finish();
}

uint32_t matrix_probe_slot(uint32_t row) { return (5 * row + 3) % 32; }

ir::Kernel build_matrix_probe(uint32_t num, bool trans, bool store) {
  if (num != 1 && num != 2 && num != 4)
    throw std::invalid_argument(fmt::format("a matrix probe moves 1, 2 or 4 matrices, not {}", num));
  // stmatrix is sm_90+ (PTX ISA); ldmatrix runs from sm_75 on.
  Builder b(fmt::format("probe_{}_x{}{}", store ? "stmatrix" : "ldmatrix", num, trans ? "_trans" : ""),
            store ? ir::Arch::sm_90 : ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto tile = b.shared("tile", kMatrixProbeBytes, 128, ir::SmemUse::tile);
  Reg lane = b.special(ir::Special::laneid, "lane");
  Reg A = b.global_ptr(pa, "A_ptr");
  Reg C = b.global_ptr(pc, "C_ptr");
  Reg my_row = (b.smem_address(tile, 0, "tile_addr") + (lane << 4)).named("my_row");  // lane l: tile row l
  Reg g_off = b.mul_wide(lane, 16u, "row_off");
  b.comment(store ? "zero the tile (rows no matrix covers stay 0)" : "tile row l = row l of A");
  Reg zero = b.mov(Type::b32, 0, "zero");  // a register: the model's st takes register values only
  for (int64_t w = 0; w < 4; ++w) {
    if (store) b.st_shared(Type::b32, Addr::at(my_row, 4 * w), {zero});
    else b.st_shared(Type::b32, Addr::at(my_row, 4 * w), {b.ld_global(Type::b32, Addr::at(A + g_off, 4 * w), "a")});
  }
  b.bar_sync(0);
  b.comment("lane l names tile row (5l + 3) % 32 as row l%8 of matrix l/8");
  Reg slot = (((lane * 5u) + 3u) & 31u).named("slot");
  Reg addr = (b.smem_address(tile, 0, "tile_base") + (slot << 4)).named("row_addr");
  if (!store) {
    std::vector<Reg> r = b.ldmatrix(num, trans, Addr::at(addr), "m");
    Reg out = (C + b.mul_wide(lane, num * 4, "out_off")).named("out");
    for (uint32_t j = 0; j < num; ++j) b.st_global(Type::b32, Addr::at(out, 4 * int64_t(j)), {r[j]});
  } else {
    // Register j of lane l holds the b16 values 2v (low) and 2v + 1 (high), v = l·num + j.
    std::vector<Reg> values;
    for (uint32_t j = 0; j < num; ++j) {
      Reg v2 = (((lane * num) + j) << 1).named("v2");
      values.push_back(b.alu(ir::Op::or_, Type::b32, {v2, (v2 + 1u) << 16}, "s"));
    }
    b.stmatrix(num, trans, Addr::at(addr), values);
    b.bar_sync(0);
    Reg out = (C + g_off).named("out");
    for (int64_t w = 0; w < 4; ++w)
      b.st_global(Type::b32, Addr::at(out, 4 * w), {b.ld_shared(Type::b32, Addr::at(my_row, 4 * w), "t")});
  }
  b.ret();
  return b.finish();
}

ir::Kernel build_mma_peak_kernel(uint32_t ctas, uint32_t iters) {
  Builder b("mma_sync_peak", ir::Arch::sm_80);
  b.set_launch({.grid = {ctas, 1, 1}, .block = {kMmaPeakThreads, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg gid = (b.special(ir::Special::ctaid_x, "cta") * kMmaPeakThreads + tid).named("gid");
  // Fragments from the thread id (nothing the compiler can fold): bf16 values of 0..1.
  std::vector<Reg> fa, fb;
  for (uint32_t i = 0; i < 4; ++i) fa.push_back(b.alu(ir::Op::and_, Type::b32, {tid, 0x3F003F00u + i}, "a"));
  for (uint32_t i = 0; i < 2; ++i) fb.push_back(b.alu(ir::Op::and_, Type::b32, {tid, 0x3E003E00u + i}, "b"));
  std::vector<std::vector<Reg>> acc(kMmaPeakChains);
  for (auto& chain : acc)
    for (uint32_t v = 0; v < 4; ++v) chain.push_back(b.mov(Type::f32, 0.0, "acc"));
  b.loop("i", iters, [&](const Reg&) {
    for (auto& chain : acc) b.mma_sync(chain, fa, fb, chain);  // independent chains: throughput, not latency
  });
  Reg sum = b.mov(Type::f32, 0.0, "sum");
  for (const auto& chain : acc)
    for (const Reg& v : chain) b.alu_into(ir::Op::add, sum, {sum, v});
  Reg C = b.global_ptr(pc, "C_ptr");
  b.st_global(Type::f32, Addr::at(C + b.mul_wide(gid, 4u, "c_off")), {sum});
  b.ret();
  return b.finish();
}

}  // namespace gs::kernels
