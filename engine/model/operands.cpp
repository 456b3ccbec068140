#include "engine/model/operands.hpp"
#include "engine/model/tcgen05.hpp"

#include <bit>
#include <cstring>

#include <fmt/format.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "engine/model/values.hpp"
#include "engine/model/exec_context.hpp"

namespace gs::model {

uint64_t special_value(const Cta& cta, ir::Special s, uint32_t warp, uint32_t lane) {
  const ir::LaunchShape& L = cta.launch.kernel->launch;
  const uint32_t t = warp * 32 + lane;  // linear thread index in the CTA
  const uint32_t bx = L.block[0], by = L.block[1];
  const auto& id = cta.launch.ctaid;
  switch (s) {
    case ir::Special::tid_x: return t % bx;
    case ir::Special::tid_y: return (t / bx) % by;
    case ir::Special::tid_z: return t / (bx * by);
    case ir::Special::ntid_x: return L.block[0];
    case ir::Special::ntid_y: return L.block[1];
    case ir::Special::ntid_z: return L.block[2];
    case ir::Special::ctaid_x: return id[0];
    case ir::Special::ctaid_y: return id[1];
    case ir::Special::ctaid_z: return id[2];
    case ir::Special::nctaid_x: return L.grid[0];
    case ir::Special::nctaid_y: return L.grid[1];
    case ir::Special::nctaid_z: return L.grid[2];
    case ir::Special::laneid: return lane;
    case ir::Special::warpid: return warp;
    case ir::Special::smid: return cta.launch.cta_linear % timing::kSms;
    case ir::Special::clock: return uint32_t(cta.now);
    case ir::Special::clock64: return cta.now;
    case ir::Special::cluster_ctarank:
      return (id[0] % L.cluster[0]) + L.cluster[0] * ((id[1] % L.cluster[1]) + L.cluster[1] * (id[2] % L.cluster[2]));
    case ir::Special::cluster_nctarank: return L.cluster[0] * L.cluster[1] * L.cluster[2];
    case ir::Special::cluster_ctaid_x: return id[0] % L.cluster[0];
    case ir::Special::cluster_ctaid_y: return id[1] % L.cluster[1];
    case ir::Special::cluster_ctaid_z: return id[2] % L.cluster[2];
    case ir::Special::clusterid_x: return id[0] / L.cluster[0];
    case ir::Special::clusterid_y: return id[1] / L.cluster[1];
    case ir::Special::clusterid_z: return id[2] / L.cluster[2];
    case ir::Special::dynamic_smem_size:
      return cta.launch.kernel->dynamic_smem ? cta.launch.kernel->smem_bytes() : 0;
    case ir::Special::globaltimer:  // the modeled cycle in nanoseconds of the kernel's machine
      return uint64_t(double(cta.now) * 1e9 / timing::machine_for(cta.launch.kernel->target).clock_hz);
    case ir::Special::count_: break;
  }
  return 0;
}

void check_register_read_slow(ExecContext& x, uint32_t reg, uint32_t mask) {
  Cta& c = x.cta;
  const size_t slot = size_t(x.warp.id) * c.nregs + reg;
  if ((c.written[slot] & mask) != mask) {
    const uint32_t lanes = mask & ~c.written[slot];
    report(c, HazardKind::uninitialized_register, x.inst_id, x.warp.id, uint32_t(std::countr_zero(lanes)), 0,
           fmt::format("%{} is read by {} lane(s) before anything wrote it: its value is undefined on the GPU",
                       c.launch.kernel->regs[reg].name, std::popcount(lanes)));
  }
  if (c.wgmma_acc[slot] == kTmemLoadDestination) {
    if (c.reg_pending[slot])
      report(c, HazardKind::tmem_ld_before_wait, x.inst_id, x.warp.id, kNone, 0,
             fmt::format("%{} is read before tcgen05.wait::ld: the value tcgen05.ld loads into it may not have "
                         "arrived yet",
                         c.launch.kernel->regs[reg].name));
  } else if (c.wgmma_acc[slot]) {
    if (c.reg_pending[slot])
      report(c, HazardKind::wgmma_register_race, x.inst_id, x.warp.id, kNone, 0,
             fmt::format("%{} belongs to a wgmma that is still in flight: add wgmma.wait_group before touching "
                         "the accumulators",
                         c.launch.kernel->regs[reg].name));
    x.warp.wgmma_fenced = false;  // ordinary access: the next wgmma needs a wgmma.fence
  }
}

void note_register_write_slow(ExecContext& x, uint32_t reg, uint32_t mask) {
  Cta& c = x.cta;
  const size_t slot = size_t(x.warp.id) * c.nregs + reg;
  c.written[slot] |= mask;
  if (c.wgmma_acc[slot] == kTmemLoadDestination) {
    if (c.reg_pending[slot])
      report(c, HazardKind::tmem_ld_before_wait, x.inst_id, x.warp.id, kNone, 0,
             fmt::format("%{} is written before tcgen05.wait::ld: the load still in flight may overwrite it",
                         c.launch.kernel->regs[reg].name));
  } else if (c.wgmma_acc[slot]) {
    if (c.reg_pending[slot])
      report(c, HazardKind::wgmma_register_race, x.inst_id, x.warp.id, kNone, 0,
             fmt::format("%{} is written while a wgmma still owns it: add wgmma.wait_group first",
                         c.launch.kernel->regs[reg].name));
    x.warp.wgmma_fenced = false;
  }
  if (c.trace && c.launch.record_registers) record_register_write(c, x.warp.id, x.inst_id, reg, mask);
}

namespace {

// The low 32-bit words of a whole warp's lanes, in lane order (a 32-bit register's values).
void pack_low_words(const uint64_t* lanes, uint32_t* out) {
  for (uint32_t l = 0; l < 32; ++l) out[l] = uint32_t(lanes[l]);
}
#if defined(__x86_64__) && defined(__GNUC__)
// The same, 8 lanes per step: the low halves of two 4-lane vectors, put in order by one
// shuffle (within each 128-bit half) and one cross-half permute.
__attribute__((target("avx2"))) void pack_low_words_avx2(const uint64_t* lanes, uint32_t* out) {
  for (uint32_t l = 0; l < 32; l += 8) {
    const __m256 a = _mm256_loadu_ps(reinterpret_cast<const float*>(lanes + l));
    const __m256 b = _mm256_loadu_ps(reinterpret_cast<const float*>(lanes + l + 4));
    const __m256 lows = _mm256_shuffle_ps(a, b, 0x88);  // a0 a1 b0 b1 | a2 a3 b2 b3
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + l),
                        _mm256_permute4x64_epi64(_mm256_castps_si256(lows), 0xD8));
  }
}
#else
void pack_low_words_avx2(const uint64_t* lanes, uint32_t* out) { pack_low_words(lanes, out); }
#endif

}  // namespace

// A traced SIMT CTA writes a register on most of its issues, so this runs about once per
// warp-instruction of the traced CTA: the three tables get their room first (Table::make_room,
// whose test is inline and which only grows them now and then), and the records are then appended
// with no further capacity checks than push_back's own. A whole warp's write whose values
// step evenly from lane to lane is stored as base and step (RegWrite::Encoding::affine).
void record_register_write(Cta& c, uint32_t warp, uint32_t inst, uint32_t reg, uint32_t mask) {
  Trace& t = *c.trace;
  const uint32_t words = c.program->reg_words[reg];
  const uint64_t* lanes = c.reg_lanes(warp, reg);
  t.values.make_room(64);
  t.regs.make_room(1);
  t.events.make_room(1);
  const uint32_t offset = uint32_t(t.values.size());
  RegWrite::Encoding encoding = RegWrite::Encoding::packed;
  // The written lanes' values, packed in lane order, low word first, then appended in one
  // copy (a push_back per value would test the capacity per value; resizing first would
  // zero-fill the words before they are written).
  uint32_t packed[64];
  uint32_t n = 0;
  uint64_t step = 0;
  const uint64_t keep = words == 2 ? ~uint64_t(0) : 0xFFFFFFFFu;
  const bool whole_warp = mask == kAllLanes;
  if (whole_warp && (c.avx2 ? lanes_step_evenly_avx2(lanes, keep, &step) : lanes_step_evenly(lanes, keep, &step))) {
    encoding = RegWrite::Encoding::affine;
    const uint64_t base = lanes[0];
    packed[0] = uint32_t(base);
    packed[words] = uint32_t(step);
    if (words == 2) {
      packed[1] = uint32_t(base >> 32);
      packed[3] = uint32_t(step >> 32);
    }
    n = 2 * words;
  } else if (whole_warp && words == 2 && std::endian::native == std::endian::little) {
    std::memcpy(packed, lanes, sizeof(packed));  // a whole warp's 64-bit register is that already
    n = 64;
  } else if (whole_warp && words == 1) {
    if (c.avx2) pack_low_words_avx2(lanes, packed);
    else pack_low_words(lanes, packed);
    n = 32;
  } else {
    uint32_t* out = packed;
    for (uint32_t m = mask; m; m &= m - 1) {
      const uint64_t v = lanes[std::countr_zero(m)];
      *out++ = uint32_t(v);
      if (words == 2) *out++ = uint32_t(v >> 32);
    }
    n = uint32_t(out - packed);
  }
  t.values.append(packed, packed + n);
  t.regs.push_back(RegWrite{reg, offset, uint8_t(words), encoding, mask});
  t.events.push_back(Event{c.now, EventKind::reg_write, uint16_t(c.launch.trace_warp_base + warp), inst, mask,
                           uint32_t(t.regs.size() - 1), reg, uint8_t(c.launch.cluster_rank)});
}

Sources::Sources(ExecContext& x) : x_(x) {
  const ir::Inst& in = x.inst;
  const Cta& c = x.cta;
  for (size_t i = in.ndst; i < in.operands.size() && i < kMaxOperands; ++i) {
    const ir::Operand& o = in.operands[i];
    Slot& s = slots_[i];
    s = Slot{nullptr, 0};
    switch (o.kind) {
      case ir::OperandKind::reg:
        check_register_read(x, o.id, x.mask);
        s.lanes = x.cta.reg_lanes(x.warp.id, o.id);
        break;
      case ir::OperandKind::imm: s.value = uint64_t(o.imm); break;
      case ir::OperandKind::fimm:
        s.value = in.type == ir::Type::f64 ? from_f64(o.fimm) : from_f32(float(o.fimm));
        break;
      case ir::OperandKind::special: {
        const auto sp = ir::Special(o.id);
        const bool per_lane = sp == ir::Special::tid_x || sp == ir::Special::tid_y || sp == ir::Special::tid_z ||
                              sp == ir::Special::laneid;
        if (per_lane) {
          for (uint32_t l = 0; l < 32; ++l) scratch_[l] = special_value(c, sp, x.warp.id, l);
          s.lanes = scratch_.data();
        } else {
          s.value = special_value(c, sp, x.warp.id, 0);
        }
        break;
      }
      case ir::OperandKind::smem_sym:
        s.value = timing::kSmemBaseAddress + c.launch.kernel->smem[o.id].offset + uint64_t(o.imm);
        break;
      case ir::OperandKind::param_sym: s.value = kParamBase + kParamStride * o.id; break;
      default: break;  // memory operands are resolved by the memory ops themselves
    }
  }
}

void Sources::wrote(uint32_t reg) { note_register_write(x_, reg, x_.mask); }

}  // namespace gs::model
