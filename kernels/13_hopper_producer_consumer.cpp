// Step 13 — Hopper: a producer warpgroup and a consumer warpgroup around a ring of stages
// (fast.cu's matmul_4).
//
// What it teaches: overlapping loads with math by warp specialisation. In step 12 the copy
// engine idles while the tensor cores work and the other way round. Here one warpgroup only
// produces (one thread issues the TMA loads) and the other only consumes (wgmma), and they
// meet at a ring of S shared-memory stages (the build parameter "stages", default 4), each
// guarded by two mbarriers:
//   full[s]  — the stage's boxes have landed. One arrival (the producer's arrive.expect_tx)
//              plus 32 KiB of transaction bytes complete a phase.
//   empty[s] — the consumers are done reading the stage. 128 arrivals (every consumer thread)
//              complete a phase.
// K-block kb uses stage s = kb mod S in pass p = kb / S over the ring. Each pass
// completes one phase of each barrier, so the parity to wait for flips when s wraps to 0:
// consumers wait full[s] for parity p&1; the producer waits empty[s] for parity (p&1)^1, which
// a fresh barrier passes at once (facts §6 [DEV]), so the first pass fills every stage freely.
// While the consumers multiply stage s, the copy engine is already filling s+1 .. s+S-1.
//
// What changed from step 12: 256 threads (warpgroup 0 produces, 1 consumes), S = 4
// stages of A and B (4 × 32 KiB = 128 KiB; fast.cu uses 5, which measured 9% slower at 8192³
// on the H100: docs/results/2026-11-24-h100-stages), the full/empty barrier pairs, and
// the stage and phase registers that both sides advance. No bar.sync in the main loop. Step 12's
// descriptors were constants of its one stage; here the consumers make stage 0's once, before
// the K loop (hopper_parts.cpp, ring_descriptors), and each K-block adds its stage's offset: a
// descriptor's address field counts 16-byte units, so a 16 KiB stage further is +1024. That
// needs no data, so it is done before the wait on full[s], and the wgmmas follow the wait at
// once (their operands ready while the warp waits).
//
// The tile's N is a build parameter, bn (`--param bn=64`; 128 above is the default): 64, 128 or
// 192, the consumer's wgmmas then m64n<bn>k16, B's box and stage bn rows of 128 bytes. Not 256:
// the one consumer keeps both slabs' accumulators, 2 · bn/2 = 256 registers a thread, more than
// the 255 it can have (step 14 gives each slab its own consumer). A stage is 16 + bn/8 KiB, so a
// narrower tile leaves room for more stages (hopper_parts.hpp, declare_tile_n, says how many).
#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "kernels/hopper_parts.hpp"
#include "kernels/registry.hpp"

namespace gs::kernels {

using builder::Builder;
using builder::Reg;
using tma_ring::kBK;
using ir::Type;
using layout::Swizzle;

namespace {

constexpr std::string_view kId = "hopper_producer_consumer";

constexpr uint32_t kBM = 128;
constexpr uint32_t kShippedBN = 128;  // the tile's N as it ships: the build parameter bn's default
constexpr uint32_t kThreads = 256;  // warpgroup 0: producer; warpgroup 1: consumer
constexpr uint32_t kABytes = kBM * kBK * 2;  // 16 KiB per stage (B: hopper::b_tile_bytes(bn), 16 KiB at 128)

ir::Kernel build_hopper_producer_consumer(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  const uint32_t stages = cfg.param("stages");
  const uint32_t bn = cfg.param("bn");  // the tile's N: 128 as it ships
  Builder b(std::string(kId), ir::Arch::sm_90a);
  b.set_launch({.grid = {hopper::ceil_div(N, bn), hopper::ceil_div(M, kBM), 1}, .block = {kThreads, 1, 1}});

  auto tmap_a = b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, K, M, kBK, kBM, Swizzle::b128));
  auto tmap_b = b.tensor_map_param("tmap_B", ir::row_major_bf16_map(ir::ParamRole::b, K, N, kBK, bn, Swizzle::b128));
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  // stages tiles of A and of B, full[s] and empty[s] (hopper_parts.hpp, Ring).
  const tma_ring::Ring ring = tma_ring::declare_ring(b, stages, kABytes, hopper::b_tile_bytes(bn));

  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg m0 = (b.special(ir::Special::ctaid_y, "cta_y") << 7).named("m0");
  // n0 = cta_x · bn: a shift for a power of two (cta_x << 7 as it ships).
  Reg cta_x = b.special(ir::Special::ctaid_x, "cta_x");
  Reg n0 = ((bn & (bn - 1)) == 0 ? cta_x << log2_exact(bn) : cta_x * bn).named("n0");
  tma_ring::init_ring(b, ring, tid, 128);  // empty[s]: every consumer thread arrives
  const uint32_t k_blocks = hopper::ceil_div(K, kBK);

  b.comment("warpgroup 0 produces: its thread 0 issues every TMA load");
  b.if_((tid == 0).named("producer"), [&] {
    b.role(ir::WarpRole::producer, [&] {
      Reg tmA = b.tensor_map_address(tmap_a, "tmA");
      Reg tmB = b.tensor_map_address(tmap_b, "tmB");
      Reg stage = b.mov(Type::u32, 0, "stage");
      Reg phase = b.mov(Type::u32, 0, "phase");
      b.k_loop("kb_load", k_blocks, [&](const Reg& kb) {
        // Mistake skip-empty-wait: refill the stage without waiting for the consumers.
        tma_ring::produce_k_block(b, ring, stage, phase, tmA, tmB, kb, m0, n0, {.wait_empty = !cfg.has("skip-empty-wait")});
      });
    });
  });

  b.comment("warpgroup 1 consumes: the stage's descriptors, wait full[s], multiply, release empty[s]");
  b.if_((tid >= 128).named("consumer"), [&] {
    b.role(ir::WarpRole::consumer, [&] {
      const std::vector<std::vector<Reg>> acc = {hopper::accumulators(b, bn, "acc0_"),
                                                 hopper::accumulators(b, bn, "acc1_")};
      const hopper::RingDescriptors descriptors = hopper::ring_descriptors(b, ring, acc.size(), std::nullopt);
      Reg stage = b.mov(Type::u32, 0, "stage");
      Reg phase = b.mov(Type::u32, 0, "phase");
      b.k_loop("kb", k_blocks, [&](const Reg& kb) {
        // Both 64-row slabs of A (the second 8 KiB on) against the stage's B tile.
        hopper::consume_k_block(b, ring, descriptors, stage, phase, bn, acc, kb);
        b.comment("this thread is done reading the stage: one of the 128 arrivals that release it");
        // Mistake wrong-empty-barrier: the stage index is forgotten and every release goes to
        // empty[0], the array's first barrier.
        if (cfg.has("wrong-empty-barrier")) b.mbarrier_arrive(ring.empty.at());
        else b.mbarrier_arrive(ring.empty_at(stage));
        // Mistake phase-not-flipped: the consumers keep waiting for parity 0 after the ring wraps.
        tma_ring::next_stage(b, stage, phase, stages, !cfg.has("phase-not-flipped"));
      });
      b.role(ir::WarpRole::epilogue, [&] {
        Reg wg_thread = (tid - 128).named("wg_thread");
        Reg C = b.global_ptr(pc, "C_ptr");
        hopper::store_tile_clipped(b, acc[0], bn, C, wg_thread, m0, n0, M, N);
        hopper::store_tile_clipped(b, acc[1], bn, C, wg_thread, (m0 + 64).named("m0_64"), n0, M, N);
      });
    });
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo hopper_producer_consumer_info() {
  KernelInfo k;
  hopper::set_hopper_info(k, kId, {kBM, kShippedBN, kBK});
  k.title = "Hopper producer/consumer warpgroups, 4-stage ring";
  k.delta = "a producer warpgroup fills a ring of 4 stages while the consumer warpgroup multiplies: full/empty "
            "mbarriers per stage, phases flip at the wrap";
  k.explanation =
      "Two warpgroups with different jobs. Thread 0 of the producer warpgroup walks K and, for each 64-wide "
      "block, waits until the stage it is about to fill is empty, tells that stage's full barrier to expect "
      "32 KiB and asks the copy engine for the boxes of A and B. The consumer warpgroup waits until the stage "
      "is full, issues the wgmmas of the 128x128 tile, waits for them and arrives on the stage's empty "
      "barrier. Its wgmma descriptors are stage 0's plus the stage's offset (+1024 per 16 KiB: the address "
      "field counts 16-byte units), made before the wait, since an address needs no data. With four stages "
      "the copy engine runs up to three K-blocks ahead of the tensor cores, so loads and math overlap. Stage s "
      "is reused on every fourth K-block; each reuse is one more phase of its barriers, so the parity both "
      "sides wait for flips whenever the stage index wraps to 0. Why four (H200, 8192^3): three leave some loads "
      "late, about 5% slower; five or six hide even HBM's latency, so the SMs' small lasting pace differences blur "
      "the waves and B's panels come from HBM twice (4.4 -> 7.3 GB; the model does not see it yet). "
      "The tile's N is a build parameter, bn (64, 128 or "
      "192): a narrower tile means smaller stages (16 + bn/8 KiB) and room for more of them; 256 would leave the "
      "one consumer 256 accumulator registers a thread, more than it can have.";
  k.example_shape = {256, 256, 640};  // 10 K-blocks: the 4-stage ring wraps twice
  hopper::declare_tile_n(k,
                         {.bn_default = kShippedBN,
                          .stages_default = 4,
                          .a_bytes = kABytes,
                          .tile_ns = {64, 128, 192},
                          .bn_note = "; not 256: the one consumer warpgroup keeps both slabs' accumulators, "
                                     "2 · 256/2 = 256 registers a thread, more than the 255 it can have"},
                         {});
  k.mistakes = {
      {"phase-not-flipped", "the consumers keep waiting for parity 0 after the ring wraps",
       "on the second pass the consumers either find full[s]'s old phase complete and read the stage before the "
       "new boxes land (a tma-race, wrong C: what the model shows with 2 stages) or, if the boxes already landed, "
       "wait for a phase that never comes (a deadlock: what the H100 did, and the model with 4 stages)"},
      {"skip-empty-wait", "the producer refills a stage without waiting on its empty barrier",
       "the copy engine refills stages whose earlier load has not even landed, let alone been read: the model "
       "names the race (tma-race: two loads in flight into the same bytes; mbarrier-over-arrival on full[s])"},
      {"wrong-empty-barrier", "the consumers always arrive on empty[0] (the stage index is forgotten)",
       "empty[0] completes a phase every K-block while the other stages are never released: on its second pass the "
       "producer waits on empty[1] forever (a deadlock; the GPU hangs)"},
  };
  k.cta_tile = [](const GemmShape& s, const GemmShape& tile, const std::array<uint32_t, 3>& cta) {
    return tile_of_block(s, tile, cta[1], cta[0]);
  };
  // Where this step's lesson shows: the producer/consumer ring and its phases.
  k.focus_views = {"tma", "timeline", "warps"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::first_tma_load}, {StopKind::first_mbarrier_wait}, {StopKind::ring_wraps},
              {StopKind::pipeline_drains}};
  k.pictures = {"tma", "timeline"};
  k.build = build_hopper_producer_consumer;
  return k;
}

}  // namespace gs::kernels
