// Timing probes: microbenchmark kernels, written with the builder like every kernel, that
// measure the numbers of the machine description (engine/model/machines.def): instruction
// latencies and issue rates, shared-memory and global load latency, L2 and HBM bandwidth, the
// mma.sync latency and the clock an SM holds under tensor-core load. `gemmscope_timing_probes`
// (bench/timing_probes.cpp) runs them on GPU 0 and on the model and prints both.
//
// Every probe writes, per thread, 32 bytes to C: the clock64 cycles its timed region took, the
// clock64 at its start, and a value computed from its work (so the compiler keeps the work),
// each a u64, and 8 bytes of padding.
#pragma once

#include <cstdint>

#include "engine/ir/kernel.hpp"

namespace gs::kernels {

inline constexpr uint32_t kTimingOutBytes = 32;  // per thread: cycles, start, value (u64 each), padding

// The instruction a chain probe repeats: fma.rn.f32 (FFMA), mad.lo.u32 (IMAD), add.u32 (IADD3),
// or mma.sync.m16n8k16 bf16 -> f32 (HMMA).
enum class ChainOp : uint8_t { ffma, imad, iadd, mma_sync };
const char* chain_op_name(ChainOp op);

// What an Ampere main loop's parts draw (timing_probes_power.cpp): every warp of `ctas` CTAs of
// `warps` warps runs `reps` rounds of step 10's k16 step without its ring: 8 ldmatrix.x4 of
// conflict-free rows of a 32-KiB tile of random bf16 (`ldmatrix`), then 32 mma.sync m16n8k16 on
// them into a 64 x 64 warp tile (`mma`; without it, the fragments XORed into four sums), and/or
// 4 cp.async.cg of 16 bytes a lane from an L2 footprint of `copy_footprint` bytes (a power of two;
// 0: no copies) into a ring of its own, waiting for the round before. Thread records as
// store_result: the timed cycles (a warp's cycles a round) and each CTA's span (its SM's clock over
// the launch's time).
struct FragmentLoad {
  bool ldmatrix = true;
  bool mma = true;
  uint32_t copy_footprint = 0;
  bool sync = false;  // a bar.sync of the CTA at the end of each round, as step 10's K step has
  // The copies' source rows: 0, 512 contiguous bytes a copy (4 whole lines); 32 or 64, lane l reads
  // 16 bytes of row l / (rows / 16), each row the start of a 128-byte line of its own, as steps 09
  // and 10 copy their tiles (16 or 8 lines a copy, the same bytes).
  uint32_t copy_row_bytes = 0;
};
ir::Kernel build_fragment_power_probe(uint32_t ctas, uint32_t warps, uint32_t reps, const FragmentLoad& load);

// `ctas` CTAs of `warps` warps; each warp runs `chains` independent chains of `length`
// instructions (unrolled), `reps` times around a loop, between two clock64 reads. One chain:
// the latency per instruction; several chains and warps: the issue rate; mma.sync on every SM
// for long: the clock an SM holds under tensor-core load (cycles over the launch's time).
// `random_operands` (mma.sync): A and B hashed from the thread index, every sign and mantissa bit
// in play (|x| < 1), instead of the index's low bits (near zero).
ir::Kernel build_chain_probe(ChainOp op, uint32_t ctas, uint32_t warps, uint32_t chains, uint32_t length,
                             uint32_t reps, bool random_operands = false);

// The shared-memory pipe's throughput: one CTA of `warps` warps; each warp runs `chains`
// independent pointer chases through shared memory (ld.shared of `vec` u32 words a lane: 1, 2 or
// 4, lanes `vec`·4 bytes apart, so a warp-load takes `vec` conflict-free wavefronts), `length`
// loads a chain unrolled, `reps` times around a loop. Each lane's slot holds its own address, so
// every load depends on the one before in its chain and nothing is known at compile time; each
// chain has its own slots (ptxas cannot merge two chains). Many warps and chains: the warp-loads
// the SM issues per cycle (rate over the CTA's span).
// `ways` > 1 (vec 1 only): lane l's slot is `ways` words after lane l - 1's, so that `ways` lanes of
// each load share a bank: a ways-way conflict, ways wavefronts a load.
ir::Kernel build_shared_rate_probe(uint32_t warps, uint32_t vec, uint32_t chains, uint32_t length, uint32_t reps,
                                   uint32_t ways = 1);
// A pointer chase by thread 0 (one warp): `hops` dependent loads, 8 unrolled per loop round.
//  * shared: over `words` 32-bit words of shared memory, word i holding the address of word
//    (i + 33) % words (written by the warp before the timed region);
//  * global: over A, read as u64 byte offsets: off = A[off]; the host fills A with the chain
//    (run/timing_probes: a random cycle over lines of a footprint).
ir::Kernel build_shared_chase_probe(uint32_t words, uint32_t hops);
// The global chase first runs `warm_hops` untimed (to bring the chain into L1 or L2), then
// `hops` timed.
ir::Kernel build_global_chase_probe(uint32_t warm_hops, uint32_t hops);

// Streaming reads: `ctas` CTAs of 256 threads; in round i, CTA c reads the 4096-byte blocks
// ((4i + u)·ctas + c) mod `blocks` (u = 0..3) of A, one 16-byte load per thread from each (four
// loads in flight; blocks a power of two), `rounds` rounds; each thread XORs what it read and
// stores it. Bytes read = ctas·rounds·4·4096;
// a footprint of blocks·4096 bytes above the L2 measures HBM, a small one the L2.
ir::Kernel build_stream_probe(uint32_t ctas, uint32_t rounds, uint32_t blocks);

// Streaming stores: as build_stream_probe, but each thread stores 16 bytes into each block of A
// (four stores a round, no loads). Bytes written = ctas·rounds·4·4096; a footprint above the L2
// measures the write path to HBM, a small one the L2's. `scattered`: each warp-store writes 8
// bytes a lane into 8 lines (one 32-byte sector in each), as a wgmma or mma.sync epilogue
// stores C; the same bytes in all.
ir::Kernel build_store_stream_probe(uint32_t ctas, uint32_t rounds, uint32_t blocks, bool scattered);

// L1 throughput by the lines a warp-load touches: one CTA of `warps` warps; lane l loads the
// u32 at A + l·stride + 4u (u = 0..7: eight independent loads a round) for `reps` rounds, out
// of a footprint of at most 32·stride + 32 bytes (warm in L1 after the first round). stride 4:
// one line a load; 32: 8 lines; 128: 32 lines. Figure: warp-loads per cycle of the SM.
// With `shared_loads` > 0 each round also issues that many conflict-free ld.shared.u32 (one
// wavefront each, lane l at word l of its own 128 bytes), between the global loads: whether the
// L1's global loads and shared memory's wavefronts share one data path (their rates add up to
// about one load a cycle) or not (each keeps its own rate).
ir::Kernel build_l1_stride_probe(uint32_t warps, uint32_t stride, uint32_t reps, uint32_t shared_loads = 0);
// One CTA of `warps` warps, each reading lines no load has read before (loads of `vec` 1 or 4
// words a lane: 1 or 4 lines of 128 bytes, all from L2), 8 a round, optionally with as many
// conflict-free ld.shared.u32 between them: what the L1 pays to take lines in from L2 (the fills
// write its data banks, which its one data path also reads). C as the stride probe's.
// With same_lines, every warp reads the same new lines each round (lines on their way from L2).
ir::Kernel build_l1_fill_probe(uint32_t warps, uint32_t vec, uint32_t reps, uint32_t shared_loads = 0,
                               bool same_lines = false);
// One CTA of `warps` warps, each copying lines no copy has read before from L2 into shared memory
// with cp.async.cg (4 copies of 16 bytes a lane a round, a group a round, waiting for the one
// before), optionally with up to 80 conflict-free ld.shared.u32 a round beside them: what the copies' writes into
// shared memory cost the L1's data path. C as the stride probe's. With `row_bytes` (32 or 64),
// lanes take 16 bytes of a row in turn and each row is a 128-byte line of its own, as steps 09
// (32 bytes a row) and 10 (64) copy: a copy reads 16 or 8 lines where the plain probe's 512
// contiguous bytes are 4 whole lines: what a copy's lines cost beside its bytes. With
// `conflict_ways` 2 or 4 each ld.shared hits every bank it uses that many times (2: step 09's
// fragment reads): whether the conflicted loads and the copies wait for each other in order.
// `sync`: a bar.sync of the CTA after each round's wait, as step 09's K step has: all the warps'
// copies of a round are asked for together, then their loads (in the MIO queue in that order).
// `sync_groups` > 1: the warps meet in that many groups instead, each at a named barrier of its
// own (warps / sync_groups warps each), as that many co-resident CTAs of step 09 do on one SM: the
// groups drift apart, one's loads beside another's copies.
ir::Kernel build_cp_async_fill_probe(uint32_t warps, uint32_t reps, uint32_t shared_loads = 0, uint32_t row_bytes = 0,
                                     uint32_t conflict_ways = 1, bool sync = false, uint32_t sync_groups = 1);

// Co-resident CTAs (how much the CTAs an SM holds at once hide each other's stalls, where they
// share its schedulers and the L1's data path): `ctas` CTAs of `warps` warps, each asking for
// `smem_bytes` of shared memory so that an SM holds only so many at once; each runs `rounds`
// rounds of a SIMT GEMM's K loop: a 16-byte ld.global a thread (from a 64-KiB A, L2 and L1
// hits), its st.shared, bar.sync, then `lds` conflict-free ld.shared.v4 a thread, each feeding
// `ffma_per_lds` FFMAs into 8 accumulators, and bar.sync. C as the chain probe's, per thread of
// the grid: each CTA's span is the time its SM took for the CTAs it held with it.
ir::Kernel build_coresident_probe(uint32_t ctas, uint32_t warps, uint32_t smem_bytes, uint32_t lds,
                                  uint32_t ffma_per_lds, uint32_t rounds);

// A SIMT K loop's copy as a burst (timing_probes_sm.cpp): `ctas` CTAs of `warps` warps (each asking
// for `smem_bytes` of shared memory, so that an SM holds as many as that allows), each running
// `rounds` rounds of `loads` 16-byte ld.global a thread (independent, coalesced: a chunk of
// threads x loads x 16 bytes, every CTA's rounds their own chunks, cycling through a footprint of
// `footprint_bytes`), their st.shared.v4, bar.sync, one ld.shared and bar.sync. C as the chain
// probe's, per thread of the grid: a CTA's span over rounds is a copy's time while every SM copies.
// `one_trip`: a bar.sync between the loads and the stores, so that ptxas cannot sink a load below a
// store that waits for an earlier one's data (it does without: the plain probe's SASS has the round's
// loads in four orders, three of them two trips to L2, docs/results/2026-12-07-one-run), and the
// round is one trip whose length is the rate the SM is filled from L2.
ir::Kernel build_copy_burst_probe(uint32_t ctas, uint32_t warps, uint32_t smem_bytes, uint32_t loads, uint32_t rounds,
                                  uint64_t footprint_bytes, bool one_trip = false);
// When a round's loads come back (timing_probes_sm.cpp): `ctas` CTAs (one an SM) of `warps` warps,
// `rounds` rounds of `loads` 16-byte ld.global a thread from an 8-MiB footprint in L2, as
// build_copy_burst_probe's one-trip rounds, but after the loads each thread uses their data in
// issue order and reads clock64 after each use: stamp u is when the warp had loads 0..u in. Lane
// 0 of each warp stores its last round's stamps, less the clock before its first load (u64, after
// the threads' records: from byte ctas·32·warps·kTimingOutBytes, warp w of CTA c at
// (c·warps + w)·loads·8). What tells a return queue a warp has from one an SM has.
ir::Kernel build_copy_arrival_probe(uint32_t ctas, uint32_t warps, uint32_t loads, uint32_t rounds);
// An outer product's FFMAs from registers: one CTA of `warps` warps, each running `reps` passes of
// tm x tn fma.rn.f32 acc[i][j] = a[i] * b[j] + acc[i][j] (rows in turn, as step 05's loop), a[0]
// and b[0] renewed from the accumulators each pass. C as the chain probe's: FFMA per cycle of the SM
// over the CTA's span, the issue rate of register operands in the SIMT steps' pattern. `unroll`
// copies of that step a pass of the loop (a body of about 16 x unroll x (tm x tn + 2) bytes of
// SASS): what a loop longer than the instruction cache a warp scheduler keeps costs its issue.
ir::Kernel build_outer_product_probe(uint32_t warps, uint32_t tm, uint32_t tn, uint32_t reps, uint32_t unroll = 1);

// wgmma throughput (sm_90a): one CTA of `warpgroups` warpgroups; each runs `reps` rounds of 4
// wgmma.mma_async m64nNk16 (bf16 -> f32, A and B from a zeroed 128B-swizzled tile in shared
// memory), one commit group a round, waiting for it (wait_group 0) before the next round.
// FLOP = warpgroups·reps·4·2·64·N·16; per cycle of the CTA's span: the tensor cores' rate.
// `ctas` CTAs (one per SM for the clock an SM holds under wgmma load).
// `random`: the tiles hold random bf16 (signs and mantissas) instead of zeros, as a GEMM's do: the
// tensor cores' power, and so the SM's clock under load, depends on the bits they multiply.
ir::Kernel build_wgmma_probe(uint32_t warpgroups, uint32_t n, uint32_t reps, uint32_t ctas = 1, bool random = false);
// Two warpgroups, one CTA, as a GEMM's consumers read a ring: round r reads stage r % `stages` of
// A (128 rows, warpgroup w its rows 64w..64w+63) and B (256 rows), four wgmma m64n256k16 along a
// 64-wide K block each, committed and waited for; the descriptors are made each round from the
// stage's addresses, as the steps make theirs. Thread 0's cycles, in C.
ir::Kernel build_wgmma_stages_probe(uint32_t stages, uint32_t reps, bool random);

// How far a warp's wgmma issue runs ahead of the tensor cores (sm_90a): one CTA of `warpgroups`
// warpgroups, each running `rounds` rounds of `burst` wgmma.mma_async m64nNk16 back to back (A and
// B from zeroed 128B-swizzled tiles, the k16 steps of one 64-wide K block in turn), one commit group
// a round, then wait_group `keep` (0: the round waits for itself; 1: for the round before, as a
// main loop that keeps a K block in flight). A first round warms up untimed. Each thread's record:
// the cycles between the clock64 before a round's first wgmma and after its last, summed over the
// rounds (cycles / rounds: what issuing a burst costs the warp); its value, an accumulator's bits.
ir::Kernel build_wgmma_issue_probe(uint32_t warpgroups, uint32_t n, uint32_t burst, uint32_t rounds, uint32_t keep);

// In what order the tensor cores take two warpgroups' wgmmas (sm_90a): one CTA of two warpgroups
// that start together; warpgroup 0 issues `burst` wgmma m64n256k16 (one group) and waits for them;
// warpgroup 1 runs a dependent chain of `spin` fma.rn.f32 and add.f32 first (so that its wgmma
// comes while the burst waits for the tensor cores), then issues one and waits. Each thread's record: the cycles
// from its warpgroup's first wgmma issue to its wait's end, its start (clock64). Taken in the
// order of issue, warpgroup 1's wgmma waits for the whole burst; taken in turn, for one of it.
ir::Kernel build_wgmma_order_probe(uint32_t burst, uint32_t spin);

// The SM clock under a GEMM-like load (sm_90a): `ctas` CTAs, each with two warpgroups running
// wgmma m64n256k16 as build_wgmma_probe(2, 256, reps) does, and a third warpgroup whose first
// warp's lane 0
// streams TMA boxes of 256 rows x 64 bf16 (32 KiB) from A (a tensor of `boxes` boxes), `stages`
// in flight, for `rounds` rounds (each CTA its own boxes, in turn). The tensor cores and the
// memory system draw power together, as in a GEMM's main loop. Each wgmma thread's record holds
// its clock64 span and, as its value, the %globaltimer nanoseconds of the same span: cycles
// over nanoseconds is the clock the SM held while both ran (size `rounds` to outlast the wgmma).
// `streamed`: the wgmmas read their operands from the ring the TMA fills (repetition r the stage
// r mod `stages`, a power of two) instead of two tiles filled once, so the tensor cores multiply
// new bits as a GEMM's do (on a random A; the values race the copies, which a clock probe does
// not mind: nothing reads its products). The streaming warp's record (thread 256 of each CTA) holds
// its own clock64 span and ns. `mma` false: the wgmma warps do nothing, the TMA streams alone.
// `idle`: each wgmma thread pauses for `idle` dependent fmas after each repetition, and the streaming
// lane for as many in all (idle·reps/rounds after each round): the tensor cores busy a share of the
// time (the wgmma threads' cycles a repetition against those with no pause say which), the
// streaming slowed alike, so the two still end together.
// `mma_groups` (1 or 2) wgmma warpgroups of m64nNk16 (`n`): fewer, narrower ones let several CTAs
// share an SM (the streaming warpgroup is always the last: its first thread, the streamer, is
// clock_under_load_streamer(mma_groups), and a CTA has clock_under_load_threads(mma_groups)).
constexpr uint32_t clock_under_load_streamer(uint32_t mma_groups) { return 128 * mma_groups; }
constexpr uint32_t clock_under_load_threads(uint32_t mma_groups) { return clock_under_load_streamer(mma_groups) + 128; }
// What a GEMM does that the plain rows leave out, one thing at a time (rows of 2026-12-06):
struct ClockLoadOptions {
  // 0 or a power of two: after every store_every-th repetition each wgmma thread stores its n/2
  // accumulators (f32) with st.global.v4, as a GEMM's epilogue writes its tile of C after its K
  // loop (64 repetitions are a 128x256 tile's K of 4096); a warp's store instruction covers 512
  // contiguous bytes, and each such tile of the CTA goes to its own place in a region after the
  // records, `store_slots` (a power of two) tiles a CTA deep (16: 264 MiB for 132 CTAs at N = 256,
  // so C leaves L2 for HBM as a GEMM's does).
  uint32_t store_every = 0, store_slots = 16;
  // CTAs c with the same c / share stream the same boxes in the same rounds, as the CTAs of a
  // GEMM's wave that share a row or column of tiles read its panels (1: each CTA its own).
  uint32_t share = 1;
  // Each wgmma warpgroup multiplies its own 64 rows of A (rows 64w.. of the box, or its own fixed
  // tile), as a GEMM's consumers do; otherwise both read the same A (the rows before 2026-12-06),
  // which feeds the tensor cores the same bits from both warpgroups.
  bool distinct_a = false;
  // The producer/consumer hand-off of a GEMM's ring (streamed probes, reps = rounds · stages, no
  // pause): the wgmma threads wait on the stage's full barrier before its repetition's wgmmas and
  // each arrives on its empty barrier after them; the streaming lane waits on the empty barrier
  // before refilling a stage. Otherwise the ring runs free (the rows before 2026-12-06): the lane
  // refills a stage once its box has landed and the wgmmas read whatever stage the repetition names.
  bool handoff = false;
  // The pause (build_clock_under_load_probe's `idle`) is the wgmma threads' alone: the streaming
  // lane streams at its own rate, so the tensor cores are busy a share of the time while L2 streams
  // as fast as without the pause (the rows before 2026-12-06 paused the streamer alike, scaling both
  // loads together).
  bool streamer_unpaused = false;
  // The hand-off in CTA pairs (2026-12-07), the launch in clusters of two (ctas even), both CTAs of
  // a pair streaming the same boxes, each wgmma warp's lanes 0 and 1 releasing a stage in CTA 0 and
  // CTA 1 of the pair (mapa + remote arrive, 16 arrivals a phase), as steps 17-19 release theirs:
  //  * coupled: each CTA loads the whole box itself (L2 sends each box twice a pair);
  //  * multicast: each CTA loads one half (128 rows) into both (cta_mask 0b11), each full barrier
  //    expecting the whole box, as step 17 loads B: L2 sends each box once a pair, every SM still
  //    receives all of it. The two differ only in the bytes L2 reads.
  enum class Pair : uint8_t { none, coupled, multicast };
  Pair pair = Pair::none;
};
// The bytes of C the stores take after the records (ClockLoadOptions::store_every).
constexpr uint64_t clock_under_load_store_bytes(uint32_t ctas, uint32_t mma_groups, uint32_t n, uint32_t store_slots) {
  return uint64_t(store_slots) * ctas * clock_under_load_streamer(mma_groups) * (n / 2) * 4;
}
ir::Kernel build_clock_under_load_probe(uint32_t ctas, uint32_t reps, uint32_t stages, uint32_t rounds, uint32_t boxes,
                                        bool random = true, bool streamed = false, bool mma = true, uint32_t idle = 0,
                                        uint32_t mma_groups = 2, uint32_t n = 256, const ClockLoadOptions& o = {});

// TMA loads (sm_90a): `ctas` CTAs of one warp; its lane 0 keeps `stages` boxes of 64 bf16 ×
// `box_rows` rows (box_rows·128 bytes) in flight, each on its own mbarrier, for `rounds`
// rounds: in round i, stage s loads box ((i·stages + s)·ctas + cta) mod `boxes` of A (a tensor
// of 64 × boxes·box_rows bf16, row-major, no swizzle), and waits for the stage's previous box
// before it asks for the next. Bytes = ctas·rounds·stages·box_rows·128. One CTA, one stage:
// the issue-to-land time per box (cycles / rounds); many: the copy bandwidth. `share` CTAs at a
// time (CTAs c with the same c / share) load the same box at about the same time, as the CTAs
// of a GEMM's wave that share a row or column of tiles read the same A or B panel: 1, every CTA
// its own boxes; ctas, all the same box. Any box count: a footprint that is not a power of two
// wraps with rem.u32 (one more instruction a box; the CTA's one thread only issues the copies).
// stamp_rounds: thread 0 of each CTA also stores clock64 (u64) before its first copies and once
// each round's boxes have landed, rounds + 1 stamps a CTA after the threads' records (from byte
// ctas·32·kTimingOutBytes, CTA c's from c·(rounds + 1)·8 on): round i's time is stamp i + 1 less
// stamp i, a box's issue to land with one stage (the copy is issued right after the stamp).
ir::Kernel build_tma_probe(uint32_t ctas, uint32_t stages, uint32_t rounds, uint32_t box_rows, uint32_t boxes,
                           uint32_t share = 1, bool stamp_rounds = false);

// A GEMM wave's boxes as step 13 reads them (sm_90a): CTA c of `ctas` (the first wave) takes tile
// (c / tiles_n, c % tiles_n) of a tiles_m x tiles_n grid of 128 x 128 tiles and, K block after K
// block (k_blocks of 64), loads its A box and its B box (each 128 rows of 128 B, a K row apart,
// 128-byte swizzle) from one tensor map of A's rows then B's, waits for both and loads the next;
// its thread 0 stamps each round as build_tma_probe's stamp_rounds does (k_blocks + 1 stamps a CTA
// after the threads' records). A round's time is a K block's two boxes' issue to land with no
// math between: the latency a ring of stages must cover.
ir::Kernel build_tma_gemm_wave_probe(uint32_t tiles_m, uint32_t tiles_n, uint32_t k_blocks, uint32_t ctas);

// A GEMM's ring of stages without its math (sm_90a): CTA c of `ctas` takes tile (c / tiles_n,
// c % tiles_n) of 128 x 128 tiles as build_tma_gemm_wave_probe's do (ctas = tiles_m·tiles_n: the
// whole grid), and its thread 0 keeps a ring of `ring` stages (2..6) of a K block's A and B box
// (32 KiB, one mbarrier) in flight: it waits for block k, runs pace_reps x 8 dependent FMAs in
// place of the tensor cores' work, then refills the stage with block k + ring. Every CTA holds
// at least 120 KiB of shared memory (one an SM, as step 13). Stamps (u64, after the threads'
// records, from byte ctas·32·kTimingOutBytes, CTA c's from c·(2·k_blocks + 1)·8 on): 2k once
// block k's wait returned, 2k + 1 once its FMAs are done, 2·k_blocks at the end. Stamp 2k less
// stamp 2k - 1 is what block k kept the "math" waiting (k_blocks a multiple of ring, at least two
// rings). Each thread's record also holds, at byte 24, the %globaltimer nanoseconds of its
// timed span (cycles over nanoseconds: the SM's clock).
// form.heat_reps > 0: the same ring beside two warpgroups that run heat_reps rounds of four wgmma
// m64n256k16 on random bf16 tiles each (384 threads; the ring is the third warpgroup's first
// warp, rings of 2..5): the SMs draw a GEMM's power, so the ring runs at the clock a GEMM holds.
// The heaters' accumulator bits follow the stamps, a u32 a thread (CTA c's 256 from c·256·4).
// form.split: step 13's roles instead of one thread (256 threads): the first warpgroup's thread 0
// refills a stage once its `empty` mbarrier says the 128 threads of the second warpgroup, which
// each run the FMAs, arrived on it; the second warpgroup's first warp stamps and leaves the
// records. What a refill then waits for includes the consumers' arrivals reaching the producer.
// form.c_tile: the one-thread ring, then the CTA's 128 x 128 f32 tile of C stored (16 bytes a lane,
// a row a warp-store) as step 13's epilogue stores 64 KiB a tile: a (tiles_m·128) x (tiles_n·128)
// f32 matrix after the stamps, each element the FMAs' bits. At most one of the three forms.
struct RingProbeForm {
  uint32_t heat_reps = 0;
  bool split = false;
  bool c_tile = false;
  // The one-thread ring (plain or with its C tile) at a pace that differs by CTA, 80-120% of
  // pace_reps (c·37 mod 5 steps of a tenth), so CTAs that share a panel drift apart in K.
  bool uneven = false;
  // The same ring at a pace that jitters by K block, 80-120% of pace_reps from a hash of the CTA
  // and the block: every CTA's mean the same, their drift a random walk (one of uneven, jitter).
  bool jitter = false;
  // The same ring with a lasting difference of a few per cent between CTAs: CTA c runs
  // (c·37 mod 5)·drift_fmas + 1 dependent FMAs more a block (one of uneven, jitter, drift).
  uint32_t drift_fmas = 0;
  // Split only: the consumers' math is step 13's, not FMAs: pace_reps times eight wgmma
  // m64n128k16 on the landed stage (both 64-row slabs of A's box against B's, K = 64), committed
  // and waited for, before the stage is released: the tensor cores as the pace.
  bool wgmma_pace = false;
  // The columns of a CTA's tile: 128 (step 13's 128 x 128) or 256 (steps 14-16's 128 x 256: B's
  // box of 256 rows as two boxes of 128, 48 KiB a stage, rings of 2..4), the plain ring only.
  uint32_t tile_n = 128;
  // Paced by wgmma only: the CTAs in clusters of two, a pair's tiles one above the other in one
  // tile column (cluster p, rank r: tile row 2(p / tiles_n) + r, column p % tiles_n; tiles_m even),
  // and a consumer warp's lane 0 releasing each stage instead of its 128 threads:
  //  * alone: each CTA's consumers release its own stage only (the pair launched together, nothing
  //    more);
  //  * coupled: each consumer warp releases the stage in both CTAs (lane q on CTA q's `empty`,
  //    mapa + remote arrive), as steps 17-19 do, so a stage is refilled once both CTAs are done
  //    with it: the pair goes at its slower CTA's pace;
  //  * multicast: coupled, and B's box (the operand the pair shares) comes in two 64-row halves,
  //    each CTA loading one into both CTAs (cta_mask 0b11), as step 17 does: L2 sends B once a pair.
  // none: no cluster (the split form's own release, every consumer thread arriving).
  enum class Pair : uint8_t { none, alone, coupled, multicast };
  Pair pair = Pair::none;
};
// What a pair form adds to a ring probe's kernel and row names: "_pair_alone", "_pair_coupled",
// "_pair_multicast", or "" for none.
constexpr const char* ring_pair_suffix(RingProbeForm::Pair p) {
  using Pair = RingProbeForm::Pair;
  return p == Pair::alone ? "_pair_alone" : p == Pair::coupled ? "_pair_coupled" : p == Pair::multicast ? "_pair_multicast" : "";
}
ir::Kernel build_tma_gemm_ring_probe(uint32_t tiles_m, uint32_t tiles_n, uint32_t k_blocks, uint32_t ctas,
                                     uint32_t ring, uint32_t pace_reps, const RingProbeForm& form = {});

// A GEMM wave's copies (sm_90a): a grid of tiles_n x tiles_m CTAs of one warpgroup; in each of
// `ksteps` steps lane 0 of CTA (x, y) asks the copy engine for a 64x64 bf16 box of A (row panel
// y, K box k) and one of B (row panel x), both on one mbarrier, as a GEMM of 64x64 tiles reads
// them (step 11); the warpgroup waits, runs `mma_reps` rounds of four wgmma m64n64k16 on the
// boxes (0: none, the copies alone; 1: step 11's tensor work a step), and meets at bar.sync
// before the next copy. `own`: every CTA reads boxes of its own instead (no two CTAs of a step
// share one: 4 MiB rings). `cta_smem_bytes`: the shared memory a CTA holds (the boxes and a
// reserve), so that as many CTAs share an SM as the GEMM's do. Bytes = tiles·ksteps·16 KiB.
ir::Kernel build_tma_gemm_probe(uint32_t tiles_m, uint32_t tiles_n, uint32_t ksteps, uint32_t mma_reps, bool own,
                                uint32_t cta_smem_bytes);
// The same wave's copies by cp.async (sm_80), in step 09's geometry: a grid of tiles_n x tiles_m
// CTAs of 4 warps; each K step thread t copies 16 bytes of A's row panel (row t/2 of the CTA's 64)
// and of B's (K columns (t%2)*8 of the step's 16) into a two-stage ring, commits, waits for the
// step before (wait_group 1), meets at bar.sync, runs `lds` conflict-free ld.shared.b32 over the
// landed stage (0: the copies alone; 20: step 09's fragment loads a thread and step) and meets
// again. `cta_smem_bytes`: the shared memory a CTA holds, so that as many CTAs share an SM as a
// GEMM's do (24 KiB: nine, as step 09's registers allow). A is M x K, B is N x K (K contiguous);
// bytes = tiles·ksteps·4 KiB. What it is for: how far a wave's CTAs drift apart over many waves
// when the SM's own units bind them, read in Nsight Compute's DRAM bytes against the one read of
// each panel a wave that predict_gemm counts (docs/results/2026-12-06-hbm, section 2).
ir::Kernel build_cp_gemm_probe(uint32_t tiles_m, uint32_t tiles_n, uint32_t ksteps, uint32_t lds,
                               uint32_t cta_smem_bytes);

// The SM clock right after another kernel, counted where that kernel cannot be instrumented
// (cuBLAS): `ctas` CTAs of one warp (one an SM on a 132-SM card), each running a dependent
// fma.rn.f32 chain of 8·`reps` instructions (about 4 cycles each: a fixed number of cycles
// whatever the clock) between two reads of %clock64 and of %globaltimer. Each thread's record:
// the cycles and, as its value, the nanoseconds of the same span; cycles over nanoseconds is the
// clock its SM ran at. Launched at once after the other kernel's launches on the same stream,
// it reads the clock that kernel's load left (run/gpu_bench.cpp says how that was checked).
ir::Kernel build_clock_spin_probe(uint32_t ctas, uint32_t reps);

// What a launch costs (the time between the events around it that is not the kernel's work):
// `ctas` CTAs of `threads` threads (and `smem_bytes` of dynamic shared memory, 0 for none) in
// which thread 0 of each CTA stores its record (start and end the same clock64; the CTA's index
// as the value) and every other thread returns at once. Timed back to back between events as
// `gemmscope bench` times a GEMM, the launch of an empty grid: the fixed cost every launch adds;
// with more CTAs than fit at once, also the rate at which the GPU starts CTAs.
ir::Kernel build_launch_probe(uint32_t ctas, uint32_t threads, uint32_t smem_bytes);
// A remote mbarrier arrive's round trip (sm_90a): one cluster of two CTAs of one warp. Lane 0
// of rank 0 arrives on rank 1's barrier (mapa + mbarrier.arrive.shared::cluster, or with
// cluster_scope .release.cluster) and waits on its own; rank 1 waits on its own and arrives on
// rank 0's: `rounds` times. Rank 0's record: the cycles of all rounds (cycles / rounds: one
// round trip, two remote arrives and two waits that wake on them). `suspend_hint_ns`: the
// waits' try_wait hint (0: none), as the cluster steps use it.
ir::Kernel build_remote_arrive_probe(uint32_t rounds, uint32_t suspend_hint_ns = 0, bool cluster_scope = false);

// What a remote arrive costs the warp that issues it: lane 0 of rank 0 makes `arrives` remote
// arrives on rank 1's barrier back to back (rank 1 waits until all have landed). Rank 0's
// record: the cycles of the loop (cycles / arrives: the issuing warp's time per arrive).
ir::Kernel build_remote_arrive_issue_probe(uint32_t arrives, bool cluster_scope);

// A local mbarrier hand-off (sm_90a), as step 13's consumers give a stage back to its producer:
// one CTA of two warpgroups. Each round, `arrivals` threads of the second warpgroup (1, or all
// 128) arrive on `ping`; thread 0 waits on `ping` and arrives on `pong`; the whole second
// warpgroup waits on `pong`: `rounds` times. Thread 0's record: the cycles of all rounds
// (cycles / rounds: two hand-offs, an arrive reaching a waiting warp each).
ir::Kernel build_mbarrier_handoff_probe(uint32_t rounds, uint32_t arrivals);
// One warpgroup waits `rounds` times on an mbarrier whose phase completed before (one arrive of
// one): what a consumer's full-barrier wait costs when its stage has long landed, with the
// steps' suspend-time hint (nanoseconds, 0: none). Thread 0's cycles, in C as the chain probes'.
ir::Kernel build_mbarrier_wait_done_probe(uint32_t rounds, uint32_t suspend_hint_ns);

}  // namespace gs::kernels
