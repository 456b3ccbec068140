// exec_cp_async*: Ampere's asynchronous copies from global to shared memory (PTX ISA
// "cp.async", "cp.async.commit_group", "cp.async.wait_group / wait_all").
//
//   cp.async.{ca,cg}.shared.global [dst], [src], cp-size (, src-size)
//     each active thread copies cp-size bytes (4, 8 or 16; .cg only 16); with src-size, only
//     the first src-size bytes are read and the rest of the cp-size bytes are zero-filled.
//   cp.async.commit_group   closes this thread's copies issued since the last commit into a group.
//   cp.async.wait_group N   waits until at most N of this thread's groups are pending.
//
// The model reads global memory at issue (A and B are read-only in a GEMM) and lands the bytes
// in shared memory when a wait retires their group: until then the destination words are
// pending. Touching them is one of two hazards (exec_mem.cpp, check_shared_words): a
// cp-async-race when another warp issued the copy since the last barrier (or a copy lands on
// words another warp read since it), a cp-async-read-before-wait when the copy's group was
// not retired by a wait first (the Ampere seed's `steady-state-wait-at-tail` pitfall); the
// read then sees the stale bytes, deterministically. Groups are kept per warp: the warp's lanes
// commit and wait together (the instructions are not divergent in any kernel here; a
// divergent commit or wait is reported).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include <fmt/format.h>

#include "engine/ir/signature.hpp"
#include "engine/layout/banks.hpp"
#include "engine/model/exec_context.hpp"
#include "engine/model/exec_mem_forms.hpp"
#include "engine/model/operands.hpp"
#include "engine/model/word_bits.hpp"

namespace gs::model {

namespace {

void report_divergent(ExecContext& x) {
  if (x.mask != x.warp.live())
    report(x.cta, HazardKind::divergent_cp_async_group, x.inst_id, x.warp.id, uint32_t(std::countr_zero(x.mask)), 0,
           "cp.async groups are per thread, but the model keeps them per warp: commit and wait with every "
           "live lane of the warp");
}

// A copy's 16, 8 or 4 bytes (a fixed-size copy each: memcpy with a variable size is a call).
inline void copy_bytes(uint8_t* to, const uint8_t* from, uint32_t bytes) {
  switch (bytes) {
    case 16: std::memcpy(to, from, 16); break;
    case 8: std::memcpy(to, from, 8); break;
    default: std::memcpy(to, from, 4); break;
  }
}

// A whole warp's copies of kBytes each whose destinations fill one range from `low`: lane l's
// bytes from global address gaddr[l] (in the buffer at `buffer`, whose window starts at `from0`)
// to into + (saddr[l] - low), the range's place in its group's data.
template <uint32_t kBytes>
void copy_lanes(uint8_t* into, const uint8_t* buffer, const uint32_t* saddr, uint32_t low, const uint64_t* gaddr,
                uint64_t from0) {
  for (uint32_t l = 0; l < 32; ++l) {
    const uint8_t* from = buffer + (gaddr[l] - from0);
    // A hint to the host's cache, nothing more: a K loop's next copy of this row reads the
    // next line, and these reads were most of quiet_copies' time (cache misses).
    __builtin_prefetch(from + 64);
    std::memcpy(into + (saddr[l] - low), from, kBytes);
  }
}

// A record's 8 bytes as one 64-bit word, and a change of several of its fields as one AND and
// one OR of it: the bits it keeps and those it sets, made from the struct itself
// (smem_word_bytes), so they follow its layout.
using RecordBits = uint64_t;
void change_record(SmemWord& s, RecordBits keeps, RecordBits sets) {
  RecordBits v;
  std::memcpy(&v, &s, sizeof v);
  v = (v & keeps) | sets;
  std::memcpy(static_cast<void*>(&s), &v, sizeof v);
}
// Landing: written, by this warp, in this epoch (no longer pending: Cta::cp_async_pending_bits).
const RecordBits kLandKeeps = smem_word_bytes<RecordBits>(0xFF, [](SmemWord& s) {
  s.written = false;
  s.writer_warp = 0;
  s.epoch = 0;
});
RecordBits land_sets(uint32_t warp, uint32_t epoch) {
  return smem_word_bytes<RecordBits>(0, [&](SmemWord& s) {
    s.written = true;
    s.writer_warp = uint8_t(warp);
    s.epoch = epoch;
  });
}

#if defined(__x86_64__) && defined(__GNUC__)
// Every 16-byte copy's four records (half a 64-byte line of them) changed as (record & keep) |
// set, one 256-bit AND and OR: a retired group's at landing (the copies' destinations
// `first[i]`, in words), in one call.
__attribute__((target("avx2"))) void change_fours_avx2(SmemWord* state, const uint32_t* first, uint32_t n,
                                                       RecordBits keeps, RecordBits sets) {
  static_assert(sizeof(SmemWord) == 8);
  const __m256i keep = _mm256_set1_epi64x(int64_t(keeps)), set = _mm256_set1_epi64x(int64_t(sets));
  for (uint32_t i = 0; i < n; ++i) {
    __m256i* const p = reinterpret_cast<__m256i*>(state + first[i]);
    _mm256_storeu_si256(p, _mm256_or_si256(_mm256_and_si256(_mm256_loadu_si256(p), keep), set));
  }
}
// The same for the n records from `state` (n a multiple of 4): a whole warp's copy, whose records
// are one run (step 09's 512 bytes: 128 records), changed in place without a list of its fours.
__attribute__((target("avx2"))) void change_run_avx2(SmemWord* state, uint32_t n, RecordBits keeps,
                                                     RecordBits sets) {
  const __m256i keep = _mm256_set1_epi64x(int64_t(keeps)), set = _mm256_set1_epi64x(int64_t(sets));
  for (uint32_t i = 0; i < n; i += 4) {
    __m256i* const p = reinterpret_cast<__m256i*>(state + i);
    _mm256_storeu_si256(p, _mm256_or_si256(_mm256_and_si256(_mm256_loadu_si256(p), keep), set));
  }
}
#endif

// The plain-read entries (Cta::smem_plain_lines) of the lines a landed group wrote, which its
// landing leaves Cta::plain_key as it was for: a line one of its copies fills whole holds words
// written now, in barrier epoch E, so a look at it in epoch E + 1 (after the next barrier) finds
// every word a plain read (memform::read_is_plain) where no copy or TMA load is pending into it,
// and the entry says so for that epoch. Every other line it wrote gets a stale entry (a look
// then). Like a look's, the entry ends at the next write that moves the key, or in any other
// epoch. (Unsized entries are all stale: plain_lines sizes them at the first read.)
void note_landed_lines(Cta& c, const Warp::CpAsyncGroup& g) {
  std::vector<Cta::PlainLine>& lines = c.smem_plain_lines;
  const uint32_t nwords = uint32_t(c.smem_word_state.size());
  if (lines.size() != (nwords + 31) / 32) return;
  const Cta::PlainLine landed{c.plain_key(), c.barrier_epoch + 1, true};
  const auto pending = [&](uint32_t lo, uint32_t hi) {
    return c.any_tma_pending(lo, hi) || word_bits::any(c.cp_async_pending_bits, lo, hi);
  };
  for (const Warp::CpAsyncCopy& copy : g.copies) {
    const uint32_t off = copy.smem - timing::kSmemBaseAddress;
    const uint32_t first = off / 4, end = std::min((off + copy.bytes + 3) / 4, nwords);
    // The lines it fills whole, [whole_lo, whole_hi), between those it writes in part.
    const uint32_t whole_lo = (first + 31) / 32, whole_hi = std::max(end / 32, whole_lo);
    for (uint32_t line = first / 32; line < whole_lo; ++line) lines[line] = {};
    for (uint32_t line = whole_hi; 32 * line < end; ++line) lines[line] = {};
    // Their pending bits at once (a whole warp's copy: 4 lines); a line at a time where one is set.
    const bool any_pending = pending(32 * whole_lo, 32 * whole_hi);
    for (uint32_t line = whole_lo; line < whole_hi; ++line)
      lines[line] = any_pending && pending(32 * line, 32 * line + 32) ? Cta::PlainLine{} : landed;
  }
}

// Puts a retired group's bytes into shared memory; the words are written by this warp now
// (so another warp reading them needs a barrier first, as on the GPU): no longer pending,
// written, by this warp, in this barrier epoch.
void land(Cta& c, const Warp& w, const Warp::CpAsyncGroup& g) {
  ++c.smem_writes;
  ++c.smem_writes_landed;  // its lines' plain-read entries are set below instead (note_landed_lines)
  const RecordBits keeps = kLandKeeps, sets = land_sets(w.id, c.barrier_epoch);
  SmemWord* const state = c.smem_word_state.data();
  uint64_t* const pending = c.cp_async_pending_bits.data();
  uint64_t* const landed = c.records_landed.data();
  uint8_t* const smem = c.smem.data();
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = cpu_has_avx2();
  // The 16-byte copies' records, a call for the group (kFours at a time), a whole warp's copy's as
  // a run, the others word by word.
  constexpr uint32_t kFours = 64;
  uint32_t fours[kFours], nfours = 0;
#endif
  for (const Warp::CpAsyncCopy& copy : g.copies) {
    const uint32_t off = copy.smem - timing::kSmemBaseAddress, bytes = copy.bytes;
    const uint8_t* const data = g.data.data() + copy.at;
    if (bytes <= 16) copy_bytes(smem + off, data, bytes);
    else std::memcpy(smem + off, data, bytes);
    const uint32_t first = off / 4, end = (off + bytes + 3) / 4;
#if defined(__x86_64__) && defined(__GNUC__)
    // A whole warp's copy of 16 bytes or more: its records as one run, four at a time; a 16-byte
    // copy's four with the group's others, in one call.
    if (avx2 && bytes > 16 && bytes % 16 == 0 && off % 4 == 0) {
      change_run_avx2(state + first, end - first, keeps, sets);
    } else if (avx2 && bytes % 16 == 0 && off % 4 == 0) {
      for (uint32_t at = first; at < end; at += 4) {
        fours[nfours++] = at;
        if (nfours == kFours) {
          change_fours_avx2(state, fours, nfours, keeps, sets);
          nfours = 0;
        }
      }
    } else
#endif
      for (uint32_t word = first; word < end; ++word) change_record(state[word], keeps, sets);
    // Its words' pending bits in one step (a copy of 4, 8 or 16 bytes is aligned to its size:
    // its words lie in one 64-bit word of the bits; a warp's, a 64-bit word at a time); its
    // records written by a warp, not as a TMA landing leaves them (Cta::records_landed), alike.
    // (Which copy it was stays: Cta::cp_async_warp is read only where a pending bit is set.)
    if (end - first <= 4 && first / 64 == (end - 1) / 64) {
      const uint64_t bits = ~(((uint64_t(1) << (end - first)) - 1) << (first % 64));
      pending[first / 64] &= bits;
      landed[first / 64] &= bits;
    } else {
      word_bits::each_run(first, end, [&](uint32_t i, uint64_t run) {
        pending[i] &= ~run;
        landed[i] &= ~run;
        return true;
      });
    }
  }
#if defined(__x86_64__) && defined(__GNUC__)
  if (nfours) change_fours_avx2(state, fours, nfours, keeps, sets);
#endif
  note_landed_lines(c, g);
}

// Marks the destination words as written by this warp's copy from now until a wait retires
// it. A copy into words that another warp read (or is still copying into) since the last
// barrier races that access: the Ampere seed's `no-sync-before-prefetch` pitfall, where a
// fast warp prefetches into the stage slower warps are still reading.
void mark_pending(ExecContext& x, uint32_t dst, uint32_t bytes, uint32_t lane) {
  Cta& c = x.cta;
  const uint32_t off = dst - timing::kSmemBaseAddress;
  for (uint32_t word = off / 4; word < (off + bytes + 3) / 4; ++word) {
    if (const uint32_t others = c.read_by_others(x.warp.id, word); others != 0)
      report(c, HazardKind::cp_async_race, x.inst_id, x.warp.id, lane, dst,
             fmt::format("warp {}'s cp.async overwrites shared address 0x{:X} that warp {} read with no barrier in "
                         "between: the copy can land before that read has happened",
                         x.warp.id, timing::kSmemBaseAddress + 4 * word, std::countr_zero(others)));
    else if (c.cp_async_pending_at(word) && c.cp_async_warp[word] != x.warp.id && c.copied_now(word))
      report(c, HazardKind::cp_async_race, x.inst_id, x.warp.id, lane, dst,
             fmt::format("warp {}'s cp.async writes shared address 0x{:X} while warp {}'s cp.async into it is "
                         "still in flight",
                         x.warp.id, timing::kSmemBaseAddress + 4 * word, uint32_t(c.cp_async_warp[word])));
    c.cp_async_pending_bits[word / 64] |= uint64_t(1) << (word % 64);
    c.copies_now()[word / 64] |= uint64_t(1) << (word % 64);
    c.cp_async_warp[word] = uint8_t(x.warp.id);
  }
}

// The copies of the active lanes, lane by lane with every check: each lane's destination,
// source and data (Sources only where there is a src-size operand to read: the others are
// memory operands and an immediate, which it neither reads nor checks).
void lane_copies(ExecContext& x, const ir::cp_async_operands& ops, uint32_t bytes, std::array<uint32_t, 32>& saddr,
                 std::array<uint64_t, 32>& gaddr, uint32_t& reading) {
  Cta& c = x.cta;
  Warp& w = x.warp;
  std::optional<Sources> src;
  if (ops.src_bytes) src.emplace(x);
  for (uint32_t l = 0; l < 32; ++l) {
    if (!(x.mask >> l & 1)) continue;
    const uint32_t dst = memory_address32(x, ops.dst, l);
    const uint64_t from = memory_address64(x, ops.src, l);
    const uint32_t src_bytes = ops.src_bytes ? uint32_t(src->get(ops.src_bytes_at, l)) : bytes;
    saddr[l] = dst;
    if (src_bytes > bytes)
      report(c, HazardKind::bad_cp_async, x.inst_id, w.id, l, from,
             fmt::format("src-size {} is larger than the cp-size {}: it must be 0..{}", src_bytes, bytes, bytes));
    if (!smem_ptr(x, dst, bytes, l, true)) continue;
    std::vector<uint8_t>& data = w.cp_async_uncommitted_data;
    const Warp::CpAsyncCopy copy{dst, bytes, uint32_t(data.size())};
    data.resize(data.size() + bytes);  // zeros: what a src-size short of the cp-size leaves
    const uint32_t read = std::min(src_bytes, bytes);
    if (read > 0) {
      gaddr[l] = from;
      reading |= 1u << l;
      if (const uint8_t* p = c.launch.global->find(from, read))
        std::memcpy(data.data() + copy.at, p, read);
      else
        report(c, HazardKind::out_of_bounds_global, x.inst_id, w.id, l, from,
               fmt::format("cp.async reads {} bytes at global address 0x{:X}, outside every buffer of this GEMM", read,
                           from));
      if (from % bytes != 0)
        report(c, HazardKind::misaligned, x.inst_id, w.id, l, from,
               fmt::format("a {}-byte cp.async source at 0x{:X} is not {}-byte aligned", bytes, from, bytes));
    }
    mark_pending(x, dst, bytes, l);
    w.cp_async_uncommitted.push_back(copy);
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// quiet_copies' address loop for a whole warp, four lanes an instruction: each lane's shared
// destination u32(dst + dst_imm) into saddr and global source src + src_imm into gaddr, and
// whether every destination's offset from the shared window is at most smem_limit, every
// source's from `base` at most `limit` (an offset below the buffer is one past 2^63: bit 63 of
// (limit - o) | o, as direct_load_u32_avx2 tests it), and both aligned to `bytes`.
__attribute__((target("avx2"))) bool copy_addresses_avx2(const uint64_t* dst, const uint64_t* src, int64_t dst_imm,
                                                         int64_t src_imm, uint64_t smem_limit, uint64_t base,
                                                         uint64_t limit, uint32_t bytes, uint32_t* saddr,
                                                         uint64_t* gaddr) {
  const __m256i dimm = _mm256_set1_epi64x(dst_imm), simm = _mm256_set1_epi64x(src_imm);
  const __m256i window = _mm256_set1_epi64x(int64_t(timing::kSmemBaseAddress));
  const __m256i low32 = _mm256_set1_epi64x(0xFFFFFFFF);
  const __m256i slimit = _mm256_set1_epi64x(int64_t(smem_limit)), glimit = _mm256_set1_epi64x(int64_t(limit));
  const __m256i gbase = _mm256_set1_epi64x(int64_t(base));
  const __m256i pick = _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0);
  __m256i bad = _mm256_setzero_si256(), low = _mm256_setzero_si256();
  for (uint32_t l = 0; l < 32; l += 4) {
    const __m256i a = _mm256_add_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(dst + l)), dimm);
    const __m256i from = _mm256_add_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + l)), simm);
    const __m256i so = _mm256_and_si256(_mm256_sub_epi64(a, window), low32);  // u32(a - kSmemBaseAddress)
    const __m256i go = _mm256_sub_epi64(from, gbase);
    bad = _mm256_or_si256(bad, _mm256_or_si256(_mm256_sub_epi64(slimit, so),
                                               _mm256_or_si256(_mm256_sub_epi64(glimit, go), go)));
    low = _mm256_or_si256(low, _mm256_or_si256(a, from));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(saddr + l), _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(a, pick)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(gaddr + l), from);
  }
  return _mm256_testz_si256(bad, _mm256_set1_epi64x(int64_t(uint64_t(1) << 63))) &&
         _mm256_testz_si256(low, _mm256_set1_epi64x(int64_t(bytes - 1)));
}

// quiet_copies' test of a whole warp's destinations, eight lanes an instruction: the lowest
// address into `low`, and bit i set where some lane's address is low + i * 2^shift (a slot past
// 31 sets none: _mm256_sllv_epi32 shifts a count past 31 to zero).
__attribute__((target("avx2"))) uint32_t filled_slots_avx2(const uint32_t* saddr, uint32_t shift, uint32_t& low) {
  __m256i v[4];
  for (uint32_t i = 0; i < 4; ++i) v[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(saddr + 8 * i));
  __m256i m = _mm256_min_epu32(_mm256_min_epu32(v[0], v[1]), _mm256_min_epu32(v[2], v[3]));
  m = _mm256_min_epu32(m, _mm256_permute2x128_si256(m, m, 1));
  m = _mm256_min_epu32(m, _mm256_shuffle_epi32(m, 0x4E));
  m = _mm256_min_epu32(m, _mm256_shuffle_epi32(m, 0xB1));
  low = uint32_t(_mm256_cvtsi256_si32(m));
  const __m128i count = _mm_cvtsi32_si128(int(shift));
  const __m256i one = _mm256_set1_epi32(1);
  __m256i bits = _mm256_setzero_si256();
  for (uint32_t i = 0; i < 4; ++i)
    bits = _mm256_or_si256(bits, _mm256_sllv_epi32(one, _mm256_srl_epi32(_mm256_sub_epi32(v[i], m), count)));
  bits = _mm256_or_si256(bits, _mm256_permute2x128_si256(bits, bits, 1));
  bits = _mm256_or_si256(bits, _mm256_shuffle_epi32(bits, 0x4E));
  bits = _mm256_or_si256(bits, _mm256_shuffle_epi32(bits, 0xB1));
  return uint32_t(_mm256_cvtsi256_si32(bits));
}
#endif

// lane_copies where it would report nothing, which it then does in flat loops: no src-size
// operand, every lane's destination inside shared memory and aligned, its source inside one of
// the GEMM's buffers and aligned, and no word of any destination raced (what mark_pending
// reports, looked at for every lane before any is marked: a lane's marks make no later lane of
// the warp report, as they name this warp). False, having changed nothing, otherwise.
bool quiet_copies(ExecContext& x, const ir::cp_async_operands& ops, uint32_t bytes, std::array<uint32_t, 32>& saddr,
                  std::array<uint64_t, 32>& gaddr) {
  Cta& c = x.cta;
  Warp& w = x.warp;
  const uint32_t mask = x.mask;
  const uint64_t size = c.smem.size();
  if (mask == 0 || ops.dst.kind != ir::OperandKind::mem_reg || ops.src.kind != ir::OperandKind::mem_reg ||
      size < bytes || c.smem_word_state.size() * 4 < size)
    return false;
  const uint64_t* dst = c.reg_lanes(w.id, ops.dst.id);
  const uint64_t* src = c.reg_lanes(w.id, ops.src.id);
  // The buffer of the first lane's source; every lane's must be inside it.
  const GlobalMemory& global = *c.launch.global;
  const uint64_t buffer = global.index_of(src[std::countr_zero(mask)] + uint64_t(ops.src.imm));
  if (buffer == global.buffers.size() || global.buffers[buffer]->size() < bytes) return false;
  const uint64_t limit = global.buffers[buffer]->size() - bytes;
  uint64_t bad = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = cpu_has_avx2();
  if (avx2 && mask == kAllLanes) {
    if (!copy_addresses_avx2(dst, src, ops.dst.imm, ops.src.imm, size - bytes, kGlobalBase[buffer], limit, bytes,
                             saddr.data(), gaddr.data()))
      return false;
  } else
#endif
  {
    for (uint32_t m = mask; m; m &= m - 1) {
      const uint32_t l = uint32_t(std::countr_zero(m));
      const uint32_t a = uint32_t(dst[l] + uint64_t(ops.dst.imm));  // memory_address32
      const uint64_t from = src[l] + uint64_t(ops.src.imm);          // memory_address64
      saddr[l] = a;
      gaddr[l] = from;
      // As smem_ptr and GlobalMemory::find, and both alignments (cp-size: 4, 8 or 16).
      const uint64_t off = from - kGlobalBase[buffer];
      bad |= uint64_t(uint64_t(a - timing::kSmemBaseAddress) > size - bytes) | uint64_t(off > limit) |
             ((uint64_t(a) | from) & (bytes - 1));
    }
    if (bad != 0) return false;
  }
  const uint32_t epoch = c.barrier_epoch;
  uint8_t* const by = c.cp_async_warp.data();
  const uint32_t words = bytes / 4;
  // The other warps with reads in this interval (Cta::smem_read_bits), whose bits are looked at.
  std::array<const uint64_t*, kMaxCtaWarps> readers;
  uint32_t nreaders = 0;
  for (uint32_t v = 0; v < c.warps.size() && v < kMaxCtaWarps && c.smem_read_row != 0; ++v)
    if (v != w.id && c.smem_read_epoch[v] == epoch)
      readers[nreaders++] = c.smem_read_bits.data() + size_t(v) * c.smem_read_row;
  // A lane's words are aligned to their count (1, 2 or 4): one word of the pending bits.
  const uint64_t* const pending = c.cp_async_pending_bits.data();
  // Whether a pending word's copy is another warp's of this interval (what a race needs).
  const bool any_now = c.cp_async_now_epoch == epoch;
  const uint64_t* const now = c.cp_async_now_bits.data();
  const auto raced = [&](uint32_t i) {
    return (pending[i / 64] >> (i % 64) & 1) && by[i] != w.id && any_now && (now[i / 64] >> (i % 64) & 1);
  };
  const uint64_t lane_bits = (uint64_t(1) << words) - 1;
  // A whole warp whose lanes fill 32 cp-sizes of consecutive bytes, in any order (step 09's
  // copies in lane order, step 10's swizzled within their rows): one copy, its words one range.
  bool consecutive = false;
  uint32_t low = 0, first0 = 0;  // the range's lowest address and word (consecutive only)
  if (mask == kAllLanes) {
    const int shift = std::countr_zero(bytes);  // bytes is 4, 8 or 16 (a division was a quarter of this function)
    uint32_t filled = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (avx2) filled = filled_slots_avx2(saddr.data(), uint32_t(shift), low);
    else
#endif
    {
      low = *std::min_element(saddr.begin(), saddr.end());
      for (uint32_t l = 0; l < 32; ++l) {
        const uint32_t slot = (saddr[l] - low) >> shift;  // the addresses are aligned to bytes
        filled |= slot < 32 ? uint32_t(1) << slot : 0;
      }
    }
    consecutive = filled == kAllLanes;
    first0 = (low - timing::kSmemBaseAddress) / 4;
  }
  // The destination words as bits of a window of kWindow 64-bit words from the lowest lane's
  // (a warp's copies of 16 bytes a lane are 512 bytes, 2 or 3 of them; a swizzled stage's rows
  // stay in it), so that the pending bits and each reader's row are looked at an AND per 64
  // words instead of a test per word. A wider spread takes the loop by lanes.
  constexpr uint32_t kWindow = 8;
  uint32_t lo = ~0u, hi = 0;
  if (consecutive) {
    lo = first0 / 64;
    hi = (first0 + 32 * words - 1) / 64;
  } else {
    for (uint32_t m = mask; m; m &= m - 1) {
      const uint32_t first = (saddr[std::countr_zero(m)] - timing::kSmemBaseAddress) / 4;
      lo = std::min(lo, first / 64);
      hi = std::max(hi, first / 64);
    }
  }
  std::array<uint64_t, kWindow> want{};
  const bool windowed = hi - lo < kWindow;
  if (windowed) {
    if (consecutive) {
      word_bits::each_run(first0, first0 + 32 * words, [&](uint32_t i, uint64_t run) {
        want[i - lo] = run;
        return true;
      });
    } else {
      // Lane by lane, a run of lanes in one 64-bit word ORed in a register (each OR into want[]
      // was a chain through memory).
      uint32_t at = ~0u;
      uint64_t run = 0;
      for (uint32_t m = mask; m; m &= m - 1) {
        const uint32_t first = (saddr[std::countr_zero(m)] - timing::kSmemBaseAddress) / 4;
        if (first / 64 != at) {
          if (at != ~0u) want[at - lo] |= run;
          at = first / 64;
          run = 0;
        }
        run |= lane_bits << (first % 64);
      }
      want[at - lo] |= run;
    }
    uint64_t clash = 0, read = 0;
    for (uint32_t i = 0; i <= hi - lo; ++i) clash |= pending[lo + i] & want[i];
    for (uint32_t r = 0; r < nreaders; ++r)
      for (uint32_t i = 0; i <= hi - lo; ++i) read |= readers[r][lo + i] & want[i];
    if (read != 0) return false;
    // A word still pending: look at its mark, as the loop by lanes does.
    if (clash != 0)
      for (uint32_t m = mask; m; m &= m - 1) {
        const uint32_t first = (saddr[std::countr_zero(m)] - timing::kSmemBaseAddress) / 4;
        if (pending[first / 64] >> (first % 64) & lane_bits)
          for (uint32_t i = first; i < first + words; ++i)
            if (raced(i)) return false;
      }
  }
  for (uint32_t m = windowed ? 0 : mask; m; m &= m - 1) {
    const uint32_t first = (saddr[std::countr_zero(m)] - timing::kSmemBaseAddress) / 4;
    if (pending[first / 64] >> (first % 64) & lane_bits)
      for (uint32_t i = first; i < first + words; ++i)
        if (raced(i)) return false;
    for (uint32_t r = 0; r < nreaders; ++r)
      for (uint32_t i = first; i < first + words; ++i)
        if (readers[r][i / 64] >> (i % 64) & 1) return false;
  }
  // What the lane loop does: smem_ptr's count of stores, each lane's copy of its bytes, and
  // mark_pending's marks.
  c.smem_writes += uint32_t(std::popcount(mask));
  uint64_t* const copied = c.copies_now();
  if (windowed)
    for (uint32_t i = 0; i <= hi - lo; ++i) {
      c.cp_async_pending_bits[lo + i] |= want[i];
      copied[lo + i] |= want[i];
    }
  const uint8_t* src_data = global.buffers[buffer]->data();
  std::vector<Warp::CpAsyncCopy>& out = w.cp_async_uncommitted;
  std::vector<uint8_t>& data = w.cp_async_uncommitted_data;
  const uint32_t at = uint32_t(data.size());
  data.resize(data.size() + size_t(std::popcount(mask)) * bytes);
  size_t n = out.size();
  out.resize(n + (consecutive ? 1 : size_t(std::popcount(mask))));
  if (consecutive) {
    // One copy, its words one range of the window (marked above): each lane's bytes at its
    // place in the range, a flat loop of fixed-size copies (the loop by lanes below, with its
    // tests per lane, was three quarters of this function on step 09).
    out[n] = {low, 32 * bytes, at};
    uint8_t* const into = data.data() + at;
    const uint64_t from0 = kGlobalBase[buffer];
    switch (bytes) {
      case 16: copy_lanes<16>(into, src_data, saddr.data(), low, gaddr.data(), from0); break;
      case 8: copy_lanes<8>(into, src_data, saddr.data(), low, gaddr.data(), from0); break;
      default: copy_lanes<4>(into, src_data, saddr.data(), low, gaddr.data(), from0); break;
    }
    std::memset(by + first0, int(w.id), 32 * words);
    return true;
  }
  for (uint32_t m = mask, next = at; m; m &= m - 1, next += bytes) {
    const uint32_t l = uint32_t(std::countr_zero(m));
    // A lane's bytes where its destination is in the warp's range (by lanes: in lane order).
    const uint32_t to = consecutive ? at + (saddr[l] - low) : next;
    if (!consecutive) out[n++] = {saddr[l], bytes, to};
    const uint8_t* from = src_data + (gaddr[l] - kGlobalBase[buffer]);
    // A hint to the host's cache, nothing more: a K loop's next copy of this row reads the
    // next line, and these reads were most of this function's time (cache misses).
    __builtin_prefetch(from + 64);
    copy_bytes(data.data() + to, from, bytes);
    const uint32_t first = (saddr[l] - timing::kSmemBaseAddress) / 4;
    if (!windowed) {
      c.cp_async_pending_bits[first / 64] |= lane_bits << (first % 64);
      copied[first / 64] |= lane_bits << (first % 64);
    }
    if (!consecutive) std::memset(by + first, int(w.id), words);
  }
  // Each destination word's copy: this warp's (its records are the landing's to change).
  if (consecutive) std::memset(by + first0, int(w.id), 32 * words);
  return true;
}

// What a cp.async costs once its copies are made (quiet_copies or lane_copies): the shared
// side's wavefronts, the global side's lines, and when its group can land.
void account_copies(ExecContext& x, uint32_t bytes, bool quiet, const std::array<uint32_t, 32>& saddr,
                    const std::array<uint64_t, 32>& gaddr, uint32_t reading);

}  // namespace

void exec_cp_async(ExecContext& x) {
  expect_op(x, "exec_cp_async", ir::Op::cp_async_cg, ir::Op::cp_async_ca);
  Cta& c = x.cta;
  const ir::cp_async_operands ops = ir::cp_async_operands_of(x.inst);
  const uint32_t bytes = uint32_t(ops.bytes.imm);
  if (bytes != 4 && bytes != 8 && bytes != 16) {
    report(c, HazardKind::bad_cp_async, x.inst_id, x.warp.id, kNone, 0,
           fmt::format("cp.async copies 4, 8 or 16 bytes per thread, not {}", bytes));
    return;
  }
  // Every lane's addresses, 0 for a lane that has none (the trace records all 32): a whole
  // warp's quiet copies write all of them, so they are zeroed only where that may not happen
  // (zeroing them was 6% of this function).
  std::array<uint32_t, 32> saddr;
  std::array<uint64_t, 32> gaddr;
  const bool whole = x.mask == kAllLanes;
  if (!whole) saddr.fill(0), gaddr.fill(0);
  uint32_t reading = 0;  // lanes that read global memory (a zero src-size reads nothing)
  const bool quiet = !ops.src_bytes && quiet_copies(x, ops, bytes, saddr, gaddr);
  if (quiet) {
    reading = x.mask;
  } else {
    if (whole) saddr.fill(0), gaddr.fill(0);
    lane_copies(x, ops, bytes, saddr, gaddr, reading);
  }
  account_copies(x, bytes, quiet, saddr, gaddr, reading);
}

namespace {

// Whether a whole warp's destinations lie in lane order, lane l at saddr[0] + l bytes.
bool lanes_in_order(const std::array<uint32_t, 32>& saddr, uint32_t bytes) {
  uint32_t differ = 0;
  for (uint32_t l = 0; l < 32; ++l) differ |= saddr[l] ^ (saddr[0] + l * bytes);
  return differ == 0;
}

// The bank count of a whole warp's copies of `bytes` (4, 8 or 16) each into consecutive places in
// lane order, the first aligned to its size (as every quiet copy's is): the same from any such
// place, as each phase's lanes then fill one run of 128 bytes, which asks each unit-slot of the
// line once (layout::count_shared_wavefronts), so it is worked out once, from one of them.
const layout::BankCount& copy_run_cost(uint32_t bytes) {
  static const std::array<layout::BankCount, 3> kBySize = [] {
    std::array<layout::BankCount, 3> t{};
    for (uint32_t i = 0; i < 3; ++i) {
      std::array<uint32_t, 32> addr;
      for (uint32_t l = 0; l < 32; ++l) addr[l] = 0x10000 + l * (4u << i);
      t[i] = layout::count_shared_wavefronts(addr, kAllLanes, 4u << i, layout::Phasing::by_width);
    }
    return t;
  }();
  return kBySize[std::countr_zero(bytes) - 2];
}

void account_copies(ExecContext& x, uint32_t bytes, bool quiet, const std::array<uint32_t, 32>& saddr,
                    const std::array<uint64_t, 32>& gaddr, uint32_t reading) {
  Cta& c = x.cta;
  Warp& w = x.warp;
  // The shared side goes through the bank model as one warp-wide store of cp-size bytes, its
  // wavefronts on the L1's data path. The global side looks up each 128-byte line it reads at
  // the L1's tag stage, a line a cycle as a global load's lines (l1_lines_per_cycle), and what a
  // load that asks L2 holds beyond them (l1_miss_request_cycles: .cg and .ca alike are not held
  // for the copy): its 512 bytes as 4 whole lines take 4.3 (probe cp_async_fill_32warps), as 16
  // lines of one sector each, step 09's copies', 16.3 (cp_async_fill_rows32_32warps). The lines
  // beyond its wavefronts hold the data path too, cp_async_line_path_cycles each (probes
  // cp_async_fill_*_lds80_32warps, where the ld.shared beside the copies bound it). Its data
  // lands the global latency after both have carried it; the warp goes on at once. A lane whose
  // destination is not aligned to the cp-size (reported: it faults on the GPU) has no place in a
  // bank phase, and the bank model takes the others, as ldmatrix's rows (quiet copies are all
  // aligned).
  uint32_t banked = x.mask;
  if (!quiet)
    for (uint32_t m = x.mask; m; m &= m - 1)
      if (saddr[uint32_t(std::countr_zero(m))] % bytes != 0) banked &= ~(1u << std::countr_zero(m));
  // The copy's own wavefronts are not held behind the copies before it (copies_tagged: what the
  // shared accesses after them wait for); its tag look-ups are, below.
  const uint32_t queue = timing::scheduler_of_warp(w.id);
  const uint64_t queued = std::exchange(c.copies_tagged[queue], 0);
  uint32_t wavefronts = 0;
  if (quiet && x.mask == kAllLanes && !c.trace && lanes_in_order(saddr, bytes)) {
    // What account_shared charges for it (an untraced CTA records nothing), from the count
    // of its pattern: the general count of its lanes was 2% of step 09's instructions.
    const layout::BankCount n = copy_run_cost(bytes);
    memform::charge_shared(x, n.wavefronts, n.ideal_wavefronts);
    wavefronts = n.wavefronts;
  } else if (banked == x.mask) {
    wavefronts = account_shared(x, saddr, bytes, true);
  } else {
    ExecContext aligned = x;
    aligned.mask = banked;
    wavefronts = account_shared(aligned, saddr, bytes, true);
    x.latency = aligned.latency;
  }
  uint64_t carried = c.now + (wavefronts ? x.latency - timing::kSharedLatency + 1 : 0);
  uint64_t tagged = 0;  // when its lines have passed the tag stage (the traced CTA's)
  if (c.trace) {
    const uint32_t distinct = distinct_lines(gaddr, reading, bytes);
    c.cost.cp_async_lines += distinct;
    const double lines = double(distinct) / timing::kL1LinesPerCycle;
    const auto whole_cycles = [](double& fraction, double cycles) {
      fraction += cycles;
      const double whole = std::floor(fraction);
      fraction -= whole;
      return uint64_t(whole);
    };
    if (const uint64_t tag = whole_cycles(c.l1_tag_fraction, lines + timing::kL1MissRequestCycles); tag > 0) {
      tagged = c.tag_path.take(c.now, tag).end;
      c.cost.tag_cycles += tag;
      carried = std::max(carried, tagged);
    }
    if (lines > wavefronts) {
      const uint64_t extra =
          whole_cycles(c.l1_data_fraction, (lines - double(wavefronts)) * timing::kCpAsyncLinePathCycles);
      if (extra > 0) {
        carried = std::max(carried, c.data_path.take(c.now, extra).end);
        c.cost.lsu_cycles += extra;
      }
    }
  }
  c.copies_tagged[queue] = std::max(queued, tagged);
  const uint64_t read_before = c.cost.global_load_bytes;
  account_global(x, bytes, false, gaddr, reading, kCountSectors, false);
  c.cost.cp_async_bytes += c.cost.global_load_bytes - read_before;
  w.cp_async_uncommitted_complete_at =
      std::max(w.cp_async_uncommitted_complete_at, carried + c.launch.figures->global_latency);
  x.latency = timing::kAluLatency;
}

// The copies since the last commit become the warp's newest group. An empty group is allowed
// and complete at once (PTX ISA: commit_group with no copies).
void commit_copies(Cta& c, Warp& w) {
  w.cp_async_groups.push_back({std::max(w.cp_async_uncommitted_complete_at, c.now), std::move(w.cp_async_uncommitted),
                               std::move(w.cp_async_uncommitted_data)});
  w.cp_async_uncommitted.clear();
  w.cp_async_uncommitted_data.clear();
  w.cp_async_uncommitted_complete_at = 0;
}

// commit_group's work, which wait_all does first.
void commit_pending(ExecContext& x) {
  report_divergent(x);
  Warp& w = x.warp;
  commit_copies(x.cta, w);
  x.latency = timing::kAluLatency;
  if (x.cta.trace)  // the pipeline view replays each warp's groups from these
    trace_event(x.cta, EventKind::cp_async_commit, x.cta.now, w.id, x.inst_id, x.mask, kNone,
                uint32_t(w.cp_async_groups.size()));
}

// Lands the warp's `retire` oldest groups and drops them; the latency of the wait: until the
// last of them has landed.
uint32_t retire_groups(Cta& c, Warp& w, size_t retire) {
  uint64_t until = c.now;
  for (size_t g = 0; g < retire; ++g) {
    until = std::max(until, w.cp_async_groups[g].complete_at);
    land(c, w, w.cp_async_groups[g]);
    // Its list's room goes to the copies the warp issues next (commit hands the list on to
    // its group and leaves none): grown anew copy by copy, every group's list was reallocated
    // at each doubling.
    Warp::CpAsyncGroup& group = w.cp_async_groups[g];
    if (w.cp_async_uncommitted.empty() && w.cp_async_uncommitted.capacity() < group.copies.capacity()) {
      group.copies.clear();
      w.cp_async_uncommitted.swap(group.copies);
    }
    if (w.cp_async_uncommitted_data.empty() && w.cp_async_uncommitted_data.capacity() < group.data.capacity()) {
      group.data.clear();
      w.cp_async_uncommitted_data.swap(group.data);
    }
  }
  w.cp_async_groups.erase(w.cp_async_groups.begin(), w.cp_async_groups.begin() + ptrdiff_t(retire));
  // The warp sleeps until the last retired group has landed.
  return uint32_t(std::max<uint64_t>(until - c.now, timing::kAluLatency));
}

}  // namespace

void exec_cp_async_commit_group(ExecContext& x) {
  expect_op(x, "exec_cp_async_commit_group", ir::Op::cp_async_commit_group);
  commit_pending(x);
}

// cp.async.wait_group N (and wait_all, which is N = 0 after committing what is pending).
void exec_cp_async_wait_group(ExecContext& x) {
  expect_op(x, "exec_cp_async_wait_group", ir::Op::cp_async_wait_group, ir::Op::cp_async_wait_all);
  report_divergent(x);
  Warp& w = x.warp;
  size_t keep = 0;
  if (x.inst.op == ir::Op::cp_async_wait_all) {
    commit_pending(x);
  } else {
    keep = size_t(std::max<int64_t>(ir::group_count_operands_of(x.inst).n.imm, 0));
  }
  const size_t retire = w.cp_async_groups.size() > keep ? w.cp_async_groups.size() - keep : 0;
  x.latency = retire_groups(x.cta, w, retire);
  if (x.cta.trace)
    trace_event(x.cta, EventKind::cp_async_wait, x.cta.now, w.id, x.inst_id, x.mask,
                uint32_t(w.cp_async_groups.size()), uint32_t(retire));
}

namespace {

// The straight paths (decode.hpp, DirectFn) of an untraced whole warp's cp.async, commit_group
// and wait_group: what the exec forms above do for it when there is nothing to report or record
// (a whole warp is every live lane, so report_divergent has nothing to say). They keep step 09's
// and 10's copies in the scheduler's straight loop (cta.cpp), whose round trip through the
// general loop was 5% of step 09.

// exec_cp_async where its copies are quiet (quiet_copies, which changes nothing where they are
// not: the exec form then reports what it always did).
uint32_t direct_cp_async(Cta& c, Warp& w, const DecodedInst& d) {
  const uint32_t pc = uint32_t(&d - c.program->insts.data());
  ExecContext x{c, w, c.launch.kernel->insts[pc], d, pc, kAllLanes, kAllLanes};
  const ir::cp_async_operands& ops = c.program->copy_ops[d.copy_ops];  // decoded once (decode.cpp)
  const uint32_t bytes = uint32_t(ops.bytes.imm);
  if ((bytes != 4 && bytes != 8 && bytes != 16) || ops.src_bytes) return 0;
  std::array<uint32_t, 32> saddr;
  std::array<uint64_t, 32> gaddr;
  if (!quiet_copies(x, ops, bytes, saddr, gaddr)) return 0;
  account_copies(x, bytes, true, saddr, gaddr, kAllLanes);
  return x.latency;
}

uint32_t direct_commit_group(Cta& c, Warp& w, const DecodedInst&) {
  commit_copies(c, w);
  return timing::kAluLatency;
}

// wait_group N (not wait_all, whose commit comes first: the exec form runs it).
uint32_t direct_wait_group(Cta& c, Warp& w, const DecodedInst& d) {
  const ir::Inst& in = c.launch.kernel->insts[size_t(&d - c.program->insts.data())];
  if (in.op != ir::Op::cp_async_wait_group) return 0;
  const size_t keep = size_t(std::max<int64_t>(ir::group_count_operands_of(in).n.imm, 0));
  return retire_groups(c, w, w.cp_async_groups.size() > keep ? w.cp_async_groups.size() - keep : 0);
}

}  // namespace

DirectFn cp_async_direct(ir::Op op) {
  switch (op) {
    case ir::Op::cp_async_cg:
    case ir::Op::cp_async_ca: return direct_cp_async;
    case ir::Op::cp_async_commit_group: return direct_commit_group;
    case ir::Op::cp_async_wait_group: return direct_wait_group;
    default: return nullptr;
  }
}

}  // namespace gs::model
