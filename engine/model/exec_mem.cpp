// exec_memory: ld/st of parameters, global and shared memory, with bounds, alignment,
// initialisation and race checks, and the shared-memory bank model of every access; the
// decoded global forms. The decoded shared forms are in exec_smem_forms.cpp, what the two
// share in exec_mem_forms.hpp.
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

namespace {

// A store into C's tile `tile` (kNone: outside C): the schedule's visit, when the CTA has not
// stored into it lately.
inline void note_c_tile(Cta& c, uint32_t tile) {
  auto& recent = c.recent_tiles;
  if (tile != kNone && std::find(recent.begin(), recent.end(), tile) == recent.end()) {
    std::copy_backward(recent.begin(), recent.end() - 1, recent.end());
    recent[0] = tile;
    c.schedule->visits.push_back({c.launch.cta_linear, tile, c.tiles_visited++, c.now});
  }
}

// OutputTiling::tile_of, with shifts where C's sizes are powers of two (the ladder's are): it
// runs for every element a CTA stores into C, and tile_of divides six times.
inline uint32_t c_tile_of(const ir::OutputTiling& o, uint64_t offset) {
  if (!power_of_two(o.elem_bytes) || !power_of_two(o.cols) || !power_of_two(o.tile_rows) ||
      !power_of_two(o.tile_cols) || o.tile_cols > o.cols)
    return o.tile_of(offset);
  const uint64_t e = offset >> std::countr_zero(o.elem_bytes);
  if (e >= uint64_t(o.rows) * o.cols) return kNone;
  const uint64_t row = e >> std::countr_zero(o.cols), col = e & (o.cols - 1);
  return uint32_t((row >> std::countr_zero(o.tile_rows)) * (o.cols >> std::countr_zero(o.tile_cols)) +
                  (col >> std::countr_zero(o.tile_cols)));
}

}  // namespace

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

namespace {

// ---- decoded form: ld.global / st.global through [reg + offset] ----------------------------
// What exec_memory does for these, in the order it does it, for the common case where every
// lane's address is inside a buffer and aligned. Any other case goes to exec_memory before
// anything happened, so the general path reports it exactly as before. Instantiated per
// direction and element size, so that the lane loops hold no switch.

// The byte offsets of the active lanes' addresses (base[l] + offset) in buffer `b`, into off[].
// True when every active lane's access [a, a + bytes) lies inside that buffer and a is a
// multiple of bytes (a power of two). Buffers start 2^44-aligned, so a and its offset have
// the same alignment. An offset past `limit` = size - bytes, or a "negative" one (an address
// below the buffer wraps to >= 2^63, as buffers are far smaller), sets bit 63 of
// (limit - o) | o: one subtraction per lane and no branch.
template <bool kEveryLane>
[[gnu::always_inline]] inline bool lanes_inside(const uint64_t* __restrict base, uint32_t mask, uint64_t delta,
                                                uint64_t limit, uint32_t bytes, uint64_t* __restrict off) {
  uint64_t out_of_range = 0, low_bits = 0;
  // Unrolled (GCC; other compilers ignore the pragma), as the ALU lane loops are
  // (exec_alu.cpp, lanes_into): the loop counting cost about as much as the lanes' work.
#pragma GCC unroll 8
  for (uint32_t l = 0; l < 32; ++l) {
    const uint64_t o = base[l] + delta;
    off[l] = o;
    const uint64_t active = kEveryLane ? ~uint64_t(0) : uint64_t(0) - (mask >> l & 1);
    out_of_range |= ((limit - o) | o) & active;
    low_bits |= o & active;
  }
  return (out_of_range >> 63) == 0 && (low_bits & (bytes - 1)) == 0;
}

#if defined(__x86_64__) && defined(__GNUC__)
// A full warp's load of 4- or 8-byte elements as AVX2 gathers, 4 lanes each: lane l reads the
// element at at + off[l], zero-extended to 64 bits, exactly what load_bytes reads (offsets
// are below 2^63 after lanes_inside, so the gathers' signed indices are exact).
template <uint32_t kElem>
__attribute__((target("avx2"))) inline void gather_lanes_avx2(const uint8_t* at, const uint64_t* off, uint64_t* r) {
#pragma GCC unroll 8  // as in lanes_inside
  for (uint32_t l = 0; l < 32; l += 4) {
    const __m256i index = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(off + l));
    __m256i v;
    if constexpr (kElem == 4)
      v = _mm256_cvtepu32_epi64(_mm256_i64gather_epi32(reinterpret_cast<const int*>(at), index, 1));
    else
      v = _mm256_i64gather_epi64(reinterpret_cast<const long long*>(at), index, 1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(r + l), v);
  }
}
#else
template <uint32_t kElem>
inline void gather_lanes_avx2(const uint8_t*, const uint64_t*, uint64_t*) {}
#endif

// What the trace records of a full warp's global access: the sector (address / 32) of each
// lane and the number of distinct sectors when they come in non-decreasing lane order
// (kCountSectors otherwise: account_global then sorts). off[] holds offsets below 2^63
// (lanes_inside), and sectors are smaller still, so signed comparisons order them.
[[gnu::always_inline]] inline uint32_t summarize_sectors(const uint64_t* off, uint64_t base_sector, uint64_t* sector) {
  for (uint32_t l = 0; l < 32; ++l) sector[l] = base_sector + off[l] / 32;
  return distinct_if_sorted(sector, 32);
}
#if defined(__x86_64__) && defined(__GNUC__)
// The same, 4 lanes per instruction: pairs (l, l + 1) are compared 4 at a time (sector[32]
// repeats sector[31], so the last pair is equal and neither descends nor changes).
__attribute__((target("avx2"))) inline uint32_t summarize_sectors_avx2(const uint64_t* off, uint64_t base_sector,
                                                                       uint64_t* sector /* 33 */) {
  const __m256i base = _mm256_set1_epi64x(int64_t(base_sector));
  // Each lane's sector is compared with the next lane's in registers: the next lanes are the
  // vector rotated by one with the following vector's first lane blended in. (Reading them
  // back from `sector` at an offset of one lane was a load that overlapped two vector
  // stores just made, which the CPU cannot forward: perf put a sixth of a traced
  // ld.global's time there.) Both loops unrolled (GCC), as in lanes_inside.
  __m256i s[9];
#pragma GCC unroll 8
  for (uint32_t i = 0; i < 8; ++i) {
    const __m256i o = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(off + 4 * i));
    s[i] = _mm256_add_epi64(base, _mm256_srli_epi64(o, 5));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sector + 4 * i), s[i]);
  }
  sector[32] = sector[31];
  s[8] = _mm256_permute4x64_epi64(s[7], 0xFF);  // lane 31 again: the padded pair is equal
  uint32_t descents = 0, equal = 0;
#pragma GCC unroll 8
  for (uint32_t i = 0; i < 8; ++i) {
    const __m256i a = s[i];
    const __m256i b = _mm256_blend_epi32(_mm256_permute4x64_epi64(a, 0x39), _mm256_permute4x64_epi64(s[i + 1], 0x39),
                                         0xC0);  // lanes 4i+1 .. 4i+4
    descents |= uint32_t(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(a, b)))) << (4 * i);
    equal |= uint32_t(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(a, b)))) << (4 * i);
  }
  // 31 real pairs and the padded one (always equal): distinct = 1 + (31 - (equal pairs - 1)).
  return descents != 0 ? kCountSectors : 33 - lane_count(equal);
}
#else
inline uint32_t summarize_sectors_avx2(const uint64_t* off, uint64_t base_sector, uint64_t* sector) {
  return summarize_sectors(off, base_sector, sector);
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
// c_store_in_one_tile's two lane loops for a whole warp, four lanes a vector (AVX2): the scalar
// loops were some 1 300 instructions a store (callgrind, step 08's epilogue: its st.global of
// an mma.sync's fragment spans 8 rows, so both loops run). The offsets are inside C (the
// caller's lanes_inside), below 2^63, so signed compares order them.
struct LaneRange {
  uint64_t lo, hi;
};
__attribute__((target("avx2"))) LaneRange lane_range_avx2(const uint64_t* off) {
  __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(off)), hi = lo;
#pragma GCC unroll 7
  for (uint32_t i = 1; i < 8; ++i) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(off + 4 * i));
    lo = _mm256_blendv_epi8(lo, v, _mm256_cmpgt_epi64(lo, v));
    hi = _mm256_blendv_epi8(hi, v, _mm256_cmpgt_epi64(v, hi));
  }
  alignas(32) uint64_t l[4], h[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(l), lo);
  _mm256_store_si256(reinterpret_cast<__m256i*>(h), hi);
  return {std::min(std::min(l[0], l[1]), std::min(l[2], l[3])), std::max(std::max(h[0], h[1]), std::max(h[2], h[3]))};
}
// A lane's column band, ((v >> elem_shift) & col_mask) >> band_shift, four lanes at once.
__attribute__((target("avx2"), always_inline)) inline __m256i column_band_avx2(__m256i v, __m128i elem_shift,
                                                                               __m256i col_mask, __m128i band_shift) {
  return _mm256_srl_epi64(_mm256_and_si256(_mm256_srl_epi64(v, elem_shift), col_mask), band_shift);
}
// Whether every lane's first and last byte (off + bytes - 1) lie in column band `band`, as
// c_store_in_one_tile tests it lane by lane.
__attribute__((target("avx2"))) bool lanes_in_band_avx2(const uint64_t* off, uint32_t bytes, uint32_t elem_shift,
                                                        uint64_t col_mask, uint32_t band_shift, uint64_t band) {
  const __m128i es = _mm_cvtsi32_si128(int(elem_shift)), bs = _mm_cvtsi32_si128(int(band_shift));
  const __m256i cols = _mm256_set1_epi64x(int64_t(col_mask)), want = _mm256_set1_epi64x(int64_t(band));
  const __m256i last = _mm256_set1_epi64x(int64_t(bytes) - 1);
  __m256i diff = _mm256_setzero_si256();
#pragma GCC unroll 8
  for (uint32_t i = 0; i < 8; ++i) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(off + 4 * i));
    const __m256i first = column_band_avx2(v, es, cols, bs);
    const __m256i end = column_band_avx2(_mm256_add_epi64(v, last), es, cols, bs);
    diff = _mm256_or_si256(diff, _mm256_or_si256(_mm256_xor_si256(first, want), _mm256_xor_si256(end, want)));
  }
  return _mm256_testz_si256(diff, diff);
}
#endif

// An untraced CTA's store into C whose bytes all lie in one tile (in one row: the first and the
// last byte do; in several rows: see below): what store_into_c does for each of its elements,
// done once (the first notes the tile; the others find it noted). False where each element
// must be looked at. kAvx2: a whole warp's lanes are looked at four a vector.
template <bool kAvx2>
inline bool c_store_in_one_tile(Cta& c, const uint64_t* off, uint32_t mask, uint32_t bytes) {
  if (c.trace) return false;
  const ir::OutputTiling& o = c.launch.kernel->output;
  if (!o.declared()) return true;  // store_into_c notes nothing
#if defined(__x86_64__) && defined(__GNUC__)
  const bool vector = kAvx2 && mask == kAllLanes;
#else
  const bool vector = false;
#endif
  uint64_t lo = ~uint64_t(0), hi = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  if (vector) {
    const LaneRange r = lane_range_avx2(off);
    lo = r.lo;
    hi = r.hi;
  }
#endif
  if (!vector)
    for (uint32_t m = mask; m; m &= m - 1) {
      const uint64_t v = off[std::countr_zero(m)];
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  hi += bytes - 1;
  const uint32_t tile = c_tile_of(o, lo);
  if (tile == kNone || tile != c_tile_of(o, hi)) return false;
  const uint64_t row_bytes = uint64_t(o.elem_bytes) * o.cols;
  if (lo / row_bytes != hi / row_bytes) {
    // Several rows (an MMA fragment's store: 8 rows of 4 lanes): one tile when the rows of lo
    // and hi share a tile row (above) and every lane's first and last byte lie in one band of
    // columns. A lane whose bytes wrap into the next row passes only where one band is the
    // whole row. With C's sizes powers of two (the ladder's), by shifts; otherwise per element.
    if (!power_of_two(o.elem_bytes) || !power_of_two(o.cols) || !power_of_two(o.tile_cols) || o.tile_cols > o.cols)
      return false;
    const uint32_t elem_shift = uint32_t(std::countr_zero(o.elem_bytes));
    const uint32_t band_shift = uint32_t(std::countr_zero(o.tile_cols));
    const uint64_t col_mask = o.cols - 1;
    const uint64_t band = ((lo >> elem_shift) & col_mask) >> band_shift;
#if defined(__x86_64__) && defined(__GNUC__)
    if (vector) {
      if (!lanes_in_band_avx2(off, bytes, elem_shift, col_mask, band_shift, band)) return false;
      note_c_tile(c, tile);
      return true;
    }
#endif
    for (uint32_t m = mask; m; m &= m - 1) {
      const uint64_t v = off[std::countr_zero(m)];
      if (((v >> elem_shift) & col_mask) >> band_shift != band ||
          (((v + bytes - 1) >> elem_shift) & col_mask) >> band_shift != band)
        return false;
    }
  }
  note_c_tile(c, tile);
  return true;
}

template <bool kStore, uint32_t kElem, bool kAvx2>
[[gnu::always_inline]] inline void global_form(ExecContext& x) {
  Cta& c = x.cta;
  const DecodedInst& d = x.dec;
  const Warp& w = x.warp;
  const uint32_t vec = d.vec, bytes = kElem * vec;
  const uint32_t mask = x.mask;
  const uint64_t* base = w.regs + 32 * size_t(d.src[0].reg);
  // The buffer of the first active lane's address; every lane must be inside it.
  const GlobalMemory& global = *c.launch.global;
  const uint64_t buffer = global.index_of(base[std::countr_zero(mask)] + uint64_t(d.offset));
  if (buffer == global.buffers.size() || global.buffers[buffer]->size() < bytes) {
    exec_memory(x);
    return;
  }
  uint8_t* data = global.buffers[buffer]->data();
  const uint64_t delta = uint64_t(d.offset) - kGlobalBase[buffer];
  const uint64_t limit = global.buffers[buffer]->size() - bytes;
  const bool all_lanes = mask == kAllLanes;
  uint64_t off[32];
  if (!(all_lanes ? lanes_inside<true>(base, mask, delta, limit, bytes, off)
                  : lanes_inside<false>(base, mask, delta, limit, bytes, off))) {
    exec_memory(x);
    return;
  }
  check_form_registers<kStore>(x);
  for (uint32_t v = 0; v < vec; ++v) {
    uint64_t* r = w.regs + 32 * size_t(d.data_regs[v]);
    uint8_t* at = data + v * kElem;
    const auto lane = [&](uint32_t l) {
      if constexpr (kStore) store_bytes(at + off[l], r[l], kElem);
      else r[l] = load_bytes(at + off[l], kElem);
    };
    if (all_lanes) {
      if constexpr (kAvx2 && !kStore && (kElem == 4 || kElem == 8)) gather_lanes_avx2<kElem>(at, off, r);
      else
        for (uint32_t l = 0; l < 32; ++l) lane(l);
    } else {
      for (uint32_t m = mask; m; m &= m - 1) lane(uint32_t(std::countr_zero(m)));
    }
  }
  if (!kStore)
    for (uint32_t v = 0; v < vec; ++v) note_decoded_write(x, d.data_regs[v]);
  if constexpr (kStore)
    if (global.buffers[buffer] == global.buffers[2] && !c_store_in_one_tile<kAvx2>(c, off, mask, bytes))  // any CTA's, into C
      for (uint32_t m = mask; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        for (uint32_t v = 0; v < vec; ++v) store_into_c(x, off[l] + v * kElem, kElem, d.data_regs[v], l);
      }
  if (!c.trace) {
    // What account_global sets.
    x.latency = global_issue(c, lane_count(mask), bytes, kStore, c.launch.figures->global_latency);
    return;
  }
  // Buffers start 32-byte aligned, so a lane's sector a / 32 = base / 32 + off / 32. A full
  // warp's sectors in lane order are counted here, fast; any other case by account_global.
  uint32_t sectors = kCountSectors;
  if (all_lanes) {
    uint64_t sector[33];
    const uint64_t base_sector = kGlobalBase[buffer] / 32;
    sectors = kAvx2 ? summarize_sectors_avx2(off, base_sector, sector) : summarize_sectors(off, base_sector, sector);
  }
  std::array<uint64_t, 32> addr;
  for (uint32_t l = 0; l < 32; ++l) addr[l] = kGlobalBase[buffer] + off[l];
  account_global(x, bytes, kStore, addr, mask, sectors);
}

#if defined(__x86_64__) && defined(__GNUC__)
// The AVX2 build's straight path (decode.hpp, DirectFn) for the commonest global access of a
// SIMT kernel: a whole warp's untraced ld.global of one 4-byte element, from registers that
// every lane has written and no wgmma can own. It does what global_form does for it, with the
// 32 offsets kept in eight vector registers from the bounds check to the gathers (global_form
// stores them to off[] and loads them back, and its frame holds off[] and sector[]), and
// without an ExecContext: about 120 instructions where the exec form took 210 (measured on
// simt_naive 256^3 with callgrind). It answers 0, having changed nothing, whenever it cannot show that every
// lane's address is inside one buffer and aligned; the scheduler then runs the exec form,
// which reports what it always did (tests/model/test_global_loads.cpp).
// What global_issue does for a whole warp's 4-byte load with no lines counted and no extra cycles
// (an untraced CTA's), inline: the path held for the warp's 128 bytes, the data the global
// latency after the path takes it (the call and its floating-point rounding of the lines were a
// sixth of step 08's loads).
[[gnu::always_inline]] inline uint32_t untraced_warp_load_issue(Cta& c) {
  constexpr uint64_t kCycles = global_byte_cycles(32, 4);
  const DataPath::Taken t = c.data_path.take(c.now, kCycles);
  c.cost.lsu_cycles += kCycles;
  return uint32_t(t.first - c.now) + c.launch.figures->global_latency;
}

__attribute__((target("avx2"))) uint32_t direct_load_u32_avx2(Cta& c, Warp& w, const DecodedInst& d) {
  if (w.written[d.src[0].reg] != kAllLanes || !d.no_wgmma_regs) return 0;
  const uint64_t* base = w.regs + 32 * size_t(d.src[0].reg);
  const GlobalMemory& global = *c.launch.global;
  const uint64_t buffer = global.index_of(base[0] + uint64_t(d.offset));
  if (buffer == global.buffers.size() || global.buffers[buffer]->size() < 4) return 0;
  const uint8_t* data = global.buffers[buffer]->data();
  const uint64_t limit_bytes = global.buffers[buffer]->size() - 4;
  uint64_t* r = w.regs + 32 * size_t(d.data_regs[0]);  // zero-extended to 64 bits, what load_bytes reads
  // The two commonest patterns of a SIMT kernel read without gathers (a gather of 4 costs
  // about as much as 4 loads): every lane at one address (a warp walking a row of A), and
  // lane l at the first lane's address + 4 l (consecutive columns of B). The first is found on
  // the addresses as they are, and then only the first lane needs a bounds and an alignment
  // check; a warp that fails either goes to global_form, which reports it. The second is the
  // mma.sync fragment pattern below with its groups end to end, and is read there (testing
  // every lane's step first cost the fragments' loads of step 08, which fail it, that test).
  uint64_t step = base[1] - base[0];
  if (step == 0 && lanes_step_evenly_avx2(base, ~uint64_t(0), &step)) {
    const uint64_t first = base[0] + uint64_t(d.offset) - kGlobalBase[buffer];
    if (first > limit_bytes || first % 4 != 0) return 0;
    uint32_t v;
    std::memcpy(&v, data + first, 4);
    const __m256i all = _mm256_set1_epi64x(int64_t(v));
#pragma GCC unroll 8
    for (uint32_t i = 0; i < 8; ++i) _mm256_storeu_si256(reinterpret_cast<__m256i*>(r + 4 * i), all);
    w.written[d.data_regs[0]] = kAllLanes;  // note_decoded_write: |= all lanes
    return untraced_warp_load_issue(c);  // what account_global sets
  }
  // The mma.sync fragment pattern (step 08 reads its A and B fragments straight from global
  // memory): lanes 4g .. 4g + 3 read four consecutive words of one row, each group anywhere.
  // A group is one vector of four lanes: it matches when it equals its first lane + {0, 4, 8,
  // 12}; then each group is one 16-byte load instead of a gather, with the bounds and alignment
  // of its first lane (its last lies 12 bytes on).
  if (step == 4 && limit_bytes >= 12) {
    const __m256i quad = _mm256_setr_epi64x(0, 4, 8, 12);
    __m256i diff = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (uint32_t i = 0; i < 8; ++i) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + 4 * i));
      diff = _mm256_or_si256(diff, _mm256_xor_si256(v, _mm256_add_epi64(_mm256_set1_epi64x(int64_t(base[4 * i])), quad)));
    }
    if (_mm256_testz_si256(diff, diff)) {
      const uint64_t delta = uint64_t(d.offset) - kGlobalBase[buffer];
      uint64_t first[8], bad = 0;
#pragma GCC unroll 8
      for (uint32_t i = 0; i < 8; ++i) {
        first[i] = base[4 * i] + delta;
        bad |= uint64_t(first[i] > limit_bytes - 12) | (first[i] & 3);
      }
      if (bad == 0) {
#pragma GCC unroll 8
        for (uint32_t i = 0; i < 8; ++i) {
          const __m128i words = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + first[i]));
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(r + 4 * i), _mm256_cvtepu32_epi64(words));
        }
        w.written[d.data_regs[0]] = kAllLanes;  // note_decoded_write: |= all lanes
        return untraced_warp_load_issue(c);  // what account_global sets
      }
    }
  }
  // Any other pattern. As in lanes_inside: an offset past limit or below the buffer sets bit
  // 63 of (limit - o) | o, and a misaligned one sets a low bit of o.
  const __m256i delta = _mm256_set1_epi64x(int64_t(uint64_t(d.offset) - kGlobalBase[buffer]));
  const __m256i limit = _mm256_set1_epi64x(int64_t(limit_bytes));
  __m256i off[8];
  __m256i bad = _mm256_setzero_si256(), low_bits = _mm256_setzero_si256();
#pragma GCC unroll 8
  for (uint32_t i = 0; i < 8; ++i) {
    off[i] = _mm256_add_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + 4 * i)), delta);
    bad = _mm256_or_si256(bad, _mm256_or_si256(_mm256_sub_epi64(limit, off[i]), off[i]));
    low_bits = _mm256_or_si256(low_bits, off[i]);
  }
  const __m256i sign = _mm256_set1_epi64x(int64_t(uint64_t(1) << 63)), align = _mm256_set1_epi64x(3);
  if (!_mm256_testz_si256(bad, sign) || !_mm256_testz_si256(low_bits, align)) return 0;
  // Any other pattern: gathers (offsets are below 2^63 here, so their signed indices are exact).
#pragma GCC unroll 8
  for (uint32_t i = 0; i < 8; ++i)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(r + 4 * i),
                        _mm256_cvtepu32_epi64(_mm256_i64gather_epi32(reinterpret_cast<const int*>(data), off[i], 1)));
  w.written[d.data_regs[0]] = kAllLanes;  // note_decoded_write: |= all lanes
  return untraced_warp_load_issue(c);  // what account_global sets
}

// The same straight path where the CPU has AVX-512F, for the mma.sync fragment pattern (lanes
// 4g .. 4g + 3 at four consecutive words, each group anywhere; also the SIMT pattern of lane l
// at the first lane's address + 4 l): 8 lanes a vector, so the pattern, bounds and alignment of
// all 32 lanes are four vector steps, and two groups are one widening and one 64-byte store.
// direct_load_u32_avx2 took 215 instructions a fragment load (callgrind on step 08: its
// pattern test broadcast each group's first lane from a general register, and its bounds test
// went lane by lane through the stack); this takes about half. Any other warp goes to
// direct_load_u32_avx2, which decides as it always did: where this one reads, so would it
// (every lane inside the buffer and aligned, with the pattern, is what its fragment path
// tests of the first lane of each group), and the bytes are the same.
__attribute__((target("avx512f,avx2"))) uint32_t direct_load_u32_avx512(Cta& c, Warp& w, const DecodedInst& d) {
  if (w.written[d.src[0].reg] != kAllLanes || !d.no_wgmma_regs) return 0;
  const uint64_t* base = w.regs + 32 * size_t(d.src[0].reg);
  const GlobalMemory& global = *c.launch.global;
  const uint64_t buffer = global.index_of(base[0] + uint64_t(d.offset));
  if (base[1] - base[0] != 4 || buffer == global.buffers.size() || global.buffers[buffer]->size() < 16)
    return direct_load_u32_avx2(c, w, d);
  const uint8_t* data = global.buffers[buffer]->data();
  const uint64_t delta = uint64_t(d.offset) - kGlobalBase[buffer];
  const __m512i limit = _mm512_set1_epi64(int64_t(global.buffers[buffer]->size() - 4));
  // (T32) -> byte offset: lane 8i + j of vector i; a group's lanes are first + {0, 4, 8, 12}.
  const __m512i group_first = _mm512_setr_epi64(0, 0, 0, 0, 4, 4, 4, 4);
  const __m512i quad = _mm512_setr_epi64(0, 4, 8, 12, 0, 4, 8, 12);
  // Off the pattern: a bit of some lane's offset XOR what the pattern wants there; misaligned: a
  // low bit of some offset; out of bounds: the largest offset (unsigned: one below the buffer
  // wraps to a huge one) past limit. Folded over the four vectors, tested once.
  __m512i off[4], wrong = _mm512_setzero_si512(), largest;
#pragma GCC unroll 4
  for (uint32_t i = 0; i < 4; ++i) {
    off[i] = _mm512_add_epi64(_mm512_loadu_si512(base + 8 * i), _mm512_set1_epi64(int64_t(delta)));
    const __m512i want = _mm512_add_epi64(_mm512_maskz_permutexvar_epi64(0xFF, group_first, off[i]), quad);
    wrong = _mm512_or_si512(wrong, _mm512_or_si512(_mm512_xor_si512(off[i], want),
                                                   _mm512_and_si512(off[i], _mm512_set1_epi64(3))));
    largest = i == 0 ? off[0] : _mm512_maskz_max_epu64(0xFF, largest, off[i]);
  }
  if (_mm512_test_epi64_mask(wrong, wrong) != 0 || _mm512_cmpgt_epu64_mask(largest, limit) != 0)
    return direct_load_u32_avx2(c, w, d);
  // Each group's first offset out of the vectors before anything is stored: the destination may
  // be the address register itself. (The maskz forms with every lane set are the plain ones:
  // GCC 12's plain forms start from an undefined vector and warn that it may be used.)
  uint64_t first[8];
#pragma GCC unroll 4
  for (uint32_t i = 0; i < 4; ++i) {
    first[2 * i] = uint64_t(_mm_cvtsi128_si64(_mm512_maskz_extracti32x4_epi32(0xF, off[i], 0)));
    first[2 * i + 1] = uint64_t(_mm_cvtsi128_si64(_mm512_maskz_extracti32x4_epi32(0xF, off[i], 2)));
  }
  uint64_t* r = w.regs + 32 * size_t(d.data_regs[0]);  // zero-extended to 64 bits, what load_bytes reads
#pragma GCC unroll 4
  for (uint32_t i = 0; i < 4; ++i) {
    const __m256i words =
        _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(data + first[2 * i]))),
                                _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + first[2 * i + 1])), 1);
    _mm512_storeu_si512(r + 8 * i, _mm512_maskz_cvtepu32_epi64(0xFF, words));
  }
  w.written[d.data_regs[0]] = kAllLanes;  // note_decoded_write: |= all lanes
  return untraced_warp_load_issue(c);  // what account_global sets
}
#endif

// The global form as a memform::form_for form (baseline and AVX2 builds, by element size).
struct GlobalForm {
  template <bool kStore, uint32_t kElem, bool kAvx2>
  [[gnu::always_inline]] static inline void run(ExecContext& x) {
    global_form<kStore, kElem, kAvx2>(x);
  }
};

}  // namespace

ExecFn select_memory(const ir::Inst& in, Program&, DecodedInst& d, const ir::Kernel&) {
  const bool shared = in.op == Op::ld_shared || in.op == Op::st_shared;
  if (in.op != Op::ld_global && in.op != Op::st_global && !shared) return nullptr;
  const bool store = in.op == Op::st_global || in.op == Op::st_shared;
  const uint32_t elem = std::max<uint32_t>(ir::type_bits(in.type) / 8, 1);
  const uint32_t vec = std::max<uint32_t>(in.vec, 1);
  if (vec > 4 || !std::has_single_bit(elem * vec) || in.operands.size() != vec + 1) return nullptr;
  const ExecFn form = shared  ? memform::shared_form_for(store, elem)
                      : store ? memform::form_for<GlobalForm, true>(elem)
                              : memform::form_for<GlobalForm, false>(elem);
  if (!form) return nullptr;
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
#if defined(__x86_64__) && defined(__GNUC__)
  if (!store && elem == 4 && vec == 1 && form == memform::exec_form_avx2<GlobalForm, false, 4>)
    d.direct = cpu_has_avx512() ? direct_load_u32_avx512 : direct_load_u32_avx2;
#endif
  if (shared && !store && elem == 4 && vec == 1)
    d.direct = memform::shared_load_u32_direct();
  return form;
}

}  // namespace gs::model
