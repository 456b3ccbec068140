// exec_tma_*: the copy engine. The TMA engine copies boxes between a tensor and shared memory
// (placing every byte where the swizzle puts it, facts §3-§5) and completes bytes on an
// mbarrier. The tensor cores (wgmma) are in exec_wgmma.cpp.
#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include <fmt/format.h>

#include "engine/layout/tma_box.hpp"
#include "engine/ir/signature.hpp"
#include "engine/model/decode.hpp"
#include "engine/model/exec_context.hpp"
#include "engine/model/operands.hpp"
#include "engine/model/tensor_core.hpp"
#include "engine/model/values.hpp"

namespace gs::model {

using ir::Op;

namespace {

layout::TmaBox box_of(const ir::TensorMapDesc& d) {
  layout::TmaBox b;
  b.rank = d.rank;
  b.box_dim = d.box_dim;
  b.elem_bytes = ir::tensor_dtype_bytes(d.dtype);
  b.swizzle = d.swizzle;
  b.element_strides = d.element_strides;
  return b;
}

int buffer_of(ir::ParamRole r) { return r == ir::ParamRole::a ? 0 : r == ir::ParamRole::b ? 1 : 2; }

// The tensor-map parameter a register holds (its parameter's address), or nullptr.
const ir::Param* tensor_map_of(ExecContext& x, uint64_t value, uint32_t* index) {
  const ir::Kernel& k = *x.cta.launch.kernel;
  if (value < kParamBase || (value - kParamBase) % kParamStride != 0) return nullptr;
  const uint64_t i = (value - kParamBase) / kParamStride;
  if (i >= k.params.size() || k.params[i].kind != ir::ParamKind::tensor_map) return nullptr;
  *index = uint32_t(i);
  return &k.params[i];
}

// Visits every row of a box (a run of elements along dim 0, contiguous in the tensor and in
// box order): f(first element's box index, count, first element's byte offset in the
// tensor, whether dims 1.. are in bounds, first element's dim-0 coordinate). Element i of
// the row is in bounds when the other dims are and 0 <= g0 + i < global_dim[0].
template <class F>
void for_each_box_row(const ir::TensorMapDesc& d, const std::array<int32_t, 5>& start, F&& f) {
  const layout::TmaBox box = box_of(d);
  std::array<uint32_t, 5> ext{1, 1, 1, 1, 1};
  std::array<int64_t, 5> step{}, stride{};
  for (uint32_t i = 0; i < d.rank; ++i) {
    ext[i] = layout::tma_box_extent(box, i);
    step[i] = i == 0 ? 1 : d.element_strides[i];
    stride[i] = i == 0 ? int64_t(box.elem_bytes) : int64_t(d.global_strides_bytes[i - 1]);
  }
  std::array<uint32_t, 5> bc{};
  uint32_t linear = 0;
  for (bc[4] = 0; bc[4] < ext[4]; ++bc[4])
    for (bc[3] = 0; bc[3] < ext[3]; ++bc[3])
      for (bc[2] = 0; bc[2] < ext[2]; ++bc[2])
        for (bc[1] = 0; bc[1] < ext[1]; ++bc[1], linear += ext[0]) {
          int64_t offset = int64_t(start[0]) * stride[0];
          bool inside = true;
          for (uint32_t dim = 1; dim < d.rank; ++dim) {
            const int64_t g = int64_t(start[dim]) + int64_t(bc[dim]) * step[dim];
            if (g < 0 || uint64_t(g) >= d.global_dim[dim]) inside = false;
            offset += g * stride[dim];
          }
          f(linear, ext[0], offset, inside, int64_t(start[0]));
        }
}

// Where the e-th element of a box lands: boxes are packed densely in box order, then the
// swizzle XOR of the absolute address applies (facts §4 "Shared-memory image of a box", §3).
// The same placement as layout::tma_box_smem_image, without its per-element validation.
// swizzle_mask is layout::swizzle_mask of the map's swizzle.
inline uint32_t box_element_address(uint32_t base, uint32_t e, uint32_t elem_bytes, uint32_t swizzle_mask) {
  const uint32_t logical = base + e * elem_bytes;
  return logical ^ (((logical >> 7) & swizzle_mask) << 4);
}

}  // namespace

namespace {

// What a TMA landing writes into a word's record: written by the copy engine, nothing unfenced
// (the load no longer pending is Cta::tma_pending_bits'; that it was not read since is
// clear_tensor_reads', kept only in clusters).
void land_record(SmemWord& s) {
  s.written = true;
  s.writer_warp = SmemWord::kAsync;
  s.generic_since_fence = false;
}

#if defined(__x86_64__) && defined(__GNUC__)
// A change of some fields of a record as two masks over its 8 bytes, worked out once from the
// change itself: keep = the bits it leaves alone, set = the bits it sets, so that
// (record & keep) | set is the record after it; each mask four times, for four records a
// 256-bit register. One and and one or a record where the fields took a read-modify-write of the
// flags byte and stores of the others (a box's records are mostly not in cache).
static_assert(sizeof(SmemWord) == 8 && alignof(SmemWord) == 8);
struct RecordMasks {
  alignas(32) uint8_t keep[32], set[32];
};

RecordMasks record_masks(void (*change)(SmemWord&)) {
  RecordMasks m;
  SmemWord ones, zeros;
  std::memset(static_cast<void*>(&ones), 0xFF, sizeof ones);
  std::memset(static_cast<void*>(&zeros), 0, sizeof zeros);
  change(ones);
  change(zeros);
  uint8_t o[sizeof(SmemWord)], z[sizeof(SmemWord)];
  std::memcpy(o, &ones, sizeof o);
  std::memcpy(z, &zeros, sizeof z);
  for (size_t i = 0; i < 32; ++i) {
    m.keep[i] = uint8_t(o[i % sizeof o] & ~z[i % sizeof z]);  // 1 after from 1 and 0 after from 0: left alone
    m.set[i] = z[i % sizeof z];                                // 1 after from 0: set
  }
  return m;
}

// The masks on `count` records from `words`, four records stored only where they change: a
// ring's stage lands on records the landing before left as this one leaves them, and a look at
// them costs less than writing them back (each line stays clean).
__attribute__((target("avx2"))) void change_records_avx2(SmemWord* words, uint32_t count, const RecordMasks& m) {
  const __m256i keep = _mm256_load_si256(reinterpret_cast<const __m256i*>(m.keep));
  const __m256i set = _mm256_load_si256(reinterpret_cast<const __m256i*>(m.set));
  uint32_t i = 0;
  for (; i + 4 <= count; i += 4) {  // four records: 32 bytes, 8-aligned
    __m256i* const p = reinterpret_cast<__m256i*>(words + i);
    const __m256i before = _mm256_loadu_si256(p);
    const __m256i after = _mm256_or_si256(_mm256_and_si256(before, keep), set);
    const __m256i changed = _mm256_xor_si256(before, after);
    if (!_mm256_testz_si256(changed, changed)) _mm256_storeu_si256(p, after);
  }
  uint64_t keep1, set1;  // one record's masks: the first 8 bytes of each
  std::memcpy(&keep1, m.keep, 8);
  std::memcpy(&set1, m.set, 8);
  for (; i < count; ++i) {
    uint64_t v;
    std::memcpy(&v, words + i, 8);
    v = (v & keep1) | set1;
    std::memcpy(static_cast<void*>(words + i), &v, 8);
  }
}
#endif

// land_record on `count` records from `words`.
void land_records(SmemWord* words, uint32_t count) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const RecordMasks masks = record_masks(land_record);
  if (cpu_has_avx2()) {
    change_records_avx2(words, count, masks);
    return;
  }
#endif
  for (uint32_t i = 0; i < count; ++i) land_record(words[i]);
}

}  // namespace

namespace {

// The operands a TMA load or store has in common, by role (signatures tensor_load and
// tensor_store).
struct TensorCopyOperands {
  bool load = false;
  size_t map_at = 0, coords_at = 0;
  ir::Operand smem, bar;
  size_t cta_mask_at = 0;  // multicast: the operand with the mask of destination CTA ranks
  bool multicast = false;
};

void exec_tma(ExecContext& x, const TensorCopyOperands& ops);

// A multicast writes [smem, smem + bytes) of peer CTA t. Bytes t's warps read since they were
// last written may be overwritten only after those reads: t's warps must have released them
// (an arrive after the read) and this warp acquired that release (its wait returned on a phase
// t's warps arrived in, or barrier.cluster). Nothing else orders another CTA's reads before
// this CTA's copy, whatever the timing: a cluster-race.
void check_peer_release(ExecContext& x, const Cta& t, uint32_t smem, uint32_t bytes, uint32_t lane) {
  const uint32_t rank = t.launch.cluster_rank;
  if (rank >= kMaxClusterRanks) return;
  const uint32_t acquired = x.warp.acquired[rank];
  for (uint32_t w = (smem - timing::kSmemBaseAddress) / 4; w < (smem - timing::kSmemBaseAddress + bytes) / 4; ++w) {
    if (t.read_release_of(w) <= acquired) continue;
    const uint32_t at = timing::kSmemBaseAddress + 4 * w;
    report(x.cta, HazardKind::cluster_race, x.inst_id, x.warp.id, lane, at,
           fmt::format("CTA rank {}'s multicast writes 0x{:X} in CTA rank {}, which rank {}'s warps read after their "
                       "latest release this warp acquired: nothing orders those reads before the copy, so it may land "
                       "in a stage rank {} is still reading. Rank {}'s consumers must arrive on a barrier this "
                       "producer waits on (the empty barrier of every CTA the multicast writes: mapa + remote arrive)",
                       x.cta.launch.cluster_rank, at, rank, rank, rank, rank));
    return;
  }
}

}  // namespace

void exec_tma_load(ExecContext& x) {
  expect_op(x, "exec_tma_load", Op::cp_async_bulk_tensor_load);
  const ir::tensor_load_operands o = ir::tensor_load_operands_of(x.inst);
  exec_tma(x, {true, o.map_at, o.coords_at, o.dst, o.bar});
}

// The multicast load: the box lands at the same shared offset in every CTA of the mask, and
// completes its bytes on the mbarrier at the same offset in each (facts §7).
void exec_tma_load_multicast(ExecContext& x) {
  expect_op(x, "exec_tma_load_multicast", Op::cp_async_bulk_tensor_load_multicast);
  const ir::tensor_load_multicast_operands o = ir::tensor_load_multicast_operands_of(x.inst);
  exec_tma(x, {true, o.map_at, o.coords_at, o.dst, o.bar, o.cta_mask_at, true});
}

// The .L2::cache_hint form (an optional cache-policy operand) runs the same: the policy says
// how long C's lines should stay in L2, which the model does not keep; the bytes stored, the
// hazards and the costs are the plain store's. Sources (in exec_tma) checks the policy register
// was written, as for any source.
void exec_tma_store(ExecContext& x) {
  expect_op(x, "exec_tma_store", Op::cp_async_bulk_tensor_store);
  const ir::tensor_store_operands o = ir::tensor_store_operands_of(x.inst);
  exec_tma(x, {false, o.map_at, o.coords_at, o.src, {}});
}

// createpolicy: the hardware's policy is an opaque 64-bit value (PTX ISA "createpolicy"); no op
// of the model reads its bits, so every lane gets one fixed token per policy, for the register
// views to show.
void exec_createpolicy(ExecContext& x) {
  expect_op(x, "exec_createpolicy", Op::createpolicy_fractional_evict_first);
  constexpr uint64_t kEvictFirstToken = 0xE71C7F1257ull;  // "evict first", nothing the hardware defines
  const ir::cache_policy_operands o = ir::cache_policy_operands_of(x.inst);
  Sources src(x);
  for (uint32_t l = 0; l < 32; ++l)
    if (x.mask >> l & 1) x.cta.reg(x.warp.id, o.policy.id, l) = kEvictFirstToken;
  src.wrote(o.policy.id);
  x.latency = timing::kAluLatency;
}

// prefetch.tensormap: the model keeps no descriptor cache.
void exec_tma_nothing_pending(ExecContext& x) {
  expect_op(x, "exec_tma_nothing_pending", Op::prefetch_tensormap);
  x.latency = timing::kAluLatency;
}

namespace {

// The words a bulk store reads, counted up (issued) or down (retired).
void count_bulk_reads(Cta& c, const Warp::BulkStore& s, int delta) {
  for (uint32_t w = (s.smem - timing::kSmemBaseAddress) / 4; w < (s.smem - timing::kSmemBaseAddress + s.bytes) / 4; ++w) {
    uint8_t& n = c.smem_word_state[w].bulk_reads;
    n = uint8_t(std::clamp(int(n) + delta, 0, 255));
  }
}

}  // namespace

// The bulk async-groups of TMA stores (PTX ISA: per thread; the model keeps them per warp, as
// one thread issues them): commit_group closes the stores issued since the last one into a
// group; wait_group.read N waits until at most N groups may still read shared memory, and the
// ones it retires no longer do (SmemWord::bulk_reads). The model writes C at the store's issue,
// so what C holds does not depend on the wait; what the hazard checks do.
void exec_bulk_group(ExecContext& x) {
  expect_op(x, "exec_bulk_group", Op::cp_async_bulk_commit_group, Op::cp_async_bulk_wait_group_read);
  Warp& w = x.warp;
  x.latency = timing::kAluLatency;
  if (x.inst.op == Op::cp_async_bulk_commit_group) {
    w.bulk_groups.push_back(std::move(w.bulk_uncommitted));
    w.bulk_uncommitted.clear();
    return;
  }
  const size_t keep = size_t(std::max<int64_t>(ir::group_count_operands_of(x.inst).n.imm, 0));
  uint64_t until = x.cta.now;
  while (w.bulk_groups.size() > keep) {
    for (const Warp::BulkStore& s : w.bulk_groups.front()) {
      count_bulk_reads(x.cta, s, -1);
      until = std::max(until, s.read_done);
    }
    w.bulk_groups.erase(w.bulk_groups.begin());
  }
  x.latency = uint32_t(std::max<uint64_t>(until - x.cta.now, timing::kAluLatency));
}

void check_bulk_stores_at_exit(Cta& c) {
  for (const Warp& w : c.warps) {
    size_t stores = w.bulk_uncommitted.size();
    for (const auto& g : w.bulk_groups) stores += g.size();
    if (stores == 0) continue;
    report(c, HazardKind::exit_with_pending_tma, kNone, w.id, kNone, 0,
           fmt::format("warp {} exited with {} TMA store(s) whose reads of shared memory no "
                       "cp.async.bulk.wait_group.read retired: the SM may give that memory to the next CTA while "
                       "they still read it (wait_group.read 0 before the end)",
                       w.id, stores));
    return;
  }
}

namespace {

void exec_tma(ExecContext& x, const TensorCopyOperands& ops) {
  Cta& c = x.cta;
  const ir::Inst& in = x.inst;
  x.latency = timing::kAluLatency;
  const bool load = ops.load;
  const uint32_t rank = in.aux;
  const size_t map_pos = ops.map_at;
  Sources src(x);
  for (uint32_t lane = 0; lane < 32; ++lane) {
    if (!(x.mask >> lane & 1)) continue;
    uint32_t pidx = 0;
    const ir::Param* p = tensor_map_of(x, src.get(map_pos, lane), &pidx);
    if (!p) {
      report(c, HazardKind::bad_tensor_map, x.inst_id, x.warp.id, lane, src.get(map_pos, lane),
             "the tensor-map operand is not the address of a tensor-map kernel parameter");
      continue;
    }
    const ir::TensorMapDesc& d = p->tensor_map;
    std::array<int32_t, 5> coords{};
    for (uint32_t i = 0; i < rank && i < 5; ++i) coords[i] = int32_t(src.get(ops.coords_at + i, lane));
    const ir::Operand& smem_op = ops.smem;
    // A multicast names shared::cluster addresses; only the offset matters (the same in
    // every destination), so it is taken as this CTA's shared::cta address.
    const uint32_t smem_raw = memory_address32(x, smem_op, lane);
    const uint32_t smem = ops.multicast ? smem_raw & ((1u << kClusterRankShift) - 1) : smem_raw;
    const uint32_t bytes = d.box_bytes();
    const uint32_t align = layout::swizzle_required_alignment(d.swizzle);
    if (smem % std::max<uint32_t>(align, 128) != 0)
      report(c, HazardKind::misaligned_swizzle, x.inst_id, x.warp.id, lane, smem,
             fmt::format("the TMA destination 0x{:X} is not {}-byte aligned: the {} swizzle pattern is taken from "
                         "address bits, so the tile and the descriptor would disagree",
                         smem, std::max<uint32_t>(align, 128), layout::swizzle_name(d.swizzle)));
    if (!smem_ptr(x, smem, bytes, lane, load)) continue;

    TmaJob job;
    job.param = pidx;
    job.coords = coords;
    job.smem_dst = smem;
    job.bytes = bytes;
    job.inst = x.inst_id;
    job.warp = x.warp.id;
    job.from_rank = c.launch.cluster_rank;
    job.issue = c.now;
    const timing::CtaFigures& f = *c.launch.figures;
    if (load) {  // the SM's copy engine, no faster than its share of what L2 delivers
      const uint64_t start = std::max(c.now, c.copy_free);
      c.copy_free = start + uint64_t(double(bytes) / f.tma_bytes_per_cycle + 0.5);
      job.complete = c.copy_free + f.tma_latency;
    } else {
      // A store's box leaves the SM on its path into L2, behind the CTA's stores before it, as
      // st.global's do (take_store_path: with the wave, at the SM's share of L2's write bandwidth,
      // a box row's whole lines weighing their bytes); it reads shared memory until its last byte
      // has left (exec_bulk_group).
      // Step 18 at 2048^3 on the H100 (2026-12-06, docs/results/2026-12-06-one-wave): its CTAs'
      // 128 KiB of C, stored together at the end of the one wave, took 7500 cycles at 1741 MHz,
      // 4.0 TB/s over the 132 SMs, the probe l2_write_bw's rate; the copy engine's own 107 B/cycle
      // (tma_sm_bw, loads) had them in 2200.
      const uint32_t row_bytes = d.box_dim[0] * ir::tensor_dtype_bytes(d.dtype);
      const double lines = double(bytes / std::max<uint32_t>(row_bytes, 1)) * double((row_bytes + 127) / 128);
      take_store_path(c, bytes, lines);
      job.complete = c.store_free + f.tma_latency;
      const Warp::BulkStore read{smem, bytes, c.store_free};
      x.warp.bulk_uncommitted.push_back(read);
      count_bulk_reads(c, read, +1);
    }
    c.stats->tma_transfers++;
    c.stats->tma_bytes += bytes;
    // A load's bytes come through L2 (timing.cpp's L2 part); a store's are C on its way to HBM,
    // counted below as they are written (the part the store clips is not).
    if (load) c.cost.tma_bytes += bytes;

    // The CTAs the box lands in: this one, or those of the multicast mask.
    std::array<Cta*, 16> dests{&c};
    uint32_t ndests = 1;
    if (load && ops.multicast) {
      const uint32_t mask = uint32_t(src.get(ops.cta_mask_at, lane)) & 0xFFFF;
      const Cluster* cl = c.launch.cluster;
      const uint32_t size = cl ? uint32_t(cl->ctas.size()) : 1;
      if (mask >> size != 0)
        report(c, HazardKind::out_of_bounds_shared, x.inst_id, x.warp.id, lane, mask,
               fmt::format("the multicast mask 0x{:X} names CTA ranks past the cluster's {} CTA(s)", mask, size));
      ndests = 0;
      for (uint32_t r = 0; r < size; ++r)
        if (mask >> r & 1) dests[ndests++] = cl ? cl->ctas[r] : &c;
      // L2 reads the box once and sends it to ndests SMs: the deliveries beyond one.
      if (ndests > 1) c.cost.tma_multicast_extra_bytes += uint64_t(bytes) * (ndests - 1);
    }
    std::array<bool, 16> refills{};  // per destination: the load lands on bytes still in flight
    if (load) {
      job.mbar = memory_address32(x, ops.bar, lane) & (ops.multicast ? (1u << kClusterRankShift) - 1 : ~0u);
      for (uint32_t di = 0; di < ndests; ++di) {
        Cta& t = *dests[di];
        auto it = t.mbars.find(job.mbar);
        if (it == t.mbars.end() || !it->second.initialized)
          report(c, HazardKind::uninitialized_mbarrier, x.inst_id, x.warp.id, lane, job.mbar,
                 fmt::format("the TMA load completes on the mbarrier at 0x{:X} of CTA rank {}, which was never "
                             "initialised",
                             job.mbar, t.launch.cluster_rank));
        else if (!it->second.init_fenced)
          report(c, HazardKind::missing_init_fence, x.inst_id, x.warp.id, lane, job.mbar,
                 fmt::format("the mbarrier at 0x{:X} was initialised without fence.mbarrier_init (or "
                             "fence.proxy.async) before the TMA engine used it: the copy engine may not see the init",
                             job.mbar));
        if (&t != &c) check_peer_release(x, t, smem, bytes, lane);
        // A second load into bytes an earlier load is still writing: the stage was refilled
        // before anyone waited for (let alone read) what the first brought.
        ++t.smem_writes;  // tma_pending below
        const uint32_t lo = (smem - timing::kSmemBaseAddress) / 4, hi = (smem - timing::kSmemBaseAddress + bytes) / 4;
        const bool refilled = word_bits::mark<true>(t.tma_pending_bits, lo, hi);
        t.clear_ready(lo, hi);
        refills[di] = refilled;
        if (refilled && &t == &c)
          report_tma_race(c, x.inst_id, x.warp.id, lane, smem,
                          fmt::format("a TMA load into 0x{:X} is issued while an earlier TMA load into the same bytes "
                                      "is still in flight",
                                      smem),
                          "the buffer is refilled before its first contents were waited for and read (a missing wait "
                          "on the stage's empty barrier?)");
        else if (refilled)  // a multicast into a peer: the peer's consumers never said the stage was free
          report_tma_race(c, x.inst_id, x.warp.id, lane, smem,
                          fmt::format("CTA rank {}'s multicast lands at 0x{:X} in CTA rank {} while an earlier TMA load "
                                      "into the same bytes of rank {} is still in flight",
                                      c.launch.cluster_rank, smem, t.launch.cluster_rank, t.launch.cluster_rank),
                          fmt::format("rank {}'s stage is overwritten before its consumers read it. The producer waited "
                                      "only for what its own CTA's consumers released; a stage that a multicast writes "
                                      "in every CTA of the mask is free only when the consumers of all of them are done "
                                      "(each consumer arrives on the empty barrier of every CTA of the cluster)",
                                      t.launch.cluster_rank));
      }
    } else {
      // A store reads shared memory now: ordinary writes must have been fenced (facts §5). Only
      // words in [Cta::unfenced_lo, unfenced_hi) can be flagged.
      const uint32_t first = std::max((smem - timing::kSmemBaseAddress) / 4, c.unfenced_lo),
                     end = std::min((smem - timing::kSmemBaseAddress + bytes) / 4, c.unfenced_hi);
      for (uint32_t w = first; w < end; ++w)
        if (c.smem_word_state[w].generic_since_fence) {
          report(c, HazardKind::missing_proxy_fence, x.inst_id, x.warp.id, lane, smem + w * 4,
                 "shared memory written by st.shared/stmatrix is read by a TMA store without fence.proxy.async");
          break;
        }
      const layout::TmaBox box = box_of(d);
      std::span<uint8_t>* buf = c.launch.global->buffers[buffer_of(d.source)];
      const uint32_t eb = box.elem_bytes;
      const uint32_t sw = layout::swizzle_mask(d.swizzle);
      // Untraced, store_into_c only notes the tile of C an element lies in as visited, and a call
      // for a tile noted since does nothing: of a box row's elements that lie in one row of C and
      // one tile, the first stored is enough.
      const bool into_c = buf && buf == c.launch.global->buffers[2];
      const ir::OutputTiling& tiling = c.launch.kernel->output;
      const bool once_a_tile = into_c && !c.trace && tiling.declared() && tiling.elem_bytes == eb;
      for_each_box_row(d, coords, [&](uint32_t linear, uint32_t count, int64_t off, bool inside, int64_t g0) {
        // Elements 0 .. same_tile - 1 of the row lie in its first element's row of C and tile.
        uint32_t same_tile = 0;
        if (once_a_tile && off >= 0 && off % eb == 0) {
          const uint64_t col = uint64_t(off) / eb % tiling.cols;
          same_tile = uint32_t(std::min<uint64_t>(tiling.cols - col, tiling.tile_cols - col % tiling.tile_cols));
        }
        bool noted = false;
        const auto note_c = [&](uint32_t i, uint64_t at_off) {  // store_into_c, the row's first tile once
          if (!into_c) return;
          if (i < same_tile) {
            if (noted) return;
            noted = true;
          }
          store_into_c(x, at_off, eb, kNone, lane);  // no register wrote it
        };
        // A row wholly inside the tensor and the buffer, from a 16-byte aligned box position:
        // 16-byte pieces (complete_tma's rule), then each element's note.
        const uint64_t bytes = uint64_t(count) * eb;
        uint32_t logical = smem + linear * eb;
        if (inside && buf && g0 >= 0 && uint64_t(g0) + count <= d.global_dim[0] && off >= 0 &&
            uint64_t(off) + bytes <= buf->size() && logical % 16 == 0 && bytes % 16 == 0) {
          for (uint64_t at = 0; at < bytes; at += 16, logical += 16) {
            const uint32_t physical = logical ^ (((logical >> 7) & sw) << 4);
            std::memcpy(buf->data() + off + at, c.smem.data() + (physical - timing::kSmemBaseAddress), 16);
          }
          c.cost.global_store_bytes += bytes;
          for (uint32_t i = 0; i < count; ++i) note_c(i, uint64_t(off) + uint64_t(i) * eb);
          return;
        }
        for (uint32_t i = 0; i < count; ++i) {  // in the tensor where dims 1.. are and 0 <= g0 + i < dim 0
          const int64_t g = g0 + i, at_off = off + int64_t(i) * eb;
          const bool in_tensor = inside && g >= 0 && uint64_t(g) < d.global_dim[0];
          if (!in_tensor || !buf || at_off < 0 || uint64_t(at_off) + eb > buf->size()) continue;  // stores clip
          const uint32_t at = box_element_address(smem, linear + i, eb, sw);
          std::memcpy(buf->data() + at_off, c.smem.data() + (at - timing::kSmemBaseAddress), eb);
          c.cost.global_store_bytes += eb;
          note_c(i, uint64_t(at_off));
        }
      });
    }
    if (c.trace) {
      TmaTransfer t;
      t.param = pidx;
      t.coords = coords;
      t.rank = rank;
      t.smem_dst = smem;
      t.bytes = bytes;
      t.swizzle = uint8_t(d.swizzle);
      t.store = !load;
      t.mbar = job.mbar;
      t.issue_cycle = job.issue;
      t.complete_cycle = job.complete;
      t.cta = uint8_t(c.launch.cluster_rank);
      t.cta_mask = uint16_t(1u << c.launch.cluster_rank);
      if (load && ops.multicast) {
        t.cta_mask = 0;
        for (uint32_t di = 0; di < ndests; ++di) t.cta_mask |= uint16_t(1u << dests[di]->launch.cluster_rank);
      }
      job.trace_index = append(c.trace->tma, t);
      trace_event(c, EventKind::tma_issue, c.now, x.warp.id, x.inst_id, 1u << lane, job.trace_index, bytes);
    }
    if (load)
      for (uint32_t di = 0; di < ndests; ++di) {
        // Each destination completes its own copy in its own run (a blocked peer resumes:
        // simulate.cpp); only the issuer's copy is in the issuer's trace.
        Cta& t = *dests[di];
        TmaJob mine = job;
        mine.refill = refills[di];
        if (&t != &c) mine.trace_index = kNone;
        t.tma_jobs.push_back(mine);
        t.tma_pending.push_back({job.complete, uint32_t(t.tma_jobs.size() - 1)});
      }
  }
}

}  // namespace

void complete_tma(Cta& c, const PendingTma& p) {
  const TmaJob& job = c.tma_jobs[p.record];
  if (job.commit_arrival) return complete_tmem_commit(c, p);
  if (job.clc_response) return complete_clc_response(c, p);
  const ir::Param& param = c.launch.kernel->params[job.param];
  const ir::TensorMapDesc& d = param.tensor_map;
  const layout::TmaBox box = box_of(d);
  const std::span<uint8_t>* buf = c.launch.global->buffers[buffer_of(d.source)];
  const uint32_t eb = box.elem_bytes;
  const uint32_t sw = layout::swizzle_mask(d.swizzle);
  // Element by element: the placement rule, with zero fill outside the tensor.
  const auto copy_element = [&](uint32_t e, bool inside, int64_t off) {
    uint8_t* dst = c.smem.data() + (box_element_address(job.smem_dst, e, eb, sw) - timing::kSmemBaseAddress);
    if (inside && buf && off >= 0 && uint64_t(off) + eb <= buf->size())
      std::memcpy(dst, buf->data() + off, eb);
    else
      std::memset(dst, 0, eb);  // out-of-bounds elements are zero-filled (oobFill NONE)
  };
  for_each_box_row(d, job.coords, [&](uint32_t linear, uint32_t count, int64_t off, bool inside, int64_t g0) {
    // A row wholly inside the tensor and the buffer, into a 16-byte aligned box, moves in
    // 16-byte pieces: the swizzle XOR changes address bits 4-6 only, so it maps each aligned
    // 16-byte chunk onto another one, and no element straddles two (eb divides 16).
    const uint64_t bytes = uint64_t(count) * eb;
    const bool whole = inside && buf && g0 >= 0 && uint64_t(g0) + count <= d.global_dim[0] && off >= 0 &&
                       uint64_t(off) + bytes <= buf->size() && job.smem_dst % 16 == 0 && 16 % eb == 0;
    if (!whole) {
      for (uint32_t i = 0; i < count; ++i) {
        const int64_t g = g0 + i;
        copy_element(linear + i, inside && g >= 0 && uint64_t(g) < d.global_dim[0], off + int64_t(i) * eb);
      }
      return;
    }
    const uint8_t* src = buf->data() + off;
    // The rows of a box lie a global row pitch apart, past what the CPU's prefetcher follows:
    // ask for the row kAhead further on while this one moves (the copy waited on memory).
    constexpr int64_t kAhead = 4;
    if (d.rank > 1) {
      const int64_t next = off + kAhead * int64_t(d.global_strides_bytes[0]);
      if (next >= 0 && uint64_t(next) + bytes <= buf->size())
        for (uint64_t at = 0; at < bytes; at += 64) __builtin_prefetch(buf->data() + next + at);
    }
    uint32_t logical = job.smem_dst + linear * eb;
    if (logical % 16 == 0 && bytes % 16 == 0) {  // whole chunks: copies of a size the compiler knows
      for (uint64_t at = 0; at < bytes; at += 16, logical += 16) {
        const uint32_t physical = logical ^ (((logical >> 7) & sw) << 4);
        std::memcpy(c.smem.data() + (physical - timing::kSmemBaseAddress), src + at, 16);
      }
      return;
    }
    for (uint64_t left = bytes; left > 0;) {
      const uint32_t piece = uint32_t(std::min<uint64_t>(left, 16 - logical % 16));
      const uint32_t physical = logical ^ (((logical >> 7) & sw) << 4);
      std::memcpy(c.smem.data() + (physical - timing::kSmemBaseAddress), src, piece);
      src += piece;
      logical += piece;
      left -= piece;
    }
  });
  ++c.smem_writes;  // the bytes above and the records below
  const uint32_t lo = (job.smem_dst - timing::kSmemBaseAddress) / 4,
                 hi = (job.smem_dst - timing::kSmemBaseAddress + job.bytes) / 4;
  // The records as a landing leaves them, unless each still holds that (Cta::records_landed).
  if (!c.all_landed(lo, hi)) {
    land_records(c.smem_word_state.data() + lo, hi - lo);
    word_bits::mark<true>(c.records_landed, lo, hi);
  }
  word_bits::mark<false>(c.tma_pending_bits, lo, hi);
  c.set_ready(lo, hi);
  if (notes_for_peers(c)) c.clear_tensor_reads(lo, hi, c.releases + 1);  // only peers read these
  if (c.trace && job.trace_index != kNone)
    trace_event(c, EventKind::tma_complete, p.complete_at, job.warp, job.inst, 0, job.trace_index, job.bytes);
  auto it = c.mbars.find(job.mbar);
  if (it == c.mbars.end()) return;
  it->second.tx_count -= job.bytes;
  trace_mbar(c, EventKind::mbar_complete_tx, p.complete_at, peer_warp(c, job.from_rank, job.warp), job.inst, job.mbar,
             it->second, job.bytes);
  mbarrier_check_phase(c, job.mbar, p.complete_at);
}

}  // namespace gs::model
