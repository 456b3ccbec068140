// The model's per-word records of shared memory (machine.hpp's Cta keeps one of each per 4-byte
// word of its window): what the hazard checks know of each word, and what the tensor cores'
// operand reads note of it.
#pragma once

#include <cstdint>
#include <cstring>

namespace gs::model {

// What the model knows about each 4-byte word of shared memory, for its hazard checks. 8
// bytes, aligned, so that a 16-byte row's four words are 32 bytes of these (one 256-bit load):
// every shared access looks at each word it touches, and the first load of each record is most
// of the shared paths' cache misses (at 40 bytes, then 32, the records of a CTA's 150 KB of
// shared memory were 1.2 MB; the flags are bits, the warps bytes: a CTA has at most 32 warps).
// What only a cp.async's checks and a race's release read lives beside it, in the Cta: a
// cp.async pending on the word is its bit of Cta::cp_async_pending_bits, whose copy it is
// Cta::cp_async_warp and Cta::cp_async_now_bits, the release of its last generic write
// Cta::smem_write_release. At 16 bytes with those in it, each cp.async issue and landing
// rewrote a 64-byte line of records a 16-byte copy and a plain read's check read 512 bytes a
// 128-byte line: a fifth of ampere_cp_async's L1 misses (docs/results/2026-12-07-model-speed-9).
// Now an issue writes a byte a word and some bits, a landing and a check half the lines.
struct alignas(8) SmemWord {
  static constexpr uint8_t kAsync = 0xFF;  // written by the copy engine
  bool written : 1 = false;
  // (A TMA load pending on it is a bit of Cta::tma_pending_bits: a ring's issues and landings
  // would rewrite every record of each box; a cp.async pending on it, of Cta::cp_async_pending_bits.)
  bool generic_since_fence : 1 = false; // written by st.shared/stmatrix, not yet fenced for the async proxy
  // TMA stores that read it and that the issuing thread has not yet retired with
  // cp.async.bulk.wait_group.read: writing it then is a bulk-store-race.
  uint8_t bulk_reads = 0;
  uint8_t writer_warp = 0;
  uint32_t epoch = 0;               // barrier epoch of the last generic write
  // (The warps that read it in a barrier interval are bits of Cta::smem_read_bits; the release
  // of its latest read is SmemTensorWord::generic_read_release, kept only in clusters.)
};
static_assert(sizeof(SmemWord) == 8);


// The first sizeof(T) bytes of a record whose bytes are all `fill` but for the fields `set`
// sets: masks and values of the record's layout made from the struct itself (its flags are
// bits, placed where the compiler places them), for the paths that change or test several
// fields of many records at once.
template <typename T, typename F>
T smem_word_bytes(uint8_t fill, F set) {
  SmemWord s;
  std::memset(static_cast<void*>(&s), fill, sizeof s);
  set(s);
  T v;
  std::memcpy(&v, &s, sizeof v);
  return v;
}

// What the reads of each word note for a peer CTA, kept apart from SmemWord, 12 bytes a word.
// Only a peer CTA consults them (a multicast's check_peer_release, a cta_group::2 read), so they
// are kept up only in clusters of several CTAs (Launch::cluster set): a CTA alone never reads
// them back.
struct SmemTensorWord {
  // Its CTA's release count (Cta::releases) at the latest tensor-core read of part of its
  // 16-byte chunk since the word was last written by TMA, plus one; 0: none. The word's latest
  // read is the largest of this, Cta::smem_chunk_read of its chunk (a read of the whole chunk)
  // and generic_read_release: all count up from the same Cta::releases and a TMA landing
  // clears all three (read_release_of).
  uint32_t read_release = 0;
  // Its CTA's release count when a TMA load last wrote it, plus one (0: none did): a peer may
  // read it (a cta_group::2 MMA) only once it has acquired a release of this CTA made after.
  uint32_t landed_release = 0;
  // Its CTA's release count at the latest read by a warp's instruction (ld.shared, ldmatrix)
  // since the word was last written by TMA, plus one; 0: not read since. A peer may overwrite it
  // only once it has acquired a release of this CTA made after that read (memform::read_notes).
  uint32_t generic_read_release = 0;
};
static_assert(sizeof(SmemTensorWord) == 12);

}  // namespace gs::model
