// The tensor core's shared-memory reads through its descriptors: which bytes it reads for each
// core matrix (8 rows x 16 B), and what the bank model makes of them.
//
// A descriptor op's traits (engine/layout/op_traits.def, CoreMatrixRead) give the pattern:
// the reads go in batches of 32 sixteen-byte core-matrix rows, in ldmatrix .x4 lane order
// (lane 8g + r: core matrix g, row r; g = 0/1 rows 0-7/8-15 of K chunk 0, g = 2/3 the same rows
// of chunk 1), and say which rows the issuing warp reads: a wgmma's warp its quarter of the
// warpgroup's m64nNk16 (A rows 16q.., B rows qN/4.., q = warp % 4), a tcgen05.mma's one thread
// the whole tile. For wgmma every batch is counted into SimStats (tensor_smem_*); the traced
// CTA records the first batch of A and of B (Trace::tensor_reads, with each lane's row and
// chunk), for wgmma and tcgen05.mma alike, which the shared-memory view shows. Whether the real
// tensor core groups its reads this way is not known from public material: the batches are a
// reading of the descriptor's core-matrix layout (facts §1.4), and ncu's counters for wgmma
// kernels report 0 shared-memory bank conflicts for the ladder's swizzled tiles, as this model
// does.
#include "engine/layout/banks.hpp"
#include "engine/layout/op_traits.hpp"
#include "engine/layout/wgmma_descriptor.hpp"
#include "engine/model/exec_context.hpp"

namespace gs::model {

namespace {

using layout::CoreMatrixRead;

// One batch: rows [row0, row0 + rows) (rows <= 16), both K chunks; nullopt when the
// descriptor cannot be followed.
std::optional<SmemAccess> read_batch(const layout::WgmmaDescriptor& d, bool k_major, uint32_t row0, uint32_t rows) {
  std::array<uint32_t, 32> addr{};
  uint32_t mask = 0;
  try {
    for (uint32_t lane = 0; lane < CoreMatrixRead::kLanes; ++lane) {
      const uint32_t row = CoreMatrixRead::row_of_lane(lane), chunk = CoreMatrixRead::chunk_of_lane(lane);
      if (row >= rows) continue;
      addr[lane] = layout::wgmma_descriptor_smem_address(d, row0 + row, CoreMatrixRead::kChunkBytes * chunk, k_major);
      mask |= 1u << lane;
    }
    const layout::BankReport r = layout::analyze_shared_access(addr, mask, 16);
    return smem_access_record(addr, mask, 16, false, r);
  } catch (const std::exception&) {  // an unplaceable descriptor: the exec function reports it
    return std::nullopt;
  }
}

// The trace's record of one batch.
uint32_t record_batch(Cta& c, const TensorOperandRead& o, const SmemAccess& a) {
  TensorRead r;
  r.smem = append(c.trace->smem, a);
  r.op = o.op;
  r.operand = o.operand;
  r.desc = o.bits;
  r.swizzle = uint8_t(o.placed.swizzle);
  r.k_major = o.k_major;
  for (uint32_t lane = 0; lane < CoreMatrixRead::kLanes; ++lane) {
    r.row[lane] = uint16_t(o.first_row + CoreMatrixRead::row_of_lane(lane));
    r.chunk[lane] = uint8_t(CoreMatrixRead::chunk_of_lane(lane));
  }
  return append(c.trace->tensor_reads, r);
}

}  // namespace

namespace {

// What counting an untraced operand's batches adds to SimStats: a pure function of the
// descriptor's placement, major-ness and rows, so it is worked out once per key and kept, per
// thread (a ring's few stages give a kernel a few keys per operand).
struct BatchCounts {
  uint64_t reads = 0, wavefronts = 0, conflicts = 0;
};

BatchCounts count_batches(const TensorOperandRead& o) {
  BatchCounts n;
  for (uint32_t done = 0; done < o.rows; done += CoreMatrixRead::kRowsPerBatch) {
    const std::optional<SmemAccess> a =
        read_batch(o.placed, o.k_major, o.first_row + done, std::min<uint32_t>(CoreMatrixRead::kRowsPerBatch, o.rows - done));
    if (!a) break;
    n.reads++;
    n.wavefronts += a->wavefronts;
    n.conflicts += a->wavefronts - a->ideal_wavefronts;
  }
  return n;
}

const BatchCounts& cached_batch_counts(const TensorOperandRead& o) {
  struct Entry {
    bool used = false;
    layout::WgmmaDescriptor placed;
    bool k_major = false;
    uint32_t first_row = 0, rows = 0;
    BatchCounts counts;
  };
  // 256 sets of 4 ways (a ring of S stages gives a two-warpgroup kernel about 48 S keys, A's per
  // warp and stage and k step, B's per warp quarter: with one slot a key, keys sharing a slot
  // recounted each other, and the recounts' analyze_shared_access was 2.2% of
  // hopper_fewer_arrivals' large run; with four ways it is out of the profile).
  constexpr size_t kWays = 4, kSets = 256;
  thread_local std::vector<Entry> cache(kSets * kWays);
  thread_local std::vector<uint8_t> next_way(kSets, 0);  // the way a miss in the set replaces
  const layout::WgmmaDescriptor& p = o.placed;
  // A multiplicative hash of the key's fields, one after another (start addresses step by 16
  // or 32 bytes: the high bits of the products spread them over the sets).
  uint64_t h = 0;
  for (const uint64_t field :
       {uint64_t(p.start_address), uint64_t(p.leading_byte_offset), uint64_t(p.stride_byte_offset),
        uint64_t(p.base_offset), uint64_t(p.swizzle), uint64_t(o.k_major), uint64_t(o.first_row), uint64_t(o.rows)})
    h = (h ^ field) * 0x9E3779B97F4A7C15ull;
  const size_t set = size_t(h >> 56);  // 8 bits: 256 sets
  Entry* const ways = cache.data() + set * kWays;
  for (size_t i = 0; i < kWays; ++i) {
    const Entry& e = ways[i];
    if (e.used && e.placed == p && e.k_major == o.k_major && e.first_row == o.first_row && e.rows == o.rows)
      return e.counts;
  }
  Entry& e = ways[next_way[set]];
  next_way[set] = uint8_t((next_way[set] + 1) % kWays);
  e = {true, p, o.k_major, o.first_row, o.rows, count_batches(o)};
  return e.counts;
}

}  // namespace

void record_tensor_reads(Cta& c, const TensorOperandRead& o, bool count) {
  *o.record = kNone;
  if (count) {
    const BatchCounts& n = cached_batch_counts(o);
    c.stats->tensor_smem_reads += n.reads;
    c.stats->tensor_smem_wavefronts += n.wavefronts;
    c.stats->tensor_smem_bank_conflicts += n.conflicts;
  }
  if (!c.trace || o.rows == 0) return;
  // The traced CTA records the first batch.
  if (const std::optional<SmemAccess> a =
          read_batch(o.placed, o.k_major, o.first_row, std::min<uint32_t>(CoreMatrixRead::kRowsPerBatch, o.rows)))
    *o.record = record_batch(c, o, *a);
}

void record_tensor_reads(Cta& c, uint32_t warp, MmaOp& op) {
  const CoreMatrixRead& read = *layout::op_traits(ir::Op::wgmma_mma_async).smem_read;
  const TensorOperandRead operands[2] = {
      {ir::Op::wgmma_mma_async, 'A', op.a_desc, layout::decode_wgmma_descriptor(op.a_desc), op.a_k_major,
       read.a_first_row(warp), read.a_rows(op.m), &op.a_read},
      {ir::Op::wgmma_mma_async, 'B', op.b_desc, layout::decode_wgmma_descriptor(op.b_desc), op.b_k_major,
       read.b_first_row(warp, op.n), read.b_rows(op.n), &op.b_read}};
  for (const TensorOperandRead& o : operands) record_tensor_reads(c, o, true);
}

}  // namespace gs::model
