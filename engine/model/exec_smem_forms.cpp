// The decoded forms of ld.shared / st.shared through [reg + offset] (decode.hpp), and the straight
// path of a whole warp's ld.shared.u32: what exec_memory does for the common accesses, in flat
// loops (exec_mem_forms.hpp has what they share with the global forms).
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "engine/layout/banks.hpp"
#include "engine/model/exec_mem_forms.hpp"
#include "engine/model/values.hpp"

namespace gs::model::memform {

namespace {

// The bank report of a whole warp's ld/st.shared of `bytes` (1..16) at one address (same) or at
// consecutive ones, at one base of its alignment: the same at any other but for each lane's bank
// (tests/layout/banks_test.cpp, "moving every lane ..."), for account_shared_known.
const layout::BankReport& shared_pattern_report(uint32_t bytes, bool same) {
  static const std::array<std::array<layout::BankReport, 2>, 5> kByWidth = [] {
    std::array<std::array<layout::BankReport, 2>, 5> t{};
    for (uint32_t i = 0; i < 5; ++i)
      for (const bool one : {false, true}) {
        if (!one && i < 2) continue;  // consecutive 1- and 2-byte lanes share words: never taken
        std::array<uint32_t, 32> addr;
        for (uint32_t l = 0; l < 32; ++l) addr[l] = 0x10000 + (one ? 0 : l << i);
        t[i][one] = layout::analyze_shared_access(addr, kAllLanes, 1u << i, layout::Phasing::lsu_half_warp);
      }
    return t;
  }();
  return kByWidth[std::countr_zero(bytes)][same];
}

// Its counts alone.
layout::BankCount shared_pattern_cost(uint32_t bytes, bool same) {
  const layout::BankReport& r = shared_pattern_report(bytes, same);
  return {r.wavefronts, r.ideal_wavefronts};
}

// account_shared for an access ptxas did not fold, whose bank report is known up to where its
// banks start: `canon` is the report of the same lanes' offsets from another base of the same
// alignment (every count and each lane's wavefront are the same there; only the banks turn),
// so only each lane's bank is worked out here.
void account_shared_known(ExecContext& x, const std::array<uint32_t, 32>& addrs, uint32_t bytes, bool store,
                          const layout::BankReport& canon) {
  Cta& c = x.cta;
  charge_shared(x, canon.wavefronts, canon.ideal_wavefronts);
  if (!c.trace) return;
  layout::BankReport r = canon;
  for (uint32_t m = x.mask; m; m &= m - 1) {
    const uint32_t l = uint32_t(std::countr_zero(m));
    r.lane_bank[l] = uint8_t(layout::smem_bank_of(addrs[l]));
  }
  SmemAccess a = smem_access_record(addrs, x.mask, bytes, store, r);
  a.folded_loads = x.dec.fold_members;
  const uint32_t index = append(c.trace->smem, a);
  trace_event(c, EventKind::smem_access, c.now, x.warp.id, x.inst_id, x.mask, index, r.wavefronts);
}

// What exec_memory does for them when every active lane's address is inside the CTA's shared
// memory, aligned, and every word it touches has nothing to report (check_shared_words would
// report nothing): the general path then only moves the data and updates each word's race
// bookkeeping, which this form does in flat loops. Anything else goes to exec_memory before
// anything changed. Checking every word first and updating after is what the general path's
// lane-by-lane order does too: an update by one lane (the warp's own write, or a read) can
// never make another lane's access report where it would not have before.

// One value into 32 lanes. Unrolled, so that the stores are as wide as the unit's readers'
// loads: std::fill's out-of-line loop stored 16 bytes at a time, and a 32-byte load spanning
// two of them cannot take its data from the stores in flight (perf: the next FMA's loads
// stalled; simt_smem_tiling ran at 12 M warp-inst/s with it, 21 M without).
[[gnu::always_inline]] inline void broadcast_lanes(uint64_t v, uint64_t* r) {
#pragma GCC unroll 32
  for (uint32_t l = 0; l < 32; ++l) r[l] = v;
}

#if defined(__x86_64__) && defined(__GNUC__)
// 32 consecutive 4-byte words into 32 lanes, zero-extended to 64 bits (what load_bytes reads).
__attribute__((target("avx2"))) inline void widen_words_avx2(const uint8_t* at, uint64_t* r) {
#pragma GCC unroll 8
  for (uint32_t i = 0; i < 8; ++i) {
    const __m128i words = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + 16 * i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(r + 4 * i), _mm256_cvtepu32_epi64(words));
  }
}
// Lanes 4g .. 4g + 3 from the four consecutive words at at + diff[4g] (SharedLanePattern::quads).
__attribute__((target("avx2"))) inline void widen_quads_avx2(const uint8_t* at, const uint32_t* diff, uint64_t* r) {
#pragma GCC unroll 8
  for (uint32_t g = 0; g < 8; ++g) {
    const __m128i words = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + int32_t(diff[4 * g])));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(r + 4 * g), _mm256_cvtepu32_epi64(words));
  }
}
#else
inline void widen_words_avx2(const uint8_t* at, uint64_t* r) {
  for (uint32_t l = 0; l < 32; ++l) r[l] = load_bytes(at + 4 * l, 4);
}
inline void widen_quads_avx2(const uint8_t* at, const uint32_t* diff, uint64_t* r) {
  for (uint32_t l = 0; l < 32; ++l) r[l] = load_bytes(at + int32_t(diff[l]), 4);
}
#endif

// What a shared access's lanes ask for, as offsets from its first active lane (diff): the
// words it touches and its bank report but each lane's bank depend on those offsets (and, for
// 1- and 2-byte accesses, on where in a word the first lane starts), not on where the warp's
// addresses lie: moving every lane by a multiple of the access width turns the banks round,
// which changes no bank's count and no bank's order of words (tests/layout/banks_test.cpp). A
// loop's access has the same offsets on every pass, so they are worked out once per instruction
// and kept, per thread, by instruction index. An entry is a pure function of its key (mask,
// width, a0 % 4, offsets), so one left by another kernel is harmless: it is used only where its
// key matches.
struct SharedLanePattern {
  // What a repeated whole-warp load reads of it (direct_shared_load_u32), in its first line.
  uint32_t mask = 0;  // 0: empty
  uint32_t bytes = 0;
  uint32_t low = 0;  // a0 % 4
  // Every offset 0, or lane l's 4 l: the offsets a whole warp's ld.shared.u32 at one address or
  // at consecutive words has, which direct_shared_load_u32 takes another way first
  // (repeated_lane_pattern_avx2 leaves such an entry alone).
  bool one_run = false;
  // Every lane of a 4-byte access, lanes 4g .. 4g + 3 at four consecutive words (mma.sync's
  // fragments, step 09): a 16-byte load a group of four lanes.
  bool quads = false;
  int32_t lo = 0, hi = 0;  // the lowest and highest offset
  int32_t first_word = 0, last_word = 0;  // words[0] and words[nwords - 1]
  uint32_t wavefronts = 0, ideal_wavefronts = 0;  // report's
  // This entry's key as made (shared_lane_pattern): a number no other entry of any thread has
  // had, so that equal versions mean equal offsets (diff) for as long as the entry keeps it.
  uint64_t version = 0;
  // The version of the entry of the instruction before (inst - 1) whose offsets were found to
  // be this one's (repeated_lane_pattern_avx2; 0: none found): a warp whose load before this
  // one, from the same register, matched that version (Warp::pattern_version) has this entry's
  // offsets without comparing them.
  uint64_t same_as_version = 0;
  // The words as bits from the lowest (bit i: words[0] + i), where they span at most
  // kSpanBits words; span 0 where they span more.
  static constexpr uint32_t kSpanBits = 192;
  uint32_t span = 0;
  std::array<uint64_t, kSpanBits / 64> span_bits{};
  std::array<uint32_t, 32> diff{};
  layout::BankReport report;  // at a base of a0's alignment (account_shared_known)
  uint32_t nwords = 0;
  std::array<int32_t, 128> words{};  // the distinct words, from the first lane's word
};

// The entries, per thread, by instruction index (shared_lane_pattern).
std::vector<SharedLanePattern>& lane_patterns() {
  thread_local std::vector<SharedLanePattern> patterns;
  return patterns;
}
// Where they are, as a repeated load looks them up: a thread_local of a trivial type is read
// without the guard and the vector's size arithmetic that each use of lane_patterns() costs
// (shared_lane_pattern keeps it up to date; nothing else resizes the entries).
struct PatternTable {
  SharedLanePattern* data = nullptr;
  size_t size = 0;
};
thread_local PatternTable kept_patterns;
// SharedLanePattern::version's source, shared by every thread's entries.
std::atomic<uint64_t> next_pattern_version{1};

// The pattern of this access, or nullptr where an offset is not aligned to the access (the
// general path reports it).
const SharedLanePattern* shared_lane_pattern(uint32_t inst, uint32_t mask, uint32_t bytes, uint32_t a0,
                                             const std::array<uint32_t, 32>& diff) {
  std::vector<SharedLanePattern>& patterns = lane_patterns();
  if (inst >= patterns.size()) {
    patterns.resize(inst + 1);
    kept_patterns = {patterns.data(), patterns.size()};
  }
  SharedLanePattern& p = patterns[inst];
  const uint32_t low = a0 & 3;
  if (p.mask == mask && p.bytes == bytes && p.low == low && p.diff == diff) return &p;
  const uint32_t align = std::min<uint32_t>(bytes, 16);
  uint32_t bits = 0;
  for (uint32_t l = 0; l < 32; ++l) bits |= diff[l];
  if ((bits & (align - 1)) != 0) return nullptr;
  p.mask = mask;
  p.bytes = bytes;
  p.low = low;
  p.diff = diff;
  p.version = next_pattern_version.fetch_add(1, std::memory_order_relaxed);
  p.same_as_version = 0;
  p.lo = p.hi = 0;
  std::array<uint32_t, 32> addr{};
  std::vector<int32_t> words;
  for (uint32_t m = mask; m; m &= m - 1) {
    const uint32_t l = uint32_t(std::countr_zero(m));
    const int32_t o = int32_t(diff[l]);
    p.lo = std::min(p.lo, o);
    p.hi = std::max(p.hi, o);
    // A fixed base with a0's place in its word: the bank analysis is the same for any aligned one.
    addr[l] = uint32_t(0x10000 + low + o);
    for (uint32_t i = 0; i < std::max<uint32_t>(bytes / 4, 1); ++i)
      words.push_back(((int32_t(low) + o) >> 2) + int32_t(i));
  }
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  p.nwords = uint32_t(words.size());
  std::copy(words.begin(), words.end(), p.words.begin());
  p.span_bits.fill(0);
  p.span = uint32_t(words.back() - words.front()) + 1;
  if (p.span > SharedLanePattern::kSpanBits) p.span = 0;
  else
    for (const int32_t word : words) {
      const uint32_t i = uint32_t(word - words.front());
      p.span_bits[i / 64] |= uint64_t(1) << (i % 64);
    }
  p.report = layout::analyze_shared_access(addr, mask, std::min<uint32_t>(bytes, 16), layout::Phasing::lsu_half_warp);
  p.wavefronts = p.report.wavefronts;
  p.ideal_wavefronts = p.report.ideal_wavefronts;
  p.first_word = words.front();
  p.last_word = words.back();
  p.quads = mask == 0xFFFFFFFFu && bytes == 4;
  for (uint32_t l = 0; l < 32 && p.quads; ++l) p.quads = diff[l] == diff[l & ~3u] + 4 * (l & 3);
  bool same = true, consecutive = true;
  for (uint32_t l = 0; l < 32; ++l) {
    same = same && diff[l] == 0;
    consecutive = consecutive && diff[l] == 4 * l;
  }
  p.one_run = same || consecutive;
  return &p;
}

#if defined(__x86_64__) && defined(__GNUC__)
// Whether lane l's offset from lane 0, u32(lanes[l] - lanes[0]), is diff[l] for every lane: eight
// lanes' low words a compare.
__attribute__((target("avx2"))) inline bool same_offsets_avx2(const uint64_t* lanes, const uint32_t* diff) {
  const __m256i first = _mm256_set1_epi64x(int64_t(lanes[0]));
  const __m256i low_words = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  __m256i differ = _mm256_setzero_si256();
#pragma GCC unroll 4
  for (uint32_t l = 0; l < 32; l += 8) {
    const __m256i lo = _mm256_permutevar8x32_epi32(
        _mm256_sub_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(lanes + l)), first), low_words);
    const __m256i hi = _mm256_permutevar8x32_epi32(
        _mm256_sub_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(lanes + l + 4)), first), low_words);
    const __m256i offsets = _mm256_permute2x128_si256(lo, hi, 0x20);  // lanes l .. l + 7
    differ = _mm256_or_si256(differ,
                             _mm256_xor_si256(offsets, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(diff + l))));
  }
  return _mm256_testz_si256(differ, differ) != 0;
}

// The entry shared_lane_pattern would return for warp w's whole-warp 4-byte access of
// instruction `inst` (decoded d) from the address register `lanes` (first address a0), where it
// is the one kept there already and not a run of words (one_run): the lanes' offsets compared
// with the kept ones in a few vector instructions, without the offsets' array, the search for
// an even step and the entry's compare of them. Lanes whose offsets are not one run cannot step
// evenly by 0 or 4 bytes, so direct_shared_load_u32 would come to this entry through its
// pattern path. nullptr says nothing: the caller takes its usual way.
// Right after the warp's load at inst - 1 from the same register (DecodedInst::shared_same_base,
// Warp::pattern_pc: that load was its last issue), the lanes are those it found equal to the
// offsets of its entry's version pattern_version; where this entry's offsets were once found
// equal to that version's (same_as_version), the compare is left out (fragment loads: 18 of
// step 09's 20 a K step follow a load of the same register).
__attribute__((target("avx2"))) inline const SharedLanePattern* repeated_lane_pattern_avx2(const Warp& w,
                                                                                          const DecodedInst& d,
                                                                                          uint32_t inst,
                                                                                          const uint64_t* lanes,
                                                                                          uint32_t a0) {
  const PatternTable patterns = kept_patterns;
  if (inst >= patterns.size) return nullptr;
  SharedLanePattern& p = patterns.data[inst];
  if (p.mask != kAllLanes || p.bytes != 4 || p.low != (a0 & 3) || p.one_run) return nullptr;
  const bool after = d.shared_same_base && w.pattern_pc == inst - 1 &&
                     w.pattern_at == w.issue_at[(inst - 1) & kHoistWindow];
  if (after && p.same_as_version == w.pattern_version) return &p;
  if (!same_offsets_avx2(lanes, p.diff.data())) return nullptr;
  if (after) p.same_as_version = w.pattern_version;
  return &p;
}
#endif

// A read of the words of pattern p from word `first` (inside the CTA's records) by warp w: the
// lines' entries from its lowest word to its highest where they hold (quiet_reads; p->words is
// sorted), else each word; then the notes, once every word is quiet. False, having changed
// nothing, where a word has something to report.
[[gnu::always_inline]] inline bool pattern_reads_quiet(Cta& c, const Warp& w, const SharedLanePattern& p,
                                                       uint32_t first) {
  const uint32_t lo = first + uint32_t(p.first_word), n = uint32_t(p.last_word - p.first_word) + 1;
  if (!lines_read_plain(c, lo, n)) {
    if (c.any_tma_pending(lo, lo + n)) return false;  // a word between the pattern's too: the lane loop looks
    for (uint32_t i = 0; i < p.nwords; ++i)
      if (!word_is_quiet<false>(c, first + uint32_t(p.words[i]), false, w, c.launch.cluster_rank, c.barrier_epoch))
        return false;
  }
  const ReadNotes notes = read_notes(c);
  if (notes.release)
    for (uint32_t i = 0; i < p.nwords; ++i)
      c.smem_tensor_word[first + uint32_t(p.words[i])].generic_read_release = c.releases + 1;
  if (notes.warps && p.span != 0) {
    // The pattern's bits moved to the lowest word's place: an OR per 64 words (a loop over the
    // words, a shift and a branch each, was a quarter of ampere_cp_async's ld.shared).
    uint64_t* bits = read_row(c, w.id);
    const uint32_t low = first + uint32_t(p.first_word), at = low / 64, shift = low % 64;
    uint64_t carry = 0;
    for (uint32_t i = 0; i * 64 < p.span; ++i) {
      const uint64_t v = p.span_bits[i];
      bits[at + i] |= v << shift | carry;
      carry = shift == 0 ? 0 : v >> (64 - shift);
    }
    if (carry != 0) bits[at + (p.span + 63) / 64] |= carry;
  } else if (notes.warps) {
    // Gathered a 64-bit word at a time (the words are sorted): an OR into memory per word made
    // a chain of stores and loads of the same few words.
    uint64_t* bits = read_row(c, w.id);
    uint32_t at = (first + uint32_t(p.words[0])) / 64;
    uint64_t gathered = 0;
    for (uint32_t i = 0; i < p.nwords; ++i) {
      const uint32_t word = first + uint32_t(p.words[i]);
      if (word / 64 != at) {
        bits[at] |= gathered;
        at = word / 64;
        gathered = 0;
      }
      gathered |= uint64_t(1) << (word % 64);
    }
    bits[at] |= gathered;
  }
  return true;
}

// A whole warp at one address (same) or at consecutive ones (lane l at a + l × bytes, bytes
// 4..16): its words are one contiguous run, and its banks' cost is known without looking at
// the lanes (count_warp_pattern_wavefronts). False, having changed nothing, where the general
// form must look (out of bounds, misaligned, a word with something to report).
template <bool kStore, uint32_t kElem, bool kAvx2>
[[gnu::always_inline]] inline bool shared_pattern_form(ExecContext& x, bool same) {
  Cta& c = x.cta;
  const DecodedInst& d = x.dec;
  Warp& w = x.warp;
  const uint32_t vec = d.vec, bytes = kElem * vec;
  const uint64_t* base = w.regs + 32 * size_t(d.src[0].reg);
  const uint32_t a0 = uint32_t(base[0] + uint64_t(d.offset));
  const uint64_t o0 = uint32_t(a0 - timing::kSmemBaseAddress);
  const uint32_t span = same ? bytes : 32 * bytes;
  if (o0 + span > c.smem.size() || (a0 & (bytes - 1)) != 0) return false;
  const uint32_t words = std::max<uint32_t>(span / 4, 1);
  const uint32_t epoch = c.barrier_epoch;
  SmemWord* state = c.smem_word_state.data() + o0 / 4;
  const uint32_t release = c.releases + 1;
  if constexpr (kStore) {
    if (c.any_tma_pending(uint32_t(o0 / 4), uint32_t(o0 / 4) + words)) return false;
    for (uint32_t i = 0; i < words; ++i)
      if (!word_is_quiet<kStore>(c, uint32_t(o0 / 4) + i, false, w, c.launch.cluster_rank, epoch)) return false;
  } else if (!quiet_reads(c, w, uint32_t(o0 / 4), words)) {
    return false;
  }
  check_form_registers<kStore>(x);
  // One access per word is what 32 make: the updates repeat the same values.
  if constexpr (kStore) {
    ++c.smem_writes;
    c.note_unfenced(uint32_t(o0 / 4));
    c.note_unfenced(uint32_t(o0 / 4) + words - 1);
    for (uint32_t i = 0; i < words; ++i) note_write(c, state[i], w.id, epoch, release);
  }
  uint8_t* at = c.smem.data() + o0;
  for (uint32_t v = 0; v < vec; ++v) {
    uint64_t* r = w.regs + 32 * size_t(d.data_regs[v]);
    if (same) {
      if constexpr (kStore) {
        store_bytes(at + v * kElem, r[31], kElem);  // the lanes store in order: the last one's stays
      } else {
        broadcast_lanes(load_bytes(at + v * kElem, kElem), r);
      }
    } else if constexpr (kAvx2 && !kStore && kElem == 4) {
      if (vec == 1) widen_words_avx2(at, r);  // 32 consecutive words
      else
        for (uint32_t l = 0; l < 32; ++l) r[l] = load_bytes(at + l * bytes + v * kElem, kElem);
    } else {
      for (uint32_t l = 0; l < 32; ++l) {
        if constexpr (kStore) store_bytes(at + l * bytes + v * kElem, r[l], kElem);
        else r[l] = load_bytes(at + l * bytes + v * kElem, kElem);
      }
    }
  }
  if (!kStore)
    for (uint32_t v = 0; v < vec; ++v) note_decoded_write(x, d.data_regs[v]);
  if (d.fold_leader == kNone && d.fold_bytes == 0 && !c.trace) {
    const layout::BankCount n = shared_pattern_cost(bytes, same);
    charge_shared(x, n.wavefronts, n.ideal_wavefronts);
    return true;
  }
  std::array<uint32_t, 32> addr;
  for (uint32_t l = 0; l < 32; ++l) addr[l] = a0 + (same ? 0 : l * bytes);
  if (d.fold_leader == kNone && d.fold_bytes == 0)
    account_shared_known(x, addr, bytes, kStore, shared_pattern_report(bytes, same));
  else account_shared(x, addr, bytes, kStore);
  return true;
}

template <bool kStore, uint32_t kElem, bool kAvx2>
[[gnu::always_inline]] inline void shared_form(ExecContext& x) {
  Cta& c = x.cta;
  const DecodedInst& d = x.dec;
  Warp& w = x.warp;
  const uint32_t vec = d.vec, bytes = kElem * vec;
  const uint32_t mask = x.mask;
  const uint64_t* base = w.regs + 32 * size_t(d.src[0].reg);
  const uint64_t size = c.smem.size();
  if (mask == 0 || size < bytes || c.smem_word_state.size() * 4 < size) {
    exec_memory(x);
    return;
  }
  if (mask == kAllLanes && bytes <= 16) {
    uint64_t step = 0;
    const bool even =
        kAvx2 ? lanes_step_evenly_avx2(base, 0xFFFFFFFFu, &step) : lanes_step_evenly(base, 0xFFFFFFFFu, &step);
    if (even && (step == 0 || (step == bytes && bytes >= 4)) && shared_pattern_form<kStore, kElem, kAvx2>(x, step == 0))
      return;
  }
  // Any other pattern: what it costs and which words it touches, from its lanes' offsets.
  const uint32_t first = uint32_t(std::countr_zero(mask));
  const uint32_t a0 = uint32_t(base[first] + uint64_t(d.offset));
  std::array<uint32_t, 32> diff;
  for (uint32_t l = 0; l < 32; ++l) diff[l] = uint32_t(base[l] - base[first]) & (0u - (mask >> l & 1));
  const SharedLanePattern* p = shared_lane_pattern(x.inst_id, mask, bytes, a0, diff);
  // As smem_ptr: every lane inside [kSmemBaseAddress, + size) and aligned (at most 16 bytes).
  const int64_t o0 = int64_t(uint32_t(a0 - timing::kSmemBaseAddress));
  if (!p || o0 + p->lo < 0 || o0 + p->hi + bytes > int64_t(size) || (a0 & (std::min<uint32_t>(bytes, 16) - 1)) != 0) {
    exec_memory(x);
    return;
  }
  const uint32_t rank = c.launch.cluster_rank, epoch = c.barrier_epoch;
  SmemWord* state = c.smem_word_state.data() + (o0 >> 2);
  const uint32_t release = c.releases + 1;
  bool quiet = true;
  if constexpr (kStore) {
    const uint32_t lo = uint32_t(o0 >> 2) + uint32_t(p->words[0]);
    quiet = !c.any_tma_pending(lo, uint32_t(o0 >> 2) + uint32_t(p->words[p->nwords - 1]) + 1);
    for (uint32_t i = 0; i < p->nwords && quiet; ++i)
      quiet = word_is_quiet<kStore>(c, uint32_t(o0 >> 2) + uint32_t(p->words[i]), false, w, rank, epoch);
  } else {
    quiet = pattern_reads_quiet(c, w, *p, uint32_t(o0 >> 2));
  }
  if (!quiet) {
    exec_memory(x);
    return;
  }
  check_form_registers<kStore>(x);
  // One update per word is what one per lane makes: lanes of one word repeat the same values.
  if constexpr (kStore) {
    ++c.smem_writes;
    for (uint32_t i = 0; i < p->nwords; ++i) note_write(c, state[p->words[i]], w.id, epoch, release);
    // The words are sorted: the first and the last widen the unfenced range as all of them
    // would (a note per word made a chain through memory of the range's two bounds).
    c.note_unfenced(uint32_t(o0 >> 2) + uint32_t(p->words[0]));
    c.note_unfenced(uint32_t(o0 >> 2) + uint32_t(p->words[p->nwords - 1]));
  }
  uint8_t* at = c.smem.data() + o0;
  for (uint32_t v = 0; v < vec; ++v) {
    uint64_t* r = w.regs + 32 * size_t(d.data_regs[v]);
    for (uint32_t m = mask; m; m &= m - 1) {
      const uint32_t l = uint32_t(std::countr_zero(m));
      uint8_t* q = at + int32_t(diff[l]) + v * kElem;
      if constexpr (kStore) store_bytes(q, r[l], kElem);
      else r[l] = load_bytes(q, kElem);
    }
  }
  if (!kStore)
    for (uint32_t v = 0; v < vec; ++v) note_decoded_write(x, d.data_regs[v]);
  if (d.fold_leader == kNone && d.fold_bytes == 0 && !c.trace) {
    charge_shared(x, p->report.wavefronts, p->report.ideal_wavefronts);
    return;
  }
  std::array<uint32_t, 32> addr{};
  for (uint32_t m = mask; m; m &= m - 1) addr[std::countr_zero(m)] = a0 + diff[std::countr_zero(m)];
  if (d.fold_leader == kNone && d.fold_bytes == 0) account_shared_known(x, addr, bytes, kStore, p->report);
  else account_shared(x, addr, bytes, kStore);
}

// direct_shared_load_u32 for any other pattern of the lanes: what shared_form does for it, for
// the pattern p of instruction `inst` (its offsets the lanes', its first address a0).
template <bool kAvx2>
[[gnu::always_inline]] inline uint32_t pattern_load_u32(Cta& c, Warp& w, const DecodedInst& d, uint32_t inst,
                                                        uint32_t a0, const SharedLanePattern& p) {
  const uint64_t size = c.smem.size();
  if (size < 4 || c.smem_word_state.size() * 4 < size) return 0;
  const int64_t o0 = int64_t(uint32_t(a0 - timing::kSmemBaseAddress));
  if (o0 + p.lo < 0 || o0 + p.hi + 4 > int64_t(size) || (a0 & 3) != 0) return 0;
  if (!pattern_reads_quiet(c, w, p, uint32_t(o0 >> 2))) return 0;
  uint64_t* r = w.regs + 32 * size_t(d.data_regs[0]);
  const uint8_t* at = c.smem.data() + o0;
  bool done = false;
  if constexpr (kAvx2) {
    if (p.quads) {
      widen_quads_avx2(at, p.diff.data(), r);
      done = true;
    }
  }
  if (!done)
    for (uint32_t l = 0; l < 32; ++l) r[l] = load_bytes(at + int32_t(p.diff[l]), 4);
  w.written[d.data_regs[0]] = kAllLanes;  // note_decoded_write: |= all lanes
  // The lanes' offsets are p's (repeated_lane_pattern_avx2 reads this back at inst + 1).
  w.pattern_pc = inst;
  w.pattern_at = c.now;
  w.pattern_version = p.version;
  return shared_access_cost(c, w, request_time(c, w, d, inst), p.wavefronts, p.ideal_wavefronts);
}
// The same where the pattern is not known yet: looked up (made) from the lanes' offsets
// (pattern_load_u32 declines where shared memory is too small for the straight path).
template <bool kAvx2>
[[gnu::always_inline]] inline uint32_t direct_pattern_load_u32(Cta& c, Warp& w, const DecodedInst& d,
                                                               const uint64_t* base) {
  const uint32_t inst = uint32_t(&d - c.program->insts.data());
  const uint32_t a0 = uint32_t(base[0] + uint64_t(d.offset));
  std::array<uint32_t, 32> offsets;
  for (uint32_t l = 0; l < 32; ++l) offsets[l] = uint32_t(base[l] - base[0]);
  const SharedLanePattern* p = shared_lane_pattern(inst, kAllLanes, 4, a0, offsets);
  return p ? pattern_load_u32<kAvx2>(c, w, d, inst, a0, *p) : 0;
}

// The straight path (decode.hpp, DirectFn) of the commonest shared access of a SIMT kernel: a
// whole warp's untraced ld.shared of one 4-byte element from an address register every lane
// has written and no wgmma can own, not folded into another load. It does what
// shared_pattern_form does for it (every lane at one address or lane l at a + 4 l), or
// shared_form (any other pattern: a blocktile's strided rows, mma.sync's fragments), without an
// ExecContext, and keeps the warp in the scheduler's straight loop (cta.cpp). It answers 0
// where it cannot show the access is quiet: the exec form then runs (the words it noted as
// read, it notes again the same).
template <bool kAvx2>
[[gnu::always_inline]] inline uint32_t direct_shared_load_u32(Cta& c, Warp& w, const DecodedInst& d) {
  if (w.written[d.src[0].reg] != kAllLanes || !d.no_wgmma_regs || d.fold_leader != kNone || d.fold_bytes != 0) return 0;
  const uint64_t* base = w.regs + 32 * size_t(d.src[0].reg);
#if defined(__x86_64__) && defined(__GNUC__)
  // A loop's fragment load comes back with the offsets it had: its kept pattern at once.
  if constexpr (kAvx2) {
    const uint32_t inst = uint32_t(&d - c.program->insts.data());
    const uint32_t a0 = uint32_t(base[0] + uint64_t(d.offset));
    if (const SharedLanePattern* p = repeated_lane_pattern_avx2(w, d, inst, base, a0))
      return pattern_load_u32<kAvx2>(c, w, d, inst, a0, *p);
  }
#endif
  uint64_t step = 0;
  const bool even =
      kAvx2 ? lanes_step_evenly_avx2(base, 0xFFFFFFFFu, &step) : lanes_step_evenly(base, 0xFFFFFFFFu, &step);
  if (!even || (step != 0 && step != 4)) return direct_pattern_load_u32<kAvx2>(c, w, d, base);
  const bool same = step == 0;
  const uint32_t a0 = uint32_t(base[0] + uint64_t(d.offset));
  const uint64_t o0 = uint32_t(a0 - timing::kSmemBaseAddress);
  const uint32_t span = same ? 4 : 128;
  if (o0 + span > c.smem.size() || c.smem_word_state.size() * 4 < c.smem.size() || (a0 & 3) != 0) return 0;
  if (!quiet_reads(c, w, uint32_t(o0 / 4), span / 4)) return 0;
  uint64_t* r = w.regs + 32 * size_t(d.data_regs[0]);
  const uint8_t* at = c.smem.data() + o0;
  if (same) broadcast_lanes(load_bytes(at, 4), r);
  else if constexpr (kAvx2) widen_words_avx2(at, r);
  else
    for (uint32_t l = 0; l < 32; ++l) r[l] = load_bytes(at + 4 * l, 4);
  w.written[d.data_regs[0]] = kAllLanes;  // note_decoded_write: |= all lanes
  const layout::BankCount n = shared_pattern_cost(4, same);
  return shared_access_cost(c, w, request_time(c, w, d, uint32_t(&d - c.program->insts.data())), n.wavefronts,
                            n.ideal_wavefronts);
}
uint32_t direct_shared_load_u32_baseline(Cta& c, Warp& w, const DecodedInst& d) {
  return direct_shared_load_u32<false>(c, w, d);
}
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) uint32_t direct_shared_load_u32_avx2(Cta& c, Warp& w, const DecodedInst& d) {
  return direct_shared_load_u32<true>(c, w, d);
}
#else
uint32_t direct_shared_load_u32_avx2(Cta& c, Warp& w, const DecodedInst& d) {
  return direct_shared_load_u32<false>(c, w, d);
}
#endif

struct SharedForm {
  template <bool kStore, uint32_t kElem, bool kAvx2>
  [[gnu::always_inline]] static inline void run(ExecContext& x) {
    shared_form<kStore, kElem, kAvx2>(x);
  }
};

}  // namespace

ExecFn shared_form_for(bool store, uint32_t elem) {
  return store ? form_for<SharedForm, true>(elem) : form_for<SharedForm, false>(elem);
}

namespace {

// The two 32-bit words of a record: its flags' byte and its epoch (SmemWord's layout).
static_assert(offsetof(SmemWord, epoch) == 4 && sizeof(SmemWord) == 8);
// read_is_plain's flag, as bits of a record's first 32-bit word, made from the struct itself:
// written (a TMA load or a cp.async pending is a bit of the Cta's, tested by look_at_line).
const uint32_t kPlainWritten = smem_word_bytes<uint32_t>(0, [](SmemWord& s) { s.written = true; });

#if defined(__x86_64__) && defined(__GNUC__)
// read_is_plain over records [0, n), four records a 256-bit compare (n a multiple of 4): every
// record is written and its epoch is not `epoch`.
__attribute__((target("avx2"))) bool records_plain_avx2(const SmemWord* s, uint32_t n, uint32_t epoch) {
  const __m256i flags = _mm256_setr_epi32(int(kPlainWritten), 0, int(kPlainWritten), 0, int(kPlainWritten), 0,
                                          int(kPlainWritten), 0);
  const __m256i at_epoch = _mm256_setr_epi32(0, int(epoch), 0, int(epoch), 0, int(epoch), 0, int(epoch));
  const __m256i epoch_lanes = _mm256_setr_epi32(0, -1, 0, -1, 0, -1, 0, -1);
  __m256i bad = _mm256_setzero_si256();
  for (uint32_t i = 0; i < n; i += 4) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i));
    // Even lanes: `written` is clear; odd lanes: the epoch is `epoch`.
    bad = _mm256_or_si256(bad, _mm256_andnot_si256(v, flags));
    bad = _mm256_or_si256(bad, _mm256_and_si256(_mm256_cmpeq_epi32(v, at_epoch), epoch_lanes));
  }
  return _mm256_testz_si256(bad, bad) != 0;
}
#endif

}  // namespace

bool look_at_line(Cta& c, uint32_t line) {
  const uint32_t epoch = c.barrier_epoch;
  const uint32_t lo = 32 * line, hi = std::min<uint32_t>(lo + 32, uint32_t(c.smem_word_state.size()));
  const SmemWord* const s = c.smem_word_state.data();
  // read_is_plain's records say nothing of TMA loads or cp.async copies pending: their bits.
  const bool pending = c.any_tma_pending(lo, hi) || word_bits::any(c.cp_async_pending_bits, lo, hi);
  bool plain = !pending;
  uint32_t i = lo;
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = cpu_has_avx2();
  if (avx2 && hi > lo) {
    // The pending loads as in the portable path: the AVX2 form once dropped the TMA's bit, and an
    // ld.shared or ldmatrix of words written before a bar.sync with a TMA load landing on them
    // went unreported (tests/model/test_tma_pending_bits.cpp, "written before a bar.sync").
    const uint32_t quads = (hi - lo) & ~3u;
    plain = !pending && records_plain_avx2(s + lo, quads, epoch);
    i = lo + quads;
  }
#endif
  for (; i < hi; ++i) plain &= read_is_plain(s[i], epoch);
  c.smem_plain_lines[line] = {c.plain_key(), epoch, plain};
  return plain;
}

DirectFn shared_load_u32_direct() {
  return kAvx2Forms && cpu_has_avx2() ? direct_shared_load_u32_avx2 : direct_shared_load_u32_baseline;
}

}  // namespace gs::model::memform
