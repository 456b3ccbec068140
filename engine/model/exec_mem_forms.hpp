// What the decoded memory forms (decode.hpp: ld/st through [reg + offset]) share: the global
// forms (exec_mem.cpp) and the shared-memory forms (exec_smem_forms.cpp). Internal to the
// model's exec files.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "engine/model/decode.hpp"
#include "engine/model/exec_context.hpp"
#include "engine/model/operands.hpp"
#include "engine/model/values.hpp"

namespace gs::model::memform {

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

// When a load's request reaches the SM's load/store path: the slot ptxas moves it up to
// (DecodedInst::hoist; only while the warp runs one pc, as next_issue takes it), else now. Its
// wait for the path and its latency count from there, so that the data next_issue makes ready
// `latency` after that slot never comes before the path has carried it: a hoisted load queues
// behind the other warps' accesses from the cycle it left, not from its place in the IR.
[[gnu::always_inline]] inline uint64_t request_time(const Cta& c, const Warp& w, const DecodedInst& d, uint32_t pc) {
  if (!d.hoist || !w.uniform) return c.now;
  return std::min(c.now, w.issue_at[(pc - d.hoist) & kHoistWindow]);
}

// The statistics and the time of warp w's shared access of this many wavefronts, requested at
// `request` (request_time): its latency from then. It takes the path no earlier than the copies
// its sub-partition asked for before it have passed the L1's tag stage (Cta::copies_tagged: the
// MIO queue is in order). The warp's shared accesses are done when the path has taken them
// (Warp::shared_done).
[[gnu::always_inline]] inline uint32_t shared_access_cost(Cta& c, Warp& w, uint64_t request, uint32_t wavefronts,
                                                          uint32_t ideal_wavefronts) {
  c.stats->smem_accesses++;
  c.stats->smem_wavefronts += wavefronts;
  c.stats->smem_ideal_wavefronts += ideal_wavefronts;
  c.stats->smem_bank_conflicts += wavefronts - ideal_wavefronts;
  // The SM's L1 data path takes one wavefront per cycle, shared memory's and global loads' and
  // stores' alike (global_issue): the access takes the first free cycles from its request on
  // (data_path.hpp), and its data is ready kSharedLatency after its last wavefront starts.
  c.cost.smem_wavefronts += wavefronts;
  if (wavefronts == 0) return timing::kSharedLatency;
  const DataPath::Taken t =
      c.data_path.take(std::max(request, c.copies_tagged[timing::scheduler_of_warp(w.id)]), wavefronts);
  w.shared_done = std::max(w.shared_done, t.end);
  return uint32_t(t.end - 1 - request) + timing::kSharedLatency;
}

[[gnu::always_inline]] inline void charge_shared(ExecContext& x, uint32_t wavefronts, uint32_t ideal_wavefronts) {
  x.latency = shared_access_cost(x.cta, x.warp, request_time(x.cta, x.warp, x.dec, x.inst_id), wavefronts, ideal_wavefronts);
}

// The register checks of a decoded memory form, as exec_memory makes them (the address base,
// and a store's data registers), where a register is not written in every active lane or a
// wgmma may own one (decoded_reads_need_checks).
template <bool kStore>
[[gnu::always_inline]] inline void check_form_registers(ExecContext& x) {
  const DecodedInst& d = x.dec;
  const Warp& w = x.warp;
  uint32_t written_in_all = w.written[d.src[0].reg];
  if (kStore)
    for (uint32_t v = 0; v < d.vec; ++v) written_in_all &= w.written[d.data_regs[v]];
  if (decoded_reads_need_checks(x, written_in_all)) [[unlikely]] {
    if (kStore)
      for (uint32_t v = 0; v < d.vec; ++v) check_register_read(x, d.data_regs[v], x.mask);
    check_register_read(x, d.src[0].reg, x.mask);
  }
}

// The quiet access: what check_shared_words checks and records of one word where it has
// nothing to report, the common case (the decoded shared forms, check_shared_words itself,
// ldmatrix's rows).

// check_shared_words reports nothing for warp w's access of word `word` (`tma_pending`: its bit
// of Cta::tma_pending_bits, or that of any word of the access where the caller tests them
// together: a pending word is never quiet, and a word with a cp.async pending neither).
template <bool kStore>
[[gnu::always_inline]] inline bool word_is_quiet(const Cta& c, uint32_t word, bool tma_pending, const Warp& w,
                                                 uint32_t rank, uint32_t epoch) {
  const SmemWord& s = c.smem_word_state[word];
  const bool pending = tma_pending || c.cp_async_pending_at(word);
  if constexpr (!kStore)
    if (s.written && !pending && s.epoch != epoch) return true;  // the common read
  if (pending || (kStore ? s.bulk_reads != 0 : !s.written)) return false;
  if (s.written && s.writer_warp != w.id && s.epoch == epoch && s.writer_warp != SmemWord::kAsync) {
    const uint32_t release = c.smem_write_release[word];
    return release != 0 && rank < kMaxClusterRanks && w.acquired[rank] >= release;
  }
  return true;
}

// Which of a read's notes anything reads back. The warps that read a word in an interval
// (Cta::smem_read_bits) only cp.async's checks (exec_cp_async.cpp: a copy onto words another
// warp read), so they are noted only in a kernel with a cp.async (Program::copies_async); a
// read's release (SmemTensorWord::generic_read_release) only a peer's multicast (Cta::read_release_of,
// exec_async.cpp's check_peer_release, never for its own CTA), so only in a cluster of several
// CTAs (a kernel without clusters runs each CTA as a cluster of one). A note nobody reads back
// is not made: a SIMT kernel's shared loads then only check their words (simt_smem_tiling: the
// note loop was most of its ld.shared).
struct ReadNotes {
  bool warps = true, release = true;
  bool any() const { return warps || release; }
};
inline ReadNotes read_notes(const Cta& c) {
  return {!c.program || c.program->copies_async, c.launch.cluster && c.launch.cluster->ctas.size() > 1};
}

// What check_shared_words records of a quiet store (a record no longer as a TMA landing leaves
// it: Cta::records_landed).
[[gnu::always_inline]] inline void note_write(Cta& c, SmemWord& s, uint32_t warp, uint32_t epoch, uint32_t release) {
  const uint32_t word = uint32_t(&s - c.smem_word_state.data());
  c.unland_record(word);
  s.written = true;
  s.writer_warp = uint8_t(warp);
  s.epoch = epoch;
  c.smem_write_release[word] = release;
  s.generic_since_fence = true;
}

// Warp `warp`'s row of Cta::smem_read_bits for this interval: sized to the CTA's words, and
// cleared when it held another interval's reads.
[[gnu::noinline]] inline uint64_t* fresh_read_row(Cta& c, uint32_t warp) {
  const uint32_t row = uint32_t((c.smem_word_state.size() + 63) / 64);
  if (c.smem_read_row != row || c.smem_read_bits.size() < size_t(row) * kMaxCtaWarps) {
    c.smem_read_row = row;
    c.smem_read_bits.assign(size_t(row) * kMaxCtaWarps, 0);
    c.forget_reads();
  }
  uint64_t* bits = c.smem_read_bits.data() + size_t(warp) * row;
  std::fill(bits, bits + row, 0);
  c.smem_read_epoch[warp] = c.barrier_epoch;
  return bits;
}
[[gnu::always_inline]] inline uint64_t* read_row(Cta& c, uint32_t warp) {
  if (c.smem_read_epoch[warp] == c.barrier_epoch && c.smem_read_row == (c.smem_word_state.size() + 63) / 64)
    return c.smem_read_bits.data() + size_t(warp) * c.smem_read_row;
  return fresh_read_row(c, warp);
}

// What check_shared_words records of warp w's read of words [word, word + n) (inside the
// CTA's records): the notes `notes` asks for.
[[gnu::always_inline]] inline void note_reads(Cta& c, uint32_t warp, uint32_t word, uint32_t n, ReadNotes notes) {
  if (notes.release)
    for (uint32_t i = word; i < word + n; ++i) c.smem_tensor_word[i].generic_read_release = c.releases + 1;
  if (notes.warps) {
    uint64_t* bits = read_row(c, warp % kMaxCtaWarps);
    for (uint32_t i = word; i < word + n;) {
      const uint32_t at = i % 64, k = std::min(word + n - i, 64 - at);
      bits[i / 64] |= (k == 64 ? ~uint64_t(0) : (uint64_t(1) << k) - 1) << at;
      i += k;
    }
  }
}

// word_is_quiet<false>'s first test, which a read by any warp passes alike, as far as the record
// goes: the caller tests Cta::tma_pending_bits and Cta::cp_async_pending_bits (look_at_line).
[[gnu::always_inline]] inline bool read_is_plain(const SmemWord& s, uint32_t epoch) {
  return s.written && s.epoch != epoch;
}

// Cta::smem_plain_lines' entry for `line`, made anew: whether every word of it is a plain read
// (exec_smem_forms.cpp: two records a 256-bit compare where the CPU has AVX2).
[[gnu::noinline]] bool look_at_line(Cta& c, uint32_t line);

// Whether every word of [word, word + n) (inside the CTA's records, n >= 1) is a plain read,
// from the lines' entries where they still hold. False says nothing: the words must be looked at.
// The lines' entries, one for each 128-byte line of the CTA's records (sized on first use).
[[gnu::always_inline]] inline const Cta::PlainLine* plain_lines(Cta& c) {
  const uint32_t lines = uint32_t((c.smem_word_state.size() + 31) / 32);
  if (c.smem_plain_lines.size() != lines) [[unlikely]]
    c.smem_plain_lines.assign(lines, {});
  return c.smem_plain_lines.data();
}
// Whether line `line` is plain reads: its entry `e` where it still holds (no shared write since,
// `writes` being the CTA's count, Cta::plain_key, and the same barrier interval `epoch`), else a
// look at it.
[[gnu::always_inline]] inline bool line_read_plain(Cta& c, const Cta::PlainLine& e, uint32_t line, uint64_t writes,
                                                   uint32_t epoch) {
  return e.writes == writes && e.epoch == epoch ? e.plain : look_at_line(c, line);
}
// lines_read_plain from line `line` to `last`, where line's entry no longer holds: each line's
// entry or a look at it. Out of line, so that the common loop below keeps its values in
// registers (with the look inline, it spilled and reloaded them on every pass).
[[gnu::noinline]] inline bool lines_read_plain_from(Cta& c, uint32_t line, uint32_t last) {
  const Cta::PlainLine* const lines = c.smem_plain_lines.data();
  for (; line <= last; ++line)
    if (!line_read_plain(c, lines[line], line, c.plain_key(), c.barrier_epoch)) return false;
  return true;
}
[[gnu::always_inline]] inline bool lines_read_plain(Cta& c, uint32_t word, uint32_t n) {
  const Cta::PlainLine* const lines = plain_lines(c);
  // A look at a line changes only that line's entry: the CTA's counts stay as read here.
  const uint64_t writes = c.plain_key();
  const uint32_t epoch = c.barrier_epoch;
  const uint32_t last = (word + n - 1) / 32;
  for (uint32_t line = word / 32; line <= last; ++line) {
    const Cta::PlainLine& e = lines[line];
    if (e.writes != writes || e.epoch != epoch) return lines_read_plain_from(c, line, last);
    if (!e.plain) return false;
  }
  return true;
}

// A load's check and note of words [word, word + n) (inside the CTA's records) by warp w:
// false, having noted nothing, where a word has something to report (check_shared_words then
// reports and notes). Lines that are plain reads (lines_read_plain) need no look at a word.
[[gnu::always_inline]] inline bool quiet_reads(Cta& c, const Warp& w, uint32_t word, uint32_t n, ReadNotes notes) {
  if (!lines_read_plain(c, word, n)) {
    if (c.any_tma_pending(word, word + n)) return false;
    for (uint32_t i = word; i < word + n; ++i)
      if (!word_is_quiet<false>(c, i, false, w, c.launch.cluster_rank, c.barrier_epoch)) return false;
  }
  if (notes.any()) note_reads(c, w.id, word, n, notes);
  return true;
}
[[gnu::always_inline]] inline bool quiet_reads(Cta& c, const Warp& w, uint32_t word, uint32_t n) {
  return quiet_reads(c, w, word, n, read_notes(c));
}

// Whether the AVX2 builds of the forms exist (x86-64 with GCC or Clang).
#if defined(__x86_64__) && defined(__GNUC__)
inline constexpr bool kAvx2Forms = true;
#else
inline constexpr bool kAvx2Forms = false;
#endif

// A form (a class with `template <bool kStore, uint32_t kElem, bool kAvx2> static void run`)
// compiled for baseline x86-64 and for AVX2, which select_memory picks where the CPU has it
// (wider lane loops: the bounds checks take 4 lanes an instruction; integer work only, the
// same result), by element size.
template <class Form, bool kStore, uint32_t kElem>
void exec_form(ExecContext& x) {
  Form::template run<kStore, kElem, false>(x);
}
#if defined(__x86_64__) && defined(__GNUC__)
template <class Form, bool kStore, uint32_t kElem>
__attribute__((target("avx2"))) void exec_form_avx2(ExecContext& x) {
  Form::template run<kStore, kElem, true>(x);
}
#else
template <class Form, bool kStore, uint32_t kElem>
void exec_form_avx2(ExecContext& x) {
  Form::template run<kStore, kElem, false>(x);
}
#endif

template <class Form, bool kStore, uint32_t kElem>
ExecFn form_fn() {
  return kAvx2Forms && cpu_has_avx2() ? exec_form_avx2<Form, kStore, kElem> : exec_form<Form, kStore, kElem>;
}

template <class Form, bool kStore>
ExecFn form_for(uint32_t elem) {
  switch (elem) {
    case 1: return form_fn<Form, kStore, 1>();
    case 2: return form_fn<Form, kStore, 2>();
    case 4: return form_fn<Form, kStore, 4>();
    case 8: return form_fn<Form, kStore, 8>();
    default: return nullptr;
  }
}

// The shared-memory forms (exec_smem_forms.cpp): the exec function of ld/st.shared of `elem`
// bytes a lane (nullptr for another size); the straight path of a whole warp's ld.shared.u32,
// shared_load_u32_direct, is declared in decode.hpp (the decoder compares with it).
ExecFn shared_form_for(bool store, uint32_t elem);

// For the n values of v: how many distinct ones there are if they are in non-decreasing
// order (coalesced and broadcast accesses list their sectors so), else ~0.
inline uint32_t distinct_if_sorted(const uint64_t* v, uint32_t n) {
  uint32_t descents = 0, changes = 0;
  for (uint32_t i = 1; i < n; ++i) {
    descents += v[i - 1] > v[i];
    changes += v[i - 1] != v[i];
  }
  return n == 0 ? 0 : descents != 0 ? ~0u : changes + 1;
}

// How many distinct values the first n of v hold (may reorder them).
inline uint32_t distinct_count(uint64_t* v, uint32_t n) {
  const uint32_t sorted = distinct_if_sorted(v, n);
  if (sorted != ~0u) return sorted;
  std::sort(v, v + n);
  return uint32_t(std::unique(v, v + n) - v);
}

// A store into C's tile `tile` (kNone: outside C): the schedule's visit, when the CTA has not
// stored into it lately (exec_mem.cpp's store_into_c, exec_global_forms.cpp's decoded stores).
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

}  // namespace gs::model::memform
