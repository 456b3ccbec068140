// exec_wgmma: the tensor cores of Hopper. wgmma reads shared memory through its descriptors
// exactly as decoded (facts §1), so a wrong descriptor gives the GPU's wrong numbers; the
// accumulators are spread over the warpgroup's registers as the facts' §1.5 map says.
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "engine/layout/fragments.hpp"
#include "engine/layout/wgmma_descriptor.hpp"
#include "engine/ir/signature.hpp"
#include "engine/model/machine.hpp"
#include "engine/model/operands.hpp"
#include "engine/model/values.hpp"

namespace gs::model {

using ir::Op;

namespace {

// The f32 accumulator map of m64nNk16 for one warp's 32 lanes: (lane, v) -> (row, col).
const std::vector<layout::Coord>& accumulator_map(uint32_t n) {
  // Every legal N (8..256 in steps of 8) built once, under C++'s thread-safe initialisation of
  // a local static: the GUI runs the model on job threads, two at a time when a new open
  // supersedes one still finishing, so a cache filled on demand would race.
  static const std::array<std::vector<layout::Coord>, 33> maps = [] {
    std::array<std::vector<layout::Coord>, 33> all;
    for (uint32_t i = 1; i < all.size(); ++i) {
      const layout::FragmentMap f = layout::wgmma_accumulator_layout(int(8 * i));
      all[i].assign(f.table.begin(), f.table.end());  // threads 0..127, values 0..n/2-1
    }
    return all;
  }();
  return maps[n / 8];
}

// Reads the bf16 element the tensor core sees at (row, k) of an operand under a descriptor.
float read_operand_element(ExecContext& x, const layout::WgmmaDescriptor& d, uint32_t row, uint32_t k, bool k_major,
                           bool* bad) {
  uint32_t addr = 0;
  try {
    addr = layout::wgmma_descriptor_smem_address(d, row, 2 * k, k_major);
  } catch (const std::exception& e) {
    *bad = true;
    report(x.cta, HazardKind::bad_descriptor, x.inst_id, x.warp.id, 0xFFFFFFFFu, 0,
           std::string("the wgmma descriptor cannot be followed: ") + e.what());
    return 0.0f;
  }
  Cta& c = x.cta;
  if (addr < timing::kSmemBaseAddress || addr + 2 > timing::kSmemBaseAddress + c.smem.size()) {
    *bad = true;
    report(c, HazardKind::out_of_bounds_shared, x.inst_id, x.warp.id, 0xFFFFFFFFu, addr,
           fmt::format("the wgmma descriptor points at 0x{:X}, outside the CTA's shared memory", addr));
    return 0.0f;
  }
  const uint32_t off = addr - timing::kSmemBaseAddress;
  const SmemWord& s = c.smem_word_state[off / 4];
  if (s.tma_pending)
    report(c, HazardKind::tma_race, x.inst_id, x.warp.id, 0xFFFFFFFFu, addr,
           fmt::format("wgmma reads shared address 0x{:X} before the TMA load writing it has completed: wait on the "
                       "stage's mbarrier first",
                       addr));
  else if (s.generic_since_fence)
    report(c, HazardKind::missing_proxy_fence, x.inst_id, x.warp.id, 0xFFFFFFFFu, addr,
           fmt::format("wgmma (async proxy) reads 0x{:X}, written by ordinary stores without fence.proxy.async", addr));
  else if (!s.written)
    report(c, HazardKind::uninitialized_shared, x.inst_id, x.warp.id, 0xFFFFFFFFu, addr,
           fmt::format("wgmma reads shared address 0x{:X}, which nothing has written", addr));
  uint16_t h;
  std::memcpy(&h, c.smem.data() + off, 2);
  return bf16_to_f32(h);
}

// One row's k16 slice (16 bf16 = 32 bytes) of an operand. The common case — K-major,
// swizzled, base offset 0 — reads two 16-byte chunks: the swizzle XOR moves whole chunks
// and only depends on address bits 7-9, so swizzling each chunk's first address is exact
// (the same addresses as layout::wgmma_descriptor_smem_address, which handles the rest).
void read_operand_row(ExecContext& x, const layout::WgmmaDescriptor& d, uint32_t row, bool k_major, float scale,
                      std::array<float, 16>& out, bool* bad) {
  Cta& c = x.cta;
  if (!k_major || d.swizzle == layout::Swizzle::none || d.base_offset != 0) {
    for (uint32_t k = 0; k < 16; ++k) out[k] = scale * read_operand_element(x, d, row, k, k_major, bad);
    return;
  }
  const uint32_t span = layout::swizzle_span_bytes(d.swizzle);
  const uint32_t row_base = d.start_address + (row / 8) * d.stride_byte_offset + (row % 8) * span;
  for (uint32_t chunk = 0; chunk < 2; ++chunk) {
    const uint32_t logical = row_base + 16 * chunk;
    const uint32_t addr = logical ^ (((logical >> 7) & layout::swizzle_mask(d.swizzle)) << 4);
    if (addr < timing::kSmemBaseAddress || addr + 16 > timing::kSmemBaseAddress + c.smem.size()) {
      for (uint32_t k = 0; k < 8; ++k) out[8 * chunk + k] = scale * read_operand_element(x, d, row, 8 * chunk + k, true, bad);
      continue;
    }
    const uint32_t off = addr - timing::kSmemBaseAddress;
    for (uint32_t w = 0; w < 4; ++w) {
      const SmemWord& s = c.smem_word_state[off / 4 + w];
      if (s.tma_pending || s.generic_since_fence || !s.written) {  // let the element path report it
        (void)read_operand_element(x, d, row, 8 * chunk + 2 * w, true, bad);
        break;
      }
    }
    uint16_t h[8];
    std::memcpy(h, c.smem.data() + off, 16);
    for (uint32_t k = 0; k < 8; ++k) out[8 * chunk + k] = scale * bf16_to_f32(h[k]);
  }
}

// The 16×N products of one warp's rows: S[r][c] = sum over k = 0..15, in that order, of
// double(A[r][k] · B[k][c]). A bf16 × bf16 product is exact in float (8-bit significands),
// so only the sum rounds, in double, once per k, and D = f32(old + S) rounds once more —
// the order of operations the model has always used. Columns go in blocks of 8 so that the
// inner loop has a fixed length the compiler can vectorise; each column keeps its own k
// order, so vectorising (with SSE2 or AVX2 alike) does not change a single bit.
[[gnu::always_inline]] inline void tile_sums_body(const float (&A)[16][16], const float (&Bt)[16][256], uint32_t n,
                                                  double (&S)[16][256]) {
  for (uint32_t r = 0; r < 16; ++r) {
    for (uint32_t c0 = 0; c0 < n; c0 += 8) {
      double sum[8] = {};
      for (uint32_t k = 0; k < 16; ++k) {
        const float a = A[r][k];
#pragma GCC unroll 8
        for (uint32_t j = 0; j < 8; ++j) sum[j] += double(a * Bt[k][c0 + j]);
      }
      for (uint32_t j = 0; j < 8; ++j) S[r][c0 + j] = sum[j];
    }
  }
}

void tile_sums_generic(const float (&A)[16][16], const float (&Bt)[16][256], uint32_t n, double (&S)[16][256]) {
  tile_sums_body(A, Bt, n, S);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) void tile_sums_avx2(const float (&A)[16][16], const float (&Bt)[16][256], uint32_t n,
                                                     double (&S)[16][256]) {
  tile_sums_body(A, Bt, n, S);
}
#endif

// The build of tile_sums_body this CPU runs, chosen once.
void wgmma_tile_sums(const float (&A)[16][16], const float (&Bt)[16][256], uint32_t n, double (&S)[16][256]) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  if (avx2) return tile_sums_avx2(A, Bt, n, S);
#endif
  tile_sums_generic(A, Bt, n, S);
}

void wgmma_mma(ExecContext& x) {
  Cta& c = x.cta;
  Warp& w = x.warp;
  const ir::Inst& in = x.inst;
  const uint32_t n = in.aux, nacc = n / 2;
  Sources src(x);
  if (x.mask != 0xFFFFFFFFu)
    report(c, HazardKind::wgmma_divergent, x.inst_id, w.id, 0xFFFFFFFFu, 0,
           "wgmma.mma_async.sync.aligned must be executed by all 32 lanes of every warp of the warpgroup");
  if (!w.wgmma_fenced)
    report(c, HazardKind::missing_wgmma_fence, x.inst_id, w.id, 0xFFFFFFFFu, 0,
           w.wgmma_any ? "the accumulators were touched by ordinary instructions since the last wgmma: issue "
                         "wgmma.fence before this wgmma"
                       : "the first wgmma of the warpgroup needs a wgmma.fence before it (it orders earlier register "
                         "accesses before the tensor cores use them)");
  const uint32_t lane0 = uint32_t(std::countr_zero(x.mask | 0x80000000u));
  const uint64_t a_bits = src.get(nacc, lane0), b_bits = src.get(nacc + 1, lane0);
  for (uint32_t l = 0; l < 32; ++l)
    if ((x.mask >> l & 1) && (src.get(nacc, l) != a_bits || src.get(nacc + 1, l) != b_bits)) {
      report(c, HazardKind::wgmma_descriptor_divergent, x.inst_id, w.id, l, 0,
             "the wgmma descriptors differ between lanes: they must be uniform across the warpgroup");
      break;
    }
  const bool scale_d = src.get(nacc + 2, lane0) != 0;
  const float sa = in.operands[nacc + 3].imm < 0 ? -1.0f : 1.0f, sb = in.operands[nacc + 4].imm < 0 ? -1.0f : 1.0f;
  const bool a_k_major = in.operands[nacc + 5].imm == 0, b_k_major = in.operands[nacc + 6].imm == 0;
  const layout::WgmmaDescriptor da = layout::decode_wgmma_descriptor(a_bits);
  const layout::WgmmaDescriptor db = layout::decode_wgmma_descriptor(b_bits);

  // This warp computes rows 16·(warp%4) .. +15 of the 64×N tile: A rows and all of B.
  const uint32_t row0 = 16 * (w.id % 4);
  bool bad = false;
  alignas(64) float A[16][16];
  for (uint32_t r = 0; r < 16; ++r) {
    std::array<float, 16> row{};
    read_operand_row(x, da, row0 + r, a_k_major, sa, row, &bad);
    for (uint32_t k = 0; k < 16; ++k) A[r][k] = row[k];
  }
  // B as K×N (column index innermost), so the products below run along contiguous columns.
  alignas(64) float Bt[16][256];
  for (uint32_t col = 0; col < n; ++col) {
    std::array<float, 16> column{};
    read_operand_row(x, db, col, b_k_major, sb, column, &bad);
    for (uint32_t k = 0; k < 16; ++k) Bt[k][col] = column[k];
  }
  alignas(64) double S[16][256];
  wgmma_tile_sums(A, Bt, n, S);

  const std::vector<layout::Coord>& map = accumulator_map(n);
  const size_t slot0 = size_t(w.id) * c.nregs;
  if (scale_d)  // accumulating reads the old D: it must have been written (by a wgmma or a mov)
    for (uint32_t v = 0; v < nacc; ++v)
      if ((c.written[slot0 + in.operands[v].id] & x.mask) != x.mask) {
        report(c, HazardKind::uninitialized_register, x.inst_id, w.id, 0xFFFFFFFFu, 0,
               fmt::format("wgmma accumulates into %{} (scale-d = 1) before anything wrote it: use scale-d = 0 for "
                           "the first wgmma, or zero the accumulators",
                           c.launch.kernel->regs[in.operands[v].id].name));
        break;
      }
  for (uint32_t v = 0; v < nacc; ++v) {
    const uint32_t reg = in.operands[v].id;
    uint64_t* d = c.reg_lanes(w.id, reg);
    for (uint32_t l = 0; l < 32; ++l) {
      const layout::Coord rc = map[(32 * (w.id % 4) + l) * nacc + v];
      const float old = scale_d ? as_f32(d[l]) : 0.0f;
      d[l] = from_f32(float(double(old) + S[uint32_t(rc.row) - row0][uint32_t(rc.col)]));
    }
    c.written[slot0 + reg] |= x.mask;
    c.wgmma_acc[slot0 + reg] = 1;
    c.reg_pending[slot0 + reg] = 1;
    w.uncommitted_regs.push_back(reg);
  }
  (void)bad;
  w.wgmma_any = true;
  // Timing: this warp's quarter of the m64nNk16 occupies the SM's tensor cores for N/8 cycles.
  const uint64_t busy = timing::wgmma_busy_cycles(n) / 4;
  const uint64_t start = std::max(c.now, c.tensor_free);
  c.tensor_free = start + busy;
  c.cost.tensor_busy_cycles += busy;
  w.uncommitted_complete_at = std::max(w.uncommitted_complete_at, c.tensor_free + timing::kWgmmaPipelineLatency);
  if (w.id % 4 == 0) c.stats->mma_ops++;
  MmaOp op;
  op.n = n;
  op.a_desc = a_bits;
  op.b_desc = b_bits;
  op.scale_d = scale_d;
  op.group = uint32_t(w.groups.size());
  op.issue_cycle = c.now;
  op.complete_cycle = c.tensor_free + timing::kWgmmaPipelineLatency;
  const ir::wgmma_operands ops = ir::wgmma_operands_of(in);
  op.a_k_major = ops.trans_a.imm == 0;
  op.b_k_major = ops.trans_b.imm == 0;
  record_tensor_reads(c, w.id, op);  // the counts for every CTA, the records for the traced one
  if (c.trace) {
    const uint32_t index = append(c.trace->mma, op);
    trace_event(c, EventKind::mma_issue, c.now, w.id, x.inst_id, x.mask, index, n);
    if (c.launch.record_registers)
      for (uint32_t v = 0; v < nacc; ++v) record_register_write(c, w.id, x.inst_id, in.operands[v].id, x.mask);
  }
}

}  // namespace

void exec_wgmma(ExecContext& x) {
  Warp& w = x.warp;
  Cta& c = x.cta;
  x.latency = timing::kAluLatency;
  switch (x.inst.op) {
    case Op::wgmma_fence: w.wgmma_fenced = true; break;
    case Op::wgmma_mma_async: wgmma_mma(x); break;
    case Op::wgmma_commit_group:
      w.groups.push_back({w.uncommitted_complete_at, std::move(w.uncommitted_regs)});
      w.uncommitted_regs.clear();
      w.uncommitted_complete_at = 0;
      trace_event(c, EventKind::mma_commit, c.now, w.id, x.inst_id, x.mask, 0xFFFFFFFFu, uint32_t(w.groups.size()));
      break;
    case Op::wgmma_wait_group: {
      const size_t keep = size_t(std::max<int64_t>(ir::group_count_operands_of(x.inst).n.imm, 0));
      uint64_t until = c.now;
      const bool blocks = w.groups.size() > keep;
      if (blocks) trace_event(c, EventKind::mma_wait_blocked, c.now, w.id, x.inst_id, x.mask, 0xFFFFFFFFu, uint32_t(keep));
      while (w.groups.size() > keep) {
        Warp::Group& g = w.groups.front();
        until = std::max(until, g.complete_at);
        for (uint32_t r : g.regs) c.reg_pending[size_t(w.id) * c.nregs + r] = 0;
        trace_event(c, EventKind::mma_complete, g.complete_at, w.id, x.inst_id, x.mask);
        w.groups.erase(w.groups.begin());
      }
      x.latency = uint32_t(std::max<uint64_t>(until - c.now, 1));
      if (blocks) trace_event(c, EventKind::mma_wait_released, until, w.id, x.inst_id, x.mask, 0xFFFFFFFFu, uint32_t(keep));
      break;
    }
    default: break;
  }
}

}  // namespace gs::model
