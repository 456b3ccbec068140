// What the timing probes' builders share (timing_probes.cpp, timing_probes_l1.cpp,
// timing_probes_sm.cpp, timing_probes_ring.cpp, timing_probes_clock.cpp): the record
// each thread leaves in C (kTimingOutBytes: its timed cycles, its start, a value that keeps its
// work).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/builder/builder.hpp"

namespace gs::kernels::probe_parts {

// Thread `gid`'s 32 bytes of C: the cycles of its timed region, its start, the value that keeps its work.
void store_result(builder::Builder& b, const builder::Param& pc, const builder::Reg& gid, const builder::Reg& t0,
                  const builder::Reg& t1, const builder::Reg& value);
// A float's bits in thread `gid`'s record's spare word (offset 24): the work that made it stays live.
void store_spare(builder::Builder& b, const builder::Param& pc, const builder::Reg& gid, const builder::Reg& value);
// What the probes of a CTA copying A through shared memory set up (the copy, arrival and
// co-resident probes): `ctas` CTAs of `threads` threads asking for `smem_bytes` of dynamic shared
// memory, A and C, and each thread's 16-byte slot at 16 tid in the shared tile.
struct CopyCta {
  builder::Param pc;
  builder::Reg tid, cta, gid, A, slot;
};
CopyCta copy_cta(builder::Builder& b, uint32_t ctas, uint32_t threads, uint32_t smem_bytes);
// The end of a probe that kept four XOR sums of what it read: the clock, the record with the
// sums folded into its value, and the return.
void end_with_sums(builder::Builder& b, const builder::Param& pc, const builder::Reg& id, const builder::Reg& t0,
                   const std::vector<builder::Reg>& sum);

// The end of a probe whose work is f32 accumulators: the clock, the record with their sum's bits
// as its value, and the return.
void end_with_float_sum(builder::Builder& b, const builder::Param& pc, const builder::Reg& id,
                        const builder::Reg& t0, const std::vector<builder::Reg>& acc);

// The A (64 x 64 bf16) and B (n x 64) tiles of a wgmma probe: one 128B-swizzled shared stage each
// (B rounded up to 1 KiB), filled by the CTA's `threads` threads (zeros, or random bf16), fenced for
// the async proxy, the threads met at bar.sync. Declared after the kernel's parameters.
struct WgmmaTiles {
  builder::Smem sA, sB;
  builder::Reg tid, a_addr, b_addr;
};
WgmmaTiles wgmma_probe_tiles(builder::Builder& b, uint32_t threads, uint32_t n, bool random);

// Fills `words` 16-byte chunks of shared memory from `base`, `threads` threads a round: zeros, or
// (random) bf16 pairs of random sign and mantissa in [0.5, 1), so the tensor cores multiply data
// whose bits toggle as a GEMM's do.
void fill_tiles(builder::Builder& b, const builder::Reg& base, const builder::Reg& tid, uint32_t words,
                uint32_t threads, bool random);

// A warp's cp.async of 512 bytes, 16 a lane, from rows of `row_bytes` (0: contiguous; 32 or 64:
// lane l reads 16 bytes of row l / (row_bytes / 16), each row at the start of a 128-byte line of
// its own, as steps 09 and 10 copy their tiles): lane_offset is the lane's byte offset from the
// copy's start, source_span the bytes of source a copy spans (512, or 512 / row_bytes lines).
builder::Reg copy_lane_offset(builder::Builder& b, const builder::Reg& lane, uint32_t row_bytes);
constexpr uint32_t copy_source_span(uint32_t row_bytes) { return row_bytes ? 512 / row_bytes * 128 : 512; }

// One 64-wide K block, four wgmma m64nNk16 along K, into acc, committed and waited for (a round of
// the wgmma probes).
void wgmma_k_block(builder::Builder& b, uint32_t n, const builder::Reg& a_desc, const builder::Reg& b_desc,
                   std::vector<builder::Reg>& acc);

// `reps` rounds (a loop named `loop`) of one 64-wide K block, four wgmma m64nNk16 along K, into
// acc, each round committed and waited for (the wgmma probe's timed loop, the heated ring's heaters).
void wgmma_rounds(builder::Builder& b, const std::string& loop, uint32_t reps, uint32_t n, const builder::Reg& a_desc,
                  const builder::Reg& b_desc, std::vector<builder::Reg>& acc);

// Lane `streamer` keeps `stages` TMA boxes in flight for `rounds` rounds, each stage on its own
// full barrier: stage s of round i loads box ((i·stages + s)·groups + group) mod boxes, i.e.
// rows box·box_rows.. of the tensor map, into buf's stage s; it waits for the stage's previous
// box before it asks for the next, and for the last round's boxes at the end. stamps: where
// clock64 goes, 8 bytes a slot (slot 0 before the first copies, slot i + 1 once round i's boxes
// have landed); coords: the caller's (column, row) of stage s's box in a round; after_round: what
// the streaming lane does after each round's copies are asked for (a pause); empty: each stage's
// empty barrier, on which the lane waits (round i's parity) before refilling the stage for round
// i + 1, instead of on the stage's full one (a producer's wait on its consumers' release).
// half: the lane loads only its CTA's half of each box (rows rank·box_rows/2.., through a tensor
// map of half boxes) into the same offset of both CTAs of its cluster pair (cta_mask 0b11); each
// stage's full barrier still expects the whole box, the peer sending the other half.
struct MulticastHalf {
  builder::Reg tm_half, rank;
};
void stream_boxes(builder::Builder& b, const builder::Reg& streamer, const builder::Reg& tm, const builder::Smem& buf,
                  const builder::Smem& full, uint32_t stages, uint32_t rounds, uint32_t boxes, uint32_t box_rows,
                  uint32_t box_bytes, uint32_t groups, const builder::Reg& group, const builder::Reg* stamps = nullptr,
                  const std::function<std::pair<builder::Reg, builder::Reg>(const builder::Reg& round, uint32_t s)>*
                      coords = nullptr,
                  const std::function<void()>* after_round = nullptr, const builder::Smem* empty = nullptr,
                  const MulticastHalf* half = nullptr);

}  // namespace gs::kernels::probe_parts
