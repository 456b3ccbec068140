// exec_tma, exec_wgmma: the asynchronous units. The TMA engine copies boxes between a
// tensor and shared memory (placing every byte where the swizzle puts it, facts §3-§5) and
// completes bytes on an mbarrier; the tensor cores read shared memory through wgmma
// descriptors exactly as decoded (facts §1), so a wrong descriptor gives the GPU's wrong
// numbers.
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "engine/layout/fragments.hpp"
#include "engine/layout/tma_box.hpp"
#include "engine/layout/wgmma_descriptor.hpp"
#include "engine/model/machine.hpp"
#include "engine/model/operands.hpp"
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

// Visits every element a box moves: (box coordinate, global coordinates, in bounds?).
template <class F>
void for_each_box_element(const ir::TensorMapDesc& d, const std::array<int32_t, 5>& start, F&& f) {
  const layout::TmaBox box = box_of(d);
  std::array<uint32_t, 5> ext{1, 1, 1, 1, 1};
  for (uint32_t i = 0; i < d.rank; ++i) ext[i] = layout::tma_box_extent(box, i);
  std::array<uint32_t, 5> bc{};
  uint32_t linear = 0;
  for (bc[4] = 0; bc[4] < ext[4]; ++bc[4])
    for (bc[3] = 0; bc[3] < ext[3]; ++bc[3])
      for (bc[2] = 0; bc[2] < ext[2]; ++bc[2])
        for (bc[1] = 0; bc[1] < ext[1]; ++bc[1])
          for (bc[0] = 0; bc[0] < ext[0]; ++bc[0], ++linear) {
            int64_t offset = 0;
            bool inside = true;
            for (uint32_t dim = 0; dim < d.rank; ++dim) {
              const int64_t g = int64_t(start[dim]) + int64_t(bc[dim]) * (dim == 0 ? 1 : d.element_strides[dim]);
              if (g < 0 || uint64_t(g) >= d.global_dim[dim]) inside = false;
              offset += g * (dim == 0 ? int64_t(ir::tensor_dtype_bytes(d.dtype)) : int64_t(d.global_strides_bytes[dim - 1]));
            }
            f(linear, inside, offset);
          }
}

// Where the e-th element of a box lands: boxes are packed densely in box order, then the
// swizzle XOR of the absolute address applies (facts §4 "Shared-memory image of a box", §3).
// The same placement as layout::tma_box_smem_image, without its per-element validation.
inline uint32_t box_element_address(uint32_t base, uint32_t e, uint32_t elem_bytes, layout::Swizzle sw) {
  const uint32_t logical = base + e * elem_bytes;
  return logical ^ (((logical >> 7) & layout::swizzle_mask(sw)) << 4);
}

}  // namespace

void exec_tma(ExecContext& x) {
  Cta& c = x.cta;
  const ir::Inst& in = x.inst;
  x.latency = timing::kAluLatency;
  if (in.op == Op::cp_async_bulk_commit_group || in.op == Op::cp_async_bulk_wait_group_read ||
      in.op == Op::prefetch_tensormap)
    return;  // stores complete at issue in the model, so there is nothing to wait for
  const bool load = in.op == Op::cp_async_bulk_tensor_load;
  const uint32_t rank = in.aux;
  const size_t map_pos = load ? 1 : 0;
  Sources src(x);
  for (uint32_t lane = 0; lane < 32; ++lane) {
    if (!(x.mask >> lane & 1)) continue;
    uint32_t pidx = 0;
    const ir::Param* p = tensor_map_of(x, src.get(map_pos, lane), &pidx);
    if (!p) {
      report(c, "bad-tensor-map", x.inst_id, x.warp.id, lane, src.get(map_pos, lane),
             "the tensor-map operand is not the address of a tensor-map kernel parameter");
      continue;
    }
    const ir::TensorMapDesc& d = p->tensor_map;
    std::array<int32_t, 5> coords{};
    for (uint32_t i = 0; i < rank && i < 5; ++i) coords[i] = int32_t(src.get(map_pos + 1 + i, lane));
    const ir::Operand& smem_op = load ? in.operands[0] : in.operands[1 + rank];
    const uint32_t smem = memory_address32(x, smem_op, lane);
    const uint32_t bytes = d.box_bytes();
    const uint32_t align = layout::swizzle_required_alignment(d.swizzle);
    if (smem % std::max<uint32_t>(align, 128) != 0)
      report(c, "misaligned-swizzle", x.inst_id, x.warp.id, lane, smem,
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
    job.issue = c.now;
    const uint64_t transfer = uint64_t(double(bytes) / timing::kTmaBytesPerCycle + 0.5);
    const uint64_t start = std::max(c.now, c.copy_free);
    c.copy_free = start + transfer;
    job.complete = c.copy_free + timing::kTmaLatency;
    c.stats->tma_transfers++;
    c.stats->tma_bytes += bytes;
    c.cost.tma_bytes += bytes;

    if (load) {
      job.mbar = memory_address32(x, in.operands[2 + rank], lane);
      auto it = c.mbars.find(job.mbar);
      if (it == c.mbars.end() || !it->second.initialized)
        report(c, "uninitialized-mbarrier", x.inst_id, x.warp.id, lane, job.mbar,
               fmt::format("the TMA load completes on the mbarrier at 0x{:X}, which was never initialised", job.mbar));
      else if (!it->second.init_fenced)
        report(c, "missing-init-fence", x.inst_id, x.warp.id, lane, job.mbar,
               fmt::format("the mbarrier at 0x{:X} was initialised without fence.mbarrier_init (or "
                           "fence.proxy.async) before the TMA engine used it: the copy engine may not see the init",
                           job.mbar));
      for (uint32_t w = (smem - timing::kSmemBaseAddress) / 4; w < (smem - timing::kSmemBaseAddress + bytes) / 4; ++w)
        c.smem_word_state[w].tma_pending = true;
    } else {
      // A store reads shared memory now: ordinary writes must have been fenced (facts §5).
      for (uint32_t w = (smem - timing::kSmemBaseAddress) / 4; w < (smem - timing::kSmemBaseAddress + bytes) / 4; ++w)
        if (c.smem_word_state[w].generic_since_fence) {
          report(c, "missing-proxy-fence", x.inst_id, x.warp.id, lane, smem + w * 4,
                 "shared memory written by st.shared/stmatrix is read by a TMA store without fence.proxy.async");
          break;
        }
      const layout::TmaBox box = box_of(d);
      std::vector<uint8_t>* buf = c.launch.global->buffers[buffer_of(d.source)];
      const uint32_t eb = box.elem_bytes;
      for_each_box_element(d, coords, [&](uint32_t e, bool inside, int64_t off) {
        if (!inside || !buf || off < 0 || uint64_t(off) + eb > buf->size()) return;  // stores clip
        const uint32_t at = box_element_address(smem, e, eb, d.swizzle);
        std::memcpy(buf->data() + off, c.smem.data() + (at - timing::kSmemBaseAddress), eb);
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
      c.trace->tma.push_back(t);
      job.trace_index = uint32_t(c.trace->tma.size() - 1);
      trace_event(c, EventKind::tma_issue, c.now, x.warp.id, x.inst_id, 1u << lane, job.trace_index, bytes);
    }
    if (load) {
      c.tma_jobs.push_back(job);
      c.tma_pending.push_back({job.complete, uint32_t(c.tma_jobs.size() - 1)});
    }
  }
}

void complete_tma(Cta& c, const PendingTma& p) {
  const TmaJob& job = c.tma_jobs[p.record];
  const ir::Param& param = c.launch.kernel->params[job.param];
  const ir::TensorMapDesc& d = param.tensor_map;
  const layout::TmaBox box = box_of(d);
  const std::vector<uint8_t>* buf = c.launch.global->buffers[buffer_of(d.source)];
  const uint32_t eb = box.elem_bytes;
  for_each_box_element(d, job.coords, [&](uint32_t e, bool inside, int64_t off) {
    uint8_t* dst = c.smem.data() + (box_element_address(job.smem_dst, e, eb, d.swizzle) - timing::kSmemBaseAddress);
    if (inside && buf && off >= 0 && uint64_t(off) + eb <= buf->size())
      std::memcpy(dst, buf->data() + off, eb);
    else
      std::memset(dst, 0, eb);  // out-of-bounds elements are zero-filled (oobFill NONE)
  });
  for (uint32_t w = (job.smem_dst - timing::kSmemBaseAddress) / 4;
       w < (job.smem_dst - timing::kSmemBaseAddress + job.bytes) / 4; ++w) {
    SmemWord& s = c.smem_word_state[w];
    s.tma_pending = false;
    s.written = true;
    s.writer_warp = SmemWord::kAsync;
    s.generic_since_fence = false;
  }
  if (c.trace && job.trace_index != 0xFFFFFFFFu)
    trace_event(c, EventKind::tma_complete, p.complete_at, job.warp, job.inst, 0, job.trace_index, job.bytes);
  auto it = c.mbars.find(job.mbar);
  if (it == c.mbars.end()) return;
  it->second.tx -= job.bytes;
  trace_mbar(c, EventKind::mbar_complete_tx, p.complete_at, job.warp, job.inst, job.mbar, it->second, job.bytes);
  mbarrier_check_phase(c, job.mbar, p.complete_at);
}

// ---- wgmma ------------------------------------------------------------------------------------

namespace {

// The f32 accumulator map of m64nNk16 for one warp's 32 lanes: (lane, v) -> (row, col).
const std::vector<layout::Coord>& accumulator_map(uint32_t n) {
  static std::array<std::vector<layout::Coord>, 33> cache;
  std::vector<layout::Coord>& m = cache[n / 8];
  if (m.empty()) {
    const layout::FragmentMap f = layout::wgmma_accumulator_layout(int(n));
    m.assign(f.table.begin(), f.table.end());  // threads 0..127, values 0..n/2-1
  }
  return m;
}

// Reads the bf16 element the tensor core sees at (row, k) of an operand under a descriptor.
float read_operand_element(ExecContext& x, const layout::WgmmaDescriptor& d, uint32_t row, uint32_t k, bool k_major,
                           bool* bad) {
  uint32_t addr = 0;
  try {
    addr = layout::wgmma_descriptor_smem_address(d, row, 2 * k, k_major);
  } catch (const std::exception& e) {
    *bad = true;
    report(x.cta, "bad-descriptor", x.inst_id, x.warp.id, 0xFFFFFFFFu, 0,
           std::string("the wgmma descriptor cannot be followed: ") + e.what());
    return 0.0f;
  }
  Cta& c = x.cta;
  if (addr < timing::kSmemBaseAddress || addr + 2 > timing::kSmemBaseAddress + c.smem.size()) {
    *bad = true;
    report(c, "out-of-bounds-shared", x.inst_id, x.warp.id, 0xFFFFFFFFu, addr,
           fmt::format("the wgmma descriptor points at 0x{:X}, outside the CTA's shared memory", addr));
    return 0.0f;
  }
  const uint32_t off = addr - timing::kSmemBaseAddress;
  const SmemWord& s = c.smem_word_state[off / 4];
  if (s.tma_pending)
    report(c, "tma-race", x.inst_id, x.warp.id, 0xFFFFFFFFu, addr,
           fmt::format("wgmma reads shared address 0x{:X} before the TMA load writing it has completed: wait on the "
                       "stage's mbarrier first",
                       addr));
  else if (s.generic_since_fence)
    report(c, "missing-proxy-fence", x.inst_id, x.warp.id, 0xFFFFFFFFu, addr,
           fmt::format("wgmma (async proxy) reads 0x{:X}, written by ordinary stores without fence.proxy.async", addr));
  else if (!s.written)
    report(c, "uninitialized-shared", x.inst_id, x.warp.id, 0xFFFFFFFFu, addr,
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

void wgmma_mma(ExecContext& x) {
  Cta& c = x.cta;
  Warp& w = x.warp;
  const ir::Inst& in = x.inst;
  const uint32_t n = in.aux, nacc = n / 2;
  Sources src(x);
  if (x.mask != 0xFFFFFFFFu)
    report(c, "wgmma-divergent", x.inst_id, w.id, 0xFFFFFFFFu, 0,
           "wgmma.mma_async.sync.aligned must be executed by all 32 lanes of every warp of the warpgroup");
  if (!w.wgmma_fenced)
    report(c, "missing-wgmma-fence", x.inst_id, w.id, 0xFFFFFFFFu, 0,
           w.wgmma_any ? "the accumulators were touched by ordinary instructions since the last wgmma: issue "
                         "wgmma.fence before this wgmma"
                       : "the first wgmma of the warpgroup needs a wgmma.fence before it (it orders earlier register "
                         "accesses before the tensor cores use them)");
  const uint32_t lane0 = uint32_t(std::countr_zero(x.mask | 0x80000000u));
  const uint64_t a_bits = src.get(nacc, lane0), b_bits = src.get(nacc + 1, lane0);
  for (uint32_t l = 0; l < 32; ++l)
    if ((x.mask >> l & 1) && (src.get(nacc, l) != a_bits || src.get(nacc + 1, l) != b_bits)) {
      report(c, "wgmma-descriptor-divergent", x.inst_id, w.id, l, 0,
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
  std::array<std::array<float, 16>, 16> A{};
  for (uint32_t r = 0; r < 16; ++r) read_operand_row(x, da, row0 + r, a_k_major, sa, A[r], &bad);
  std::vector<std::array<float, 16>> B(n);
  for (uint32_t col = 0; col < n; ++col) read_operand_row(x, db, col, b_k_major, sb, B[col], &bad);

  const std::vector<layout::Coord>& map = accumulator_map(n);
  const size_t slot0 = size_t(w.id) * c.nregs;
  if (scale_d)  // accumulating reads the old D: it must have been written (by a wgmma or a mov)
    for (uint32_t v = 0; v < nacc; ++v)
      if ((c.written[slot0 + in.operands[v].id] & x.mask) != x.mask) {
        report(c, "uninitialized-register", x.inst_id, w.id, 0xFFFFFFFFu, 0,
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
      // Products of bf16 values are exact in double; the sum of 16 is rounded once into f32.
      // bf16 x bf16 products are exact in float (8-bit significands); summed in double.
      double sum = 0.0;
      const auto& ar = A[uint32_t(rc.row) - row0];
      const auto& bc = B[uint32_t(rc.col)];
      for (uint32_t k = 0; k < 16; ++k) sum += double(ar[k] * bc[k]);
      const float old = scale_d ? as_f32(d[l]) : 0.0f;
      d[l] = from_f32(float(double(old) + sum));
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
  if (c.trace) {
    MmaOp op;
    op.n = n;
    op.a_desc = a_bits;
    op.b_desc = b_bits;
    op.scale_d = scale_d;
    op.group = uint32_t(w.groups.size());
    op.issue_cycle = c.now;
    op.complete_cycle = c.tensor_free + timing::kWgmmaPipelineLatency;
    c.trace->mma.push_back(op);
    trace_event(c, EventKind::mma_issue, c.now, w.id, x.inst_id, x.mask, uint32_t(c.trace->mma.size() - 1), n);
    if (c.launch.record_registers)
      for (uint32_t v = 0; v < nacc; ++v) {
        RegWrite rw{in.operands[v].id, uint32_t(c.trace->values.size()), 1};
        const uint64_t* lanes = c.reg_lanes(w.id, in.operands[v].id);
        for (uint32_t l = 0; l < 32; ++l) c.trace->values.push_back(uint32_t(lanes[l]));
        c.trace->regs.push_back(rw);
        trace_event(c, EventKind::reg_write, c.now, w.id, x.inst_id, x.mask, uint32_t(c.trace->regs.size() - 1),
                    in.operands[v].id);
      }
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
      break;
    case Op::wgmma_wait_group: {
      const size_t keep = size_t(x.inst.operands[0].imm);
      uint64_t until = c.now;
      while (w.groups.size() > keep) {
        Warp::Group& g = w.groups.front();
        until = std::max(until, g.complete_at);
        for (uint32_t r : g.regs) c.reg_pending[size_t(w.id) * c.nregs + r] = 0;
        trace_event(c, EventKind::mma_complete, g.complete_at, w.id, x.inst_id, x.mask);
        w.groups.erase(w.groups.begin());
      }
      x.latency = uint32_t(std::max<uint64_t>(until - c.now, 1));
      break;
    }
    default: break;
  }
}

}  // namespace gs::model
