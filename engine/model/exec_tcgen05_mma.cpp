// tcgen05.mma kind::f16 (bf16 x bf16 -> f32), facts §9.2: one thread issues the MMA of a
// whole tile, D in tensor memory. The model computes it at issue, in the same order of
// operations as wgmma (exec_wgmma.cpp), and marks D's columns pending until a tcgen05.commit
// covering it arrives (exec_tcgen05.cpp).
//
//   cta_group::1, M = 128: D row i -> TMEM lane i, column j -> TMEM column (d.col + j);
//                           A rows 0..127 and B's N columns from this CTA's shared memory.
//   cta_group::2, M = 256: CTA (rank & ~1) + p holds rows 128p..128p+127 of A and D (in its
//                           own TMEM lanes 0..127) and columns p*N/2..+N/2-1 of B; each CTA's
//                           D has all N columns. [third-party docs: NVIDIA tilus "2-CTA
//                           cluster", mlc.ai; UNCONFIRMED on hardware, facts table]
// The lane layouts of M = 64 and cta_group::2 M = 128 are not documented: the model refuses
// them (unsupported) rather than guess; so is the layout of A in tensor memory, which is why
// the [a_tmem] forms are not_modelled (ops.def).
#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/ir/signature.hpp"
#include "engine/layout/op_traits.hpp"
#include "engine/layout/umma_descriptor.hpp"
#include "engine/model/exec_context.hpp"
#include "engine/model/operands.hpp"
#include "engine/model/tcgen05.hpp"
#include "engine/model/tensor_core.hpp"
#include "engine/model/values.hpp"

namespace gs::model {

using ir::Op;

namespace {

constexpr uint32_t kRowsPerCta = 128;

// The sm_100 smem descriptor as the placement rule of layout::wgmma_descriptor_address
// reads it (same start/LBO/SBO/base fields; only the layout codes differ, facts §9.2).
// False, after reporting, for a word the hardware would reject or one the model cannot place.
bool placeable(ExecContext& x, char operand, uint64_t bits, layout::WgmmaDescriptor* out) {
  layout::UmmaSmemDescriptor d;
  try {
    d = layout::decode_umma_smem_descriptor(bits);
  } catch (const std::invalid_argument& e) {
    report(x.cta, HazardKind::bad_tcgen05_descriptor, x.inst_id, x.warp.id, kNone, 0,
           fmt::format("the {} shared-memory descriptor 0x{:016X} is not an sm_100 descriptor: {} (an sm_90 wgmma "
                       "descriptor has bits 46-48 = 0 and its swizzle at bits 62-63); the products are NaN",
                       operand, bits, e.what()));
    return false;
  }
  layout::Swizzle sw = layout::Swizzle::none;
  switch (d.layout) {
    case layout::UmmaLayout::none: sw = layout::Swizzle::none; break;
    case layout::UmmaLayout::b32: sw = layout::Swizzle::b32; break;
    case layout::UmmaLayout::b64: sw = layout::Swizzle::b64; break;
    case layout::UmmaLayout::b128: sw = layout::Swizzle::b128; break;
    case layout::UmmaLayout::b128_base32b:
      report(x.cta, HazardKind::unsupported, x.inst_id, x.warp.id, kNone, 0,
             fmt::format("the {} descriptor uses layout 128B_base32B, which the model does not place", operand));
      return false;
  }
  if (d.lbo_absolute) {
    report(x.cta, HazardKind::unsupported, x.inst_id, x.warp.id, kNone, 0,
           fmt::format("the {} descriptor sets bit 52 (absolute LBO), which the model does not place", operand));
    return false;
  }
  *out = {d.start_address, d.leading_byte_offset, d.stride_byte_offset, d.base_offset, sw};
  return true;
}

struct MmaShape {
  layout::UmmaInstrDesc desc;
  uint32_t ctas = 1;  // 2 for cta_group::2
};

// The instruction descriptor, decoded and checked against the shapes the form takes.
bool decode_shape(ExecContext& x, uint32_t bits, bool pair, MmaShape* out) {
  try {
    out->desc = layout::decode_umma_instr_desc(bits);
    layout::validate_umma_f16_shape(pair ? 2 : 1, out->desc.m, out->desc.n);
  } catch (const std::invalid_argument& e) {
    report(x.cta, HazardKind::bad_tcgen05_descriptor, x.inst_id, x.warp.id, kNone, bits,
           fmt::format("the instruction descriptor 0x{:08X}: {}; the MMA did nothing", bits, e.what()));
    return false;
  }
  const layout::UmmaInstrDesc& d = out->desc;
  if (d.a_format != layout::UmmaABFormat::bf16 || d.b_format != layout::UmmaABFormat::bf16 ||
      d.d_format != layout::UmmaDFormat::f32) {
    report(x.cta, HazardKind::unsupported, x.inst_id, x.warp.id, kNone, bits,
           fmt::format("the instruction descriptor 0x{:08X} asks for {}: the model runs only bf16 x bf16 -> f32", bits,
                       layout::describe_umma_instr_desc(bits)));
    return false;
  }
  out->ctas = pair ? 2 : 1;
  if (d.m / out->ctas != kRowsPerCta) {
    report(x.cta, HazardKind::unsupported, x.inst_id, x.warp.id, kNone, bits,
           fmt::format("tcgen05.mma cta_group::{} M={}: the model runs M=128 (cta_group::1) and M=256 (cta_group::2), "
                       "whose tensor-memory lane layouts are documented",
                       out->ctas, d.m));
    return false;
  }
  return true;
}

// The CTAs of the MMA: this one, or the pair (rank & ~1, rank | 1) of cta_group::2.
bool mma_ctas(ExecContext& x, uint32_t ctas, std::array<Cta*, 2>& out) {
  Cta& c = x.cta;
  out = {&c, &c};
  if (ctas == 1) return true;
  const Cluster* cl = c.launch.cluster;
  const uint32_t even = c.launch.cluster_rank & ~1u;
  if (!cl || cl->ctas.size() < even + 2) {
    report(c, HazardKind::unsupported, x.inst_id, x.warp.id, kNone, 0,
           "tcgen05.mma.cta_group::2 needs a cluster of (a multiple of) 2 CTAs: its tile is split over a CTA pair");
    return false;
  }
  out = {cl->ctas[even], cl->ctas[even + 1]};
  return true;
}

// One thread's MMA.
void issue_one(ExecContext& x, Sources& src, uint32_t lane) {
  Cta& c = x.cta;
  Warp& w = x.warp;
  const ir::Inst& in = x.inst;
  const bool pair = in.op == Op::tcgen05_mma_cta_pair;
  const ir::tmem_mma_operands ops = ir::tmem_mma_operands_of(in);
  const uint32_t d_taddr = memory_address32(x, ops.d, lane);
  const uint64_t a_bits = src.get(ops.a_desc_at, lane);
  const uint64_t b_bits = src.get(ops.b_desc_at, lane);
  const uint32_t idesc = uint32_t(src.get(ops.idesc_at, lane));
  const bool accumulate = src.get(ops.enable_d_at, lane) != 0;
  MmaShape shape;
  std::array<Cta*, 2> ctas{};
  if (!decode_shape(x, idesc, pair, &shape) || !mma_ctas(x, shape.ctas, ctas)) return;
  const layout::UmmaInstrDesc& id = shape.desc;
  const uint32_t n = id.n, n_per_cta = n / shape.ctas, col0 = tmem_column(d_taddr);
  if (tmem_lane(d_taddr) != 0) {
    report(c, HazardKind::tmem_unallocated, x.inst_id, w.id, lane, d_taddr,
           fmt::format("D's TMEM address 0x{:08X} starts at lane {}: an M=128 accumulator covers lanes 0..127, so the "
                       "lane field must be 0",
                       d_taddr, tmem_lane(d_taddr)));
    return;
  }
  for (uint32_t p = 0; p < shape.ctas; ++p)
    if (!tmem_columns_allocated(*ctas[p], col0, n)) {
      report(c, HazardKind::tmem_unallocated, x.inst_id, w.id, lane, d_taddr,
             fmt::format("tcgen05.mma writes D to columns {}..{} of CTA rank {}'s tensor memory, which are not inside "
                         "one tcgen05.alloc block",
                         col0, col0 + n - 1, ctas[p]->launch.cluster_rank));
      return;
    }
  layout::WgmmaDescriptor da, db;
  const bool a_ok = placeable(x, 'A', a_bits, &da);
  const bool b_ok = placeable(x, 'B', b_bits, &db);
  const float sa = id.negate_a ? -1.0f : 1.0f, sb = id.negate_b ? -1.0f : 1.0f;
  const bool a_k = id.a_major == layout::UmmaMajor::k, b_k = id.b_major == layout::UmmaMajor::k;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ReadFaults faults;
  faults.reader = &x.warp;  // the pair's other CTA's bytes must have been released to this warp
  faults.reader_cta = &x.cta;
  // B (K x N, column index innermost, once for all of the tile's row blocks): CTA p of the pair
  // supplies columns p*N/2 .. +N/2-1; in float or double as BRows (b_rows.hpp) says.
  alignas(64) float columns[256][16];
  for (uint32_t p = 0; p < shape.ctas; ++p) {
    if (b_ok) read_operand_rows(*ctas[p], db, 'B', 0, n_per_cta, b_k, sb, columns + p * n_per_cta, faults);
    else std::fill(&columns[p * n_per_cta][0], &columns[p * n_per_cta][0] + 16 * n_per_cta, nan);
  }
  const SumsBuild build = fastest_sums_build();
  BRows B;
  B.fill(columns, n, integer_bound(&columns[0][0], 16 * size_t(n), build));
  for (uint32_t p = 0; p < shape.ctas; ++p) {
    Cta& t = *ctas[p];
    for (uint32_t row0 = 0; row0 < kRowsPerCta; row0 += 16) {
      alignas(64) float rows[16][16];
      if (a_ok) read_operand_rows(t, da, 'A', row0, 16, a_k, sa, rows, faults);
      else std::fill(&rows[0][0], &rows[0][0] + 16 * 16, nan);
      uint32_t* const cells = t.tmem.cells.data() + size_t(row0) * TensorMemory::kColumns + col0;
      // Small integers: in float (where it says yes); otherwise in double.
      if (tmem_accumulate_integers(rows, B.float_rows(), B.row_bound(), n, cells, TensorMemory::kColumns, accumulate, build))
        continue;
      alignas(64) double A[16][16];
      for (uint32_t r = 0; r < 16; ++r)
        for (uint32_t k = 0; k < 16; ++k) A[r][k] = rows[r][k];
      tmem_accumulate(A, B.in_double(), n, cells, TensorMemory::kColumns, accumulate, build);
    }
  }
  report_read_faults(x, faults, "tcgen05.mma");
  // The traced CTA records the tensor core's first batch of reads of A and B from its own
  // shared memory, as the op traits' read pattern gives them (tensor_reads.cpp).
  uint32_t a_read = kNone, b_read = kNone;
  if (c.trace) {
    const layout::CoreMatrixRead& read = *layout::op_traits(in.op).smem_read;
    if (a_ok) record_tensor_reads(c, {in.op, 'A', a_bits, da, a_k, read.a_first_row(w.id), read.a_rows(kRowsPerCta), &a_read}, false);
    if (b_ok) record_tensor_reads(c, {in.op, 'B', b_bits, db, b_k, read.b_first_row(w.id, n_per_cta), read.b_rows(n_per_cta), &b_read}, false);
  }
  // Timing: the tile occupies the tensor core of each SM of the MMA for
  // tcgen05_busy_cycles; the columns stay pending until a commit's arrival.
  const uint64_t busy = timing::tcgen05_busy_cycles(kRowsPerCta, n);
  const uint64_t start = std::max(c.now, c.tensor_free);
  for (uint32_t p = 0; p < shape.ctas; ++p) {
    // The trace: one record per CTA whose TMEM receives D (the issuing warp only in its own).
    trace_tmem(*ctas[p], c.now, ctas[p] == &c ? w.id : kNoWarp, x.inst_id, 1u << lane,
               {.kind = TmemOpKind::mma, .column = col0, .lanes = kRowsPerCta, .columns = n,
                .cta_group = uint8_t(shape.ctas), .a_read = ctas[p] == &c ? a_read : kNone,
                .b_read = ctas[p] == &c ? b_read : kNone, .overwrite = !accumulate, .issue_cycle = start,
                .complete_cycle = start + busy + timing::kWgmmaPipelineLatency});
    ctas[p]->tensor_free = start + busy;
    tmem_mma_writes(x, *ctas[p], col0, n);
    for (uint32_t j = 0; j < n; ++j) ctas[p]->tmem.pending[col0 + j]++;
    w.tmem_unreleased.push_back(uint32_t(c.tmem_mmas.size()));
    c.tmem_mmas.push_back({ctas[p], col0, n});
  }
  c.cost.tensor_busy_cycles += busy;
  w.tmem_mma_complete_at = std::max(w.tmem_mma_complete_at, start + busy + timing::kWgmmaPipelineLatency);
  c.stats->mma_ops++;
}

}  // namespace

// Each active thread issues its own MMA (tcgen05.mma is not .sync.aligned): kernels issue it
// from one elected thread, and 32 threads issuing it accumulate 32 products.
void tmem_mma(ExecContext& x) {
  Sources src(x);
  x.latency = timing::kAluLatency;
  for (uint32_t l = 0; l < 32; ++l)
    if (x.mask >> l & 1) issue_one(x, src, l);
}

}  // namespace gs::model
