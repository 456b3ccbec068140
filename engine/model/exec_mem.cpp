// exec_memory: ld/st of parameters, global and shared memory, with bounds, alignment,
// initialisation and race checks, and the shared-memory bank model of every access. The
// decoded global forms are in exec_global_forms.cpp, the shared ones in exec_smem_forms.cpp,
// what they share in exec_mem_forms.hpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <bit>
#include <cstring>
#include <limits>
#include <vector>

#include <fmt/format.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "engine/layout/banks.hpp"
#include "engine/model/decode.hpp"
#include "engine/model/exec_mem_forms.hpp"
#include "engine/model/exec_context.hpp"
#include "engine/model/operands.hpp"
#include "engine/model/values.hpp"

namespace gs::model {

using ir::Op;
using memform::charge_shared;
using memform::distinct_if_sorted;
using memform::check_form_registers;
using memform::load_bytes;
using memform::store_bytes;

void report(Cta& cta, HazardKind kind, uint32_t inst, uint32_t warp, uint32_t lane, uint64_t address,
            std::string detail) {
  if (!cta.hazards) return;
  for (const Hazard& h : *cta.hazards)
    if (h.kind == kind && h.inst == inst) return;  // first occurrence of each (kind, instruction)
  Hazard h{kind, inst, warp, lane, address, cta.now, std::move(detail)};
  if (cta.trace) {
    cta.trace->hazards.push_back(h);
    trace_event(cta, EventKind::hazard, cta.now, warp, inst, 0, uint32_t(cta.trace->hazards.size() - 1));
  }
  cta.hazards->push_back(std::move(h));
}

void report_tma_race(Cta& cta, uint32_t inst, uint32_t warp, uint32_t lane, uint64_t address, const std::string& what,
                     std::string_view advice) {
  const std::string why = stale_wait_cause(cta, warp);
  report(cta, HazardKind::tma_race, inst, warp, lane, address,
         why.empty() ? what + ": " + std::string(advice) : what + ". " + why);
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
    report(c, HazardKind::out_of_bounds_shared, x.inst_id, x.warp.id, lane, addr,
           fmt::format("shared address 0x{:X} is outside the CTA's {} B of shared memory (0x{:X}..0x{:X})", addr,
                       c.smem.size(), timing::kSmemBaseAddress, end));
    return nullptr;
  }
  // Accesses are aligned to their size; block transfers (TMA boxes) to 16 bytes.
  const uint32_t align = std::min<uint32_t>(std::bit_floor(std::max<uint32_t>(bytes, 1)), 16);
  if (addr % align != 0)
    report(c, HazardKind::misaligned, x.inst_id, x.warp.id, lane, addr,
           fmt::format("a {}-byte shared access at 0x{:X} is not {}-byte aligned", bytes, addr, align));
  if (store) ++c.smem_writes;  // the caller writes through the pointer (Cta::smem_writes)
  return c.smem.data() + (addr - timing::kSmemBaseAddress);
}


// Race and initialisation checks on the 4-byte words of a shared access. A word a cp.async
// is still writing is either raced (the copy was issued by another warp since the last
// barrier: nothing orders the two) or read too early (the copy's group was not completed by
// a wait_group before the barrier or the warp's own read): the first is the Ampere seed's
// `no-sync-before-prefetch` pitfall, the second its `steady-state-wait-at-tail`.
namespace {

// What check_shared_words reports of a word that is not quiet (word `word`), before it is noted.
[[gnu::noinline]] void report_shared_word(ExecContext& x, uint32_t word, bool tma_pending, uint32_t addr,
                                          uint32_t lane, bool store) {
  Cta& c = x.cta;
  const SmemWord& s = c.smem_word_state[word];
  if (tma_pending)
    report_tma_race(c, x.inst_id, x.warp.id, lane, addr,
                    fmt::format("shared address 0x{:X} is {} before the TMA load writing it has completed", addr,
                                store ? "written" : "read"),
                    "wait on its mbarrier first");
  if (c.cp_async_pending_at(word)) {
    const uint32_t by = c.cp_async_warp[word];
    if (by != x.warp.id && c.copied_now(word))
      report(c, HazardKind::cp_async_race, x.inst_id, x.warp.id, lane, addr,
             fmt::format("warp {} {} shared address 0x{:X} while warp {}'s cp.async into it, issued with no "
                         "barrier in between, is still writing it",
                         x.warp.id, store ? "writes" : "reads", addr, by));
    else
      report(c, HazardKind::cp_async_read_before_wait, x.inst_id, x.warp.id, lane, addr,
             fmt::format("warp {} {} shared address 0x{:X} before the cp.async group writing it (warp {}'s) "
                         "completed: its cp.async.wait_group returned with that group still pending",
                         x.warp.id, store ? "writes" : "reads", addr, by));
  }
  if (store && s.bulk_reads != 0)
    report(c, HazardKind::bulk_store_race, x.inst_id, x.warp.id, lane, addr,
           fmt::format("shared address 0x{:X} is written while a TMA store issued earlier may still read it: the "
                       "issuing thread retires a store's reads with cp.async.bulk.wait_group.read (N: the groups "
                       "it may leave reading), and the writers must wait for that (a barrier after the wait)",
                       addr));
  if (!store && !s.written)
    report(c, HazardKind::uninitialized_shared, x.inst_id, x.warp.id, lane, addr,
           fmt::format("shared address 0x{:X} is read before anything wrote it", addr));
  const uint32_t rank = c.launch.cluster_rank;
  const uint32_t write_release = c.smem_write_release[word];
  const bool released = write_release != 0 && rank < kMaxClusterRanks && x.warp.acquired[rank] >= write_release;
  if (s.written && s.writer_warp != x.warp.id && s.epoch == c.barrier_epoch && s.writer_warp != SmemWord::kAsync &&
      !released)
    report(c, HazardKind::shared_race, x.inst_id, x.warp.id, lane, addr,
           fmt::format("warp {} {} shared address 0x{:X} that warp {} wrote with no barrier in between (no bar.sync, "
                       "and no mbarrier phase it arrived on after writing)",
                       x.warp.id,
                       store ? "overwrites" : "reads", addr, uint32_t(s.writer_warp)));
}

}  // namespace

// Word by word: a word with something to report (not memform::word_is_quiet) is reported out
// of line, then every word gets what the rule records of it (note_write, note_reads).
void check_shared_words(ExecContext& x, uint32_t addr, uint32_t bytes, uint32_t lane, bool store) {
  Cta& c = x.cta;
  const uint32_t rank = c.launch.cluster_rank, epoch = c.barrier_epoch, release = c.releases + 1;
  const memform::ReadNotes notes = memform::read_notes(c);
  for (uint32_t w = (addr - timing::kSmemBaseAddress) / 4; w * 4 < addr - timing::kSmemBaseAddress + bytes; ++w) {
    if (w >= c.smem_word_state.size()) return;
    SmemWord& s = c.smem_word_state[w];
    const bool tma_pending = c.tma_pending_at(w);
    if (store) {
      if (!memform::word_is_quiet<true>(c, w, tma_pending, x.warp, rank, epoch)) [[unlikely]]
        report_shared_word(x, w, tma_pending, addr, lane, true);
      memform::note_write(c, s, x.warp.id, epoch, release);
      c.note_unfenced(w);
    } else {
      if (!memform::word_is_quiet<false>(c, w, tma_pending, x.warp, rank, epoch)) [[unlikely]]
        report_shared_word(x, w, tma_pending, addr, lane, false);
      memform::note_reads(c, x.warp.id, w, 1, notes);
    }
  }
}

using memform::c_tile_of;
using memform::note_c_tile;

void store_into_c(ExecContext& x, uint64_t offset, uint32_t bytes, uint32_t reg, uint32_t lane) {
  Cta& c = x.cta;
  if (const ir::OutputTiling& o = c.launch.kernel->output; o.declared()) note_c_tile(c, c_tile_of(o, offset));
  if (c.trace)
    c.trace->c_writes.push_back({offset, uint8_t(bytes), reg, x.inst_id, uint16_t(c.launch.trace_warp_base + x.warp.id),
                                 uint8_t(lane), c.now});
}

uint8_t* cluster_smem_ptr(ExecContext& x, uint32_t addr, uint32_t bytes, uint32_t lane, bool store) {
  uint32_t local = 0;
  Cta* t = cluster_target(x, addr, lane, &local);
  if (!t) return nullptr;
  if (t == &x.cta) {
    uint8_t* p = smem_ptr(x, local, bytes, lane, store);
    if (p) check_shared_words(x, local, bytes, lane, store);
    return p;
  }
  // A peer's memory: bounds and alignment as for its own accesses (reported against the
  // peer's window). The race checks stay per CTA (a peer's words record warps of its own); a
  // remote store marks the words written by an agent outside the CTA, as the copy engine
  // does, so that the peer's later reads are not reported as uninitialised or racing.
  ExecContext peer{*t, x.warp, x.inst, x.dec, x.inst_id, x.mask, x.at_pc};
  uint8_t* p = smem_ptr(peer, local, bytes, lane, store);
  if (p && store)
    for (uint32_t w = (local - timing::kSmemBaseAddress) / 4; w * 4 < local - timing::kSmemBaseAddress + bytes; ++w) {
      t->smem_word_state[w].written = true;
      t->smem_word_state[w].writer_warp = SmemWord::kAsync;
    }
  return p;
}

namespace {

// layout::count_shared_wavefronts of an untraced access, kept per thread by instruction for
// the next time it comes with the same lane offsets: what the counts depend on is the lanes'
// offsets from the first active one and where in a bank unit (a word; 8 or 16 bytes for the
// wider accesses) the first lane lies. Moving every lane by a multiple of the unit turns the
// units' banks round, which changes no bank's count of distinct units (as for
// exec_smem_forms.cpp's SharedLanePattern). A loop's access (ldmatrix's rows, cp.async's
// destinations, a fragment's ld.shared) has the same offsets on every pass, and comparing
// them costs less than counting. An entry is a pure function of its key, so one left by
// another kernel is used only where its key matches.
struct BankCountEntry {
  uint32_t mask = 0;  // 0: empty
  uint32_t bytes = 0;
  layout::Phasing phasing = layout::Phasing::by_width;
  uint32_t low = 0;  // the first lane's address modulo the unit
  std::array<uint32_t, 32> diff{};
  layout::BankCount count;
};

#if defined(__x86_64__) && defined(__GNUC__)
// The lanes' offsets from a0 (0 for a lane outside mask) into diff, and their OR: the scalar
// loop of shared_wavefronts_by_inst, 8 lanes an instruction.
__attribute__((target("avx2"))) uint32_t lane_offsets_avx2(const uint32_t* addrs, uint32_t mask, uint32_t a0,
                                                          uint32_t* diff) {
  const __m256i base = _mm256_set1_epi32(int(a0));
  const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  __m256i any = _mm256_setzero_si256();
  for (uint32_t l = 0; l < 32; l += 8) {
    const __m256i in = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(int(mask >> l)), bit), bit);
    const __m256i d =
        _mm256_and_si256(_mm256_sub_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(addrs + l)), base), in);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(diff + l), d);
    any = _mm256_or_si256(any, d);
  }
  __m128i x = _mm_or_si128(_mm256_castsi256_si128(any), _mm256_extracti128_si256(any, 1));
  x = _mm_or_si128(x, _mm_shuffle_epi32(x, 0x4E));
  x = _mm_or_si128(x, _mm_shuffle_epi32(x, 0xB1));
  return uint32_t(_mm_cvtsi128_si32(x));
}
#endif

}  // namespace

layout::BankCount shared_wavefronts_by_inst(uint32_t inst, const std::array<uint32_t, 32>& addrs, uint32_t mask,
                                            uint32_t access_bytes, layout::Phasing phasing) {
  if (mask == 0 || !std::has_single_bit(access_bytes) || access_bytes > 16)
    return layout::count_shared_wavefronts(addrs, mask, access_bytes, phasing);
  const uint32_t a0 = addrs[uint32_t(std::countr_zero(mask))];
  std::array<uint32_t, 32> diff;
  uint32_t bits = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = cpu_has_avx2();
  if (avx2) {
    bits = lane_offsets_avx2(addrs.data(), mask, a0, diff.data());
  } else
#endif
    for (uint32_t l = 0; l < 32; ++l) {
      diff[l] = (addrs[l] - a0) & (0u - (mask >> l & 1));
      bits |= diff[l];
    }
  // A misaligned lane: the general count reports it.
  if (((bits | a0) & (access_bytes - 1)) != 0) return layout::count_shared_wavefronts(addrs, mask, access_bytes, phasing);
  const uint32_t low = a0 & (std::max<uint32_t>(access_bytes, 4) - 1);
  thread_local std::vector<BankCountEntry> entries;
  if (inst >= entries.size()) entries.resize(inst + 1);
  BankCountEntry& e = entries[inst];
  if (e.mask == mask && e.bytes == access_bytes && e.phasing == phasing && e.low == low && e.diff == diff)
    return e.count;
  e.count = layout::count_shared_wavefronts(addrs, mask, access_bytes, phasing);
  e.mask = mask;
  e.bytes = access_bytes;
  e.phasing = phasing;
  e.low = low;
  e.diff = diff;
  return e.count;
}

// Bank model and statistics for one warp-level shared access (facts §8).
uint32_t account_shared(ExecContext& x, const std::array<uint32_t, 32>& given, uint32_t given_bytes, bool store) {
  Cta& c = x.cta;
  // A load ptxas folded into another's SASS load costs no wavefront: its bytes come with that
  // load, which is charged at its own width (decode.hpp, shared_load_folds).
  const DecodedInst* d = c.program && x.inst_id < c.program->insts.size() ? &c.program->insts[x.inst_id] : nullptr;
  if (d && d->fold_leader != kNone) {
    c.stats->smem_accesses++;
    x.latency = timing::kSharedLatency;
    if (c.trace) {
      SmemAccess a = smem_access_record(given, x.mask, given_bytes, store, layout::BankReport{});
      a.wavefronts = a.ideal_wavefronts = 0;
      a.folded_into = d->fold_leader;
      const uint32_t index = append(c.trace->smem, a);
      trace_event(c, EventKind::smem_access, c.now, x.warp.id, x.inst_id, x.mask, index, 0);
    }
    return 0;
  }
  std::array<uint32_t, 32> addrs = given;
  uint32_t bytes = given_bytes;
  if (d && d->fold_bytes) {
    for (uint32_t& a : addrs) a = uint32_t(int64_t(a) + d->fold_shift);
    bytes = d->fold_bytes;
  }
  // ld/st.shared.v4 are grouped as the H100 groups LDS.128/STS.128 (banks.hpp, Phasing); the
  // other instructions that come here (cp.async) keep the width's table.
  const bool lsu = x.inst.op == Op::ld_shared || x.inst.op == Op::st_shared;
  const layout::Phasing phasing = lsu ? layout::Phasing::lsu_half_warp : layout::Phasing::by_width;
  // An untraced CTA needs only the totals: count_shared_wavefronts gives the same ones fast.
  layout::BankReport r;
  if (c.trace) {
    r = layout::analyze_shared_access(addrs, x.mask, std::min<uint32_t>(bytes, 16), phasing);
  } else {
    const layout::BankCount n = shared_wavefronts_by_inst(x.inst_id, addrs, x.mask, std::min<uint32_t>(bytes, 16), phasing);
    r.wavefronts = n.wavefronts;
    r.ideal_wavefronts = n.ideal_wavefronts;
  }
  charge_shared(x, r.wavefronts, r.ideal_wavefronts);
  if (c.trace) {
    SmemAccess a = smem_access_record(addrs, x.mask, bytes, store, r);
    if (d) a.folded_loads = d->fold_members;
    const uint32_t index = append(c.trace->smem, a);
    trace_event(c, EventKind::smem_access, c.now, x.warp.id, x.inst_id, x.mask, index, r.wavefronts);
  }
  return r.wavefronts;
}

SmemAccess smem_access_record(const std::array<uint32_t, 32>& addrs, uint32_t mask, uint32_t bytes, bool store,
                              const layout::BankReport& r) {
  SmemAccess a;
  a.addr = addrs;
  a.mask = mask;
  a.bytes = uint8_t(bytes);
  a.store = store;
  a.wavefronts = uint8_t(std::min<uint32_t>(r.wavefronts, 255));
  a.ideal_wavefronts = uint8_t(r.ideal_wavefronts);
  a.conflict_degree = uint8_t(r.conflict_degree);
  a.bank = r.lane_bank;
  a.lane_wavefront = r.lane_wavefront;
  return a;
}

void exec_memory(ExecContext& x) {
  expect_op(x, "exec_memory", Op::ld_param, Op::ld_global, Op::st_global, Op::ld_shared, Op::st_shared,
            Op::ld_shared_cluster, Op::st_shared_cluster);
  const ir::Inst& in = x.inst;
  Cta& c = x.cta;
  const uint32_t elem = std::max<uint32_t>(ir::type_bits(in.type) / 8, 1);
  const uint32_t vec = std::max<uint32_t>(in.vec, 1);
  const uint32_t bytes = elem * vec;
  const bool store = in.op == Op::st_global || in.op == Op::st_shared || in.op == Op::st_shared_cluster;
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

  const bool cluster = in.op == Op::ld_shared_cluster || in.op == Op::st_shared_cluster;
  const bool shared = cluster || in.op == Op::ld_shared || in.op == Op::st_shared;
  std::array<uint32_t, 32> saddr{};
  std::array<uint64_t, 32> gaddr{};
  for (uint32_t l = 0; l < 32; ++l) {
    if (!(x.mask >> l & 1)) continue;
    uint8_t* p = nullptr;
    if (cluster) {
      saddr[l] = memory_address32(x, addr_op, l);
      p = cluster_smem_ptr(x, saddr[l], bytes, l, store);
    } else if (shared) {
      saddr[l] = memory_address32(x, addr_op, l);
      p = smem_ptr(x, saddr[l], bytes, l, store);
      if (p) check_shared_words(x, saddr[l], bytes, l, store);
    } else {
      const uint64_t a = memory_address64(x, addr_op, l);
      p = c.launch.global->find(a, bytes);
      gaddr[l] = a;
      if (!p)
        report(c, HazardKind::out_of_bounds_global, x.inst_id, x.warp.id, l, a,
               fmt::format("global address 0x{:X} ({} bytes) is outside every buffer of this GEMM", a, bytes));
      else if (a % bytes != 0)
        report(c, HazardKind::misaligned, x.inst_id, x.warp.id, l, a,
               fmt::format("a {}-byte global access at 0x{:X} is not {}-byte aligned", bytes, a, bytes));
    }
    for (uint32_t v = 0; v < vec; ++v) {
      if (store) {
        if (!p) continue;
        // A value is a register or an immediate (the IR's store signature takes both).
        const ir::Operand& o = in.operands[1 + v];
        const bool reg = o.kind == ir::OperandKind::reg;
        const uint64_t value = reg                                ? x.cta.reg(x.warp.id, o.id, l)
                               : o.kind == ir::OperandKind::fimm ? (in.type == ir::Type::f64 ? from_f64(o.fimm)
                                                                                              : from_f32(float(o.fimm)))
                                                                  : uint64_t(o.imm);
        store_bytes(p + v * elem, value, elem);  // little-endian: the low bytes
        // An immediate stored into C has no register, like a TMA store's element.
        if (const std::span<uint8_t>* cb = c.launch.global->buffers[2];
            !shared && cb && p >= cb->data() && p < cb->data() + cb->size())
          store_into_c(x, uint64_t(p + v * elem - cb->data()), elem, reg ? o.id : kNone, l);
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
    account_global(x, bytes, store, gaddr, x.mask);
  }
}

}  // namespace gs::model
