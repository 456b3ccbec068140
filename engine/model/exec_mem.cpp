// exec_memory: ld/st of parameters, global and shared memory, with bounds, alignment,
// initialisation and race checks, and the shared-memory bank model of every access.
#include <algorithm>
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "engine/layout/banks.hpp"
#include "engine/model/decode.hpp"
#include "engine/model/machine.hpp"
#include "engine/model/operands.hpp"

namespace gs::model {

using ir::Op;

void report(Cta& cta, std::string kind, uint32_t inst, uint32_t warp, uint32_t lane, uint64_t address,
            std::string detail) {
  if (!cta.hazards) return;
  for (const Hazard& h : *cta.hazards)
    if (h.kind == kind && h.inst == inst) return;  // first occurrence of each (kind, instruction)
  Hazard h{std::move(kind), inst, warp, lane, address, cta.now, std::move(detail)};
  if (cta.trace) {
    cta.trace->hazards.push_back(h);
    trace_event(cta, EventKind::hazard, cta.now, warp, inst, 0, uint32_t(cta.trace->hazards.size() - 1));
  }
  cta.hazards->push_back(std::move(h));
}

uint32_t memory_address32(ExecContext& x, const ir::Operand& o, uint32_t lane) {
  switch (o.kind) {
    case ir::OperandKind::mem_reg: return uint32_t(x.cta.reg(x.warp.id, o.id, lane) + uint64_t(o.imm));
    case ir::OperandKind::mem_smem:
      return uint32_t(timing::kSmemBaseAddress + x.cta.launch.kernel->smem[o.id].offset + o.imm);
    default: return 0;
  }
}

uint64_t memory_address64(ExecContext& x, const ir::Operand& o, uint32_t lane) {
  if (o.kind == ir::OperandKind::mem_reg) return x.cta.reg(x.warp.id, o.id, lane) + uint64_t(o.imm);
  return memory_address32(x, o, lane);
}

uint8_t* smem_ptr(ExecContext& x, uint32_t addr, uint32_t bytes, uint32_t lane, bool store) {
  Cta& c = x.cta;
  const uint64_t end = uint64_t(timing::kSmemBaseAddress) + c.smem.size();
  if (addr < timing::kSmemBaseAddress || uint64_t(addr) + bytes > end) {
    report(c, "out-of-bounds-shared", x.inst_id, x.warp.id, lane, addr,
           fmt::format("shared address 0x{:X} is outside the CTA's {} B of shared memory (0x{:X}..0x{:X})", addr,
                       c.smem.size(), timing::kSmemBaseAddress, end));
    return nullptr;
  }
  // Accesses are aligned to their size; block transfers (TMA boxes) to 16 bytes.
  const uint32_t align = std::min<uint32_t>(std::bit_floor(std::max<uint32_t>(bytes, 1)), 16);
  if (addr % align != 0)
    report(c, "misaligned", x.inst_id, x.warp.id, lane, addr,
           fmt::format("a {}-byte shared access at 0x{:X} is not {}-byte aligned", bytes, addr, align));
  return c.smem.data() + (addr - timing::kSmemBaseAddress);
}

namespace {

// Fixed-size copies (the compiler turns them into single moves; a variable-size memcpy
// would be a library call per lane).
inline uint64_t load_bytes(const uint8_t* p, uint32_t n) {
  switch (n) {
    case 1: return *p;
    case 2: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    default: { uint64_t v; std::memcpy(&v, p, 8); return v; }
  }
}
inline void store_bytes(uint8_t* p, uint64_t v, uint32_t n) {
  switch (n) {
    case 1: *p = uint8_t(v); break;
    case 2: { const uint16_t x = uint16_t(v); std::memcpy(p, &x, 2); break; }
    case 4: { const uint32_t x = uint32_t(v); std::memcpy(p, &x, 4); break; }
    default: std::memcpy(p, &v, 8); break;
  }
}

// How many distinct values the first n of v hold (n <= 32; sorts them in place).
uint32_t distinct_count(uint64_t* v, uint32_t n) {
  std::sort(v, v + n);
  return uint32_t(std::unique(v, v + n) - v);
}

// Statistics and trace record of a global access: the 32-byte sectors it touches.
void account_global(ExecContext& x, uint32_t bytes, bool store, uint64_t* sectors, uint32_t n, uint64_t lowest) {
  Cta& c = x.cta;
  x.latency = store ? timing::kAluLatency : timing::kGlobalLatency;
  if (!c.trace) return;
  n = distinct_count(sectors, n);
  c.trace->global.push_back(GlobalAccess{x.mask, uint8_t(bytes), store, n, lowest});
  trace_event(c, EventKind::global_access, c.now, x.warp.id, x.inst_id, x.mask, uint32_t(c.trace->global.size() - 1), n);
}

// Bank model and statistics for one warp-level shared access (facts §8).
void account_shared(ExecContext& x, const std::array<uint32_t, 32>& addrs, uint32_t bytes, bool store) {
  Cta& c = x.cta;
  const layout::BankReport r = layout::analyze_shared_access(addrs, x.mask, std::min<uint32_t>(bytes, 16));
  c.stats->smem_accesses++;
  c.stats->smem_wavefronts += r.wavefronts;
  c.stats->smem_ideal_wavefronts += r.ideal_wavefronts;
  c.stats->smem_bank_conflicts += r.wavefronts - r.ideal_wavefronts;
  x.latency = timing::kSharedLatency + (r.wavefronts > 0 ? r.wavefronts - 1 : 0);
  const uint64_t start = std::max(c.now, c.smem_pipe_free);
  c.smem_pipe_free = start + r.wavefronts;
  if (c.trace) {
    SmemAccess a;
    a.addr = addrs;
    a.mask = x.mask;
    a.bytes = uint8_t(bytes);
    a.store = store;
    a.wavefronts = uint8_t(std::min<uint32_t>(r.wavefronts, 255));
    a.ideal_wavefronts = uint8_t(r.ideal_wavefronts);
    a.conflict_degree = uint8_t(r.conflict_degree);
    a.bank = r.lane_bank;
    a.lane_wavefront = r.lane_wavefront;
    c.trace->smem.push_back(a);
    trace_event(c, EventKind::smem_access, c.now, x.warp.id, x.inst_id, x.mask, uint32_t(c.trace->smem.size() - 1),
                r.wavefronts);
  }
}

// Race and initialisation checks on the 4-byte words of a shared access.
void check_shared_words(ExecContext& x, uint32_t addr, uint32_t bytes, uint32_t lane, bool store) {
  Cta& c = x.cta;
  for (uint32_t w = (addr - timing::kSmemBaseAddress) / 4; w * 4 < addr - timing::kSmemBaseAddress + bytes; ++w) {
    if (w >= c.smem_word_state.size()) return;
    SmemWord& s = c.smem_word_state[w];
    if (s.tma_pending)
      report(c, "tma-race", x.inst_id, x.warp.id, lane, addr,
             fmt::format("shared address 0x{:X} is {} before the TMA load writing it has completed: wait on its "
                         "mbarrier first",
                         addr, store ? "written" : "read"));
    if (!store && !s.written)
      report(c, "uninitialized-shared", x.inst_id, x.warp.id, lane, addr,
             fmt::format("shared address 0x{:X} is read before anything wrote it", addr));
    if (s.written && s.writer_warp != x.warp.id && s.epoch == c.barrier_epoch && s.writer_warp != SmemWord::kAsync)
      report(c, "shared-race", x.inst_id, x.warp.id, lane, addr,
             fmt::format("warp {} {} shared address 0x{:X} that warp {} wrote with no barrier in between", x.warp.id,
                         store ? "overwrites" : "reads", addr, s.writer_warp));
    if (store) {
      s.written = true;
      s.writer_warp = uint16_t(x.warp.id);
      s.epoch = c.barrier_epoch;
      s.generic_since_fence = true;
    }
  }
}

}  // namespace

void exec_memory(ExecContext& x) {
  const ir::Inst& in = x.inst;
  Cta& c = x.cta;
  const uint32_t elem = std::max<uint32_t>(ir::type_bits(in.type) / 8, 1);
  const uint32_t vec = std::max<uint32_t>(in.vec, 1);
  const uint32_t bytes = elem * vec;
  const bool store = in.op == Op::st_global || in.op == Op::st_shared;
  const ir::Operand& addr_op = store ? in.operands[0] : in.operands[vec];

  if (in.op == Op::ld_param) {
    const uint64_t value = c.launch.param_values.at(addr_op.id);
    for (uint32_t l = 0; l < 32; ++l)
      if (x.mask >> l & 1) c.reg(x.warp.id, in.operands[0].id, l) = value;
    note_register_write(x, in.operands[0].id, x.mask);
    return;
  }

  // Sources of stores are checked like any register read.
  if (store)
    for (uint32_t v = 0; v < vec; ++v)
      if (in.operands[1 + v].kind == ir::OperandKind::reg) check_register_read(x, in.operands[1 + v].id, x.mask);
  if (addr_op.kind == ir::OperandKind::mem_reg) check_register_read(x, addr_op.id, x.mask);

  const bool shared = in.op == Op::ld_shared || in.op == Op::st_shared;
  std::array<uint32_t, 32> saddr{};
  uint64_t lowest = ~uint64_t(0);
  std::array<uint64_t, 32> sector{};  // per active lane; distinct ones counted at the end
  uint32_t nsectors = 0;
  for (uint32_t l = 0; l < 32; ++l) {
    if (!(x.mask >> l & 1)) continue;
    uint8_t* p = nullptr;
    if (shared) {
      saddr[l] = memory_address32(x, addr_op, l);
      p = smem_ptr(x, saddr[l], bytes, l, store);
      if (p) check_shared_words(x, saddr[l], bytes, l, store);
    } else {
      const uint64_t a = memory_address64(x, addr_op, l);
      p = c.launch.global->find(a, bytes);
      lowest = std::min(lowest, a);
      sector[nsectors++] = a / 32;
      if (!p)
        report(c, "out-of-bounds-global", x.inst_id, x.warp.id, l, a,
               fmt::format("global address 0x{:X} ({} bytes) is outside every buffer of this GEMM", a, bytes));
      else if (a % bytes != 0)
        report(c, "misaligned", x.inst_id, x.warp.id, l, a,
               fmt::format("a {}-byte global access at 0x{:X} is not {}-byte aligned", bytes, a, bytes));
    }
    for (uint32_t v = 0; v < vec; ++v) {
      if (store) {
        if (!p) continue;
        const uint64_t value = x.cta.reg(x.warp.id, in.operands[1 + v].id, l);
        store_bytes(p + v * elem, value, elem);  // little-endian: the low bytes
      } else {
        uint64_t value = 0;
        if (p) value = load_bytes(p + v * elem, elem);
        c.reg(x.warp.id, in.operands[v].id, l) = value;
      }
    }
  }
  if (!store)
    for (uint32_t v = 0; v < vec; ++v) note_register_write(x, in.operands[v].id, x.mask);
  if (shared) {
    account_shared(x, saddr, bytes, store);
  } else {
    account_global(x, bytes, store, sector.data(), nsectors, lowest);
  }
}

namespace {

// ---- decoded form: ld.global / st.global through [reg + offset] ----------------------------
// What exec_memory does for these, in the order it does it, for the common case where every
// lane's address is inside a buffer and aligned. Any other case goes to exec_memory before
// anything happened, so the general path reports it exactly as before.
void exec_global_form(ExecContext& x) {
  Cta& c = x.cta;
  const DecodedInst& d = x.dec;
  const bool store = x.inst.op == Op::st_global;
  const uint32_t elem = d.elem_bytes, vec = d.vec, bytes = elem * vec;
  const uint64_t* base = c.reg_lanes(x.warp.id, d.src[0].reg);
  // The span of the lanes' addresses: when it lies in one buffer and every address is
  // aligned, every lane is in bounds and aligned.
  uint64_t addr[32];
  uint64_t lowest = ~uint64_t(0), highest = 0, any_bits = 0;
  for (uint32_t m = x.mask; m; m &= m - 1) {
    const uint32_t l = uint32_t(std::countr_zero(m));
    const uint64_t a = base[l] + uint64_t(d.offset);
    addr[l] = a;
    lowest = std::min(lowest, a);
    highest = std::max(highest, a);
    any_bits |= a;
  }
  uint8_t* span = nullptr;
  if ((lowest >> 44) == (highest >> 44) && (any_bits & (bytes - 1)) == 0 && highest - lowest < (uint64_t(1) << 31))
    span = c.launch.global->find(lowest, uint32_t(highest - lowest) + bytes);
  if (!span) {
    exec_memory(x);
    return;
  }
  if (store)
    for (uint32_t v = 0; v < vec; ++v) check_register_read(x, d.data_regs[v], x.mask);
  check_register_read(x, d.src[0].reg, x.mask);
  for (uint32_t v = 0; v < vec; ++v) {
    uint64_t* r = c.reg_lanes(x.warp.id, d.data_regs[v]);
    for (uint32_t m = x.mask; m; m &= m - 1) {
      const uint32_t l = uint32_t(std::countr_zero(m));
      uint8_t* p = span + (addr[l] - lowest) + v * elem;
      if (store) store_bytes(p, r[l], elem);
      else r[l] = load_bytes(p, elem);
    }
  }
  if (!store)
    for (uint32_t v = 0; v < vec; ++v) note_register_write(x, d.data_regs[v], x.mask);
  uint64_t sector[32];
  uint32_t nsectors = 0;
  if (c.trace)
    for (uint32_t m = x.mask; m; m &= m - 1) sector[nsectors++] = addr[std::countr_zero(m)] / 32;
  account_global(x, bytes, store, sector, nsectors, lowest);
}

}  // namespace

ExecFn select_memory(const ir::Inst& in, Program&, DecodedInst& d, const ir::Kernel&) {
  if (in.op != Op::ld_global && in.op != Op::st_global) return nullptr;
  const bool store = in.op == Op::st_global;
  const uint32_t elem = std::max<uint32_t>(ir::type_bits(in.type) / 8, 1);
  const uint32_t vec = std::max<uint32_t>(in.vec, 1);
  if (vec > 4 || !std::has_single_bit(elem * vec) || in.operands.size() != vec + 1) return nullptr;
  const ir::Operand& addr = store ? in.operands[0] : in.operands[vec];
  if (addr.kind != ir::OperandKind::mem_reg) return nullptr;
  for (uint32_t v = 0; v < vec; ++v) {
    const ir::Operand& o = in.operands[store ? 1 + v : v];
    if (o.kind != ir::OperandKind::reg) return nullptr;
    d.data_regs[v] = o.id;
  }
  d.src[0] = {true, addr.id, nullptr};
  d.nsrc = 1;
  d.offset = addr.imm;
  d.elem_bytes = uint8_t(elem);
  d.vec = uint8_t(vec);
  return exec_global_form;
}

}  // namespace gs::model
