// exec_wgmma: the tensor cores of Hopper. wgmma reads shared memory through its descriptors
// exactly as decoded (facts §1), so a wrong descriptor gives the GPU's wrong numbers; the
// accumulators are spread over the warpgroup's registers as the facts' §1.5 map says.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include <fmt/format.h>

#include "engine/layout/fragments.hpp"
#include "engine/layout/wgmma_descriptor.hpp"
#include "engine/ir/signature.hpp"
#include "engine/model/decode.hpp"
#include "engine/model/exec_context.hpp"
#include "engine/model/operands.hpp"
#include "engine/model/tensor_core.hpp"
#include "engine/model/values.hpp"

namespace gs::model {

using ir::Op;

namespace {

// The f32 accumulator map of m64nNk16 for one warp's 32 lanes: (lane, v) -> (row, col).
const std::vector<layout::Coord>& accumulator_map(uint32_t n) {
  // Every legal N (8..256 in steps of 8) built once, under C++'s thread-safe initialisation of
  // a local static: the GUI runs the model on job threads, two at a time when a new open
  // supersedes one still finishing, so a cache filled on demand would race.
  static const std::array<std::vector<layout::Coord>, 33> maps = [] {
    std::array<std::vector<layout::Coord>, 33> all;
    for (uint32_t i = 1; i < all.size(); ++i) {
      const layout::FragmentMap f = layout::wgmma_accumulator_layout(int(8 * i));
      all[i].assign(f.table.begin(), f.table.end());  // threads 0..127, values 0..n/2-1
    }
    return all;
  }();
  return maps[n / 8];
}

}  // namespace

// Shared-memory state of the 4-byte words under [addr, addr + bytes): the first hazard wins.
// The words are marked read by this CTA since its latest release (SmemTensorWord::read_release).
// The whole rule, for words note_word_state could not clear from their SmemTensorWord alone.
[[gnu::noinline]] static void note_word_state_slow(Cta& c, uint32_t addr, uint32_t bytes, ReadFaults& f) {
  const uint32_t off = addr - timing::kSmemBaseAddress;
  const uint32_t release = c.releases + 1, rank = c.launch.cluster_rank;
  const bool peer = f.reader && &c != f.reader_cta && rank < kMaxClusterRanks;  // a cta_group::2 read
  SmemWord* const words = c.smem_word_state.data();
  SmemTensorWord* const tensor = c.smem_tensor_word.data();
  for (uint32_t w = off / 4; w <= (off + bytes - 1) / 4; ++w) {
    SmemWord& s = words[w];
    SmemTensorWord& t = tensor[w];
    t.read_release = release;
    if (peer && f.unacquired == kNone && t.landed_release > f.reader->acquired[rank]) {
      f.unacquired = addr;
      f.unacquired_rank = rank;
    }
    const bool tma_pending = c.tma_pending_at(w);
    if (s.written && !tma_pending) c.set_ready(w, w + 1);  // what Cta::smem_ready caches
    if (s.written && !(tma_pending | s.generic_since_fence)) continue;  // the common word: nothing to note
    if (tma_pending) {
      if (f.tma_pending == kNone) f.tma_pending = addr;
    } else if (s.generic_since_fence) {
      if (f.unfenced == kNone) f.unfenced = addr;
    } else if (!s.written && f.unwritten == kNone) {
      f.unwritten = addr;
    }
  }
}

// The common case from Cta::smem_ready alone: every word ready (written, no TMA load pending)
// and none in the range a generic store may have left unfenced (Cta::unfenced_lo/hi); in a
// cluster also each word's SmemTensorWord (its read noted; for a peer's read, landed before a
// release the reader acquired). Otherwise the whole rule (noting a word's read again notes the
// same).
[[gnu::always_inline]] static inline void note_word_state(Cta& c, uint32_t addr, uint32_t bytes, ReadFaults& f) {
  const uint32_t off = addr - timing::kSmemBaseAddress;
  const uint32_t lo = off / 4, hi = (off + bytes - 1) / 4;  // inclusive
  if ((hi < c.unfenced_lo || lo >= c.unfenced_hi) && (lo >> 6) == (hi >> 6)) {
    const uint64_t bits = ((uint64_t(2) << (hi - lo)) - 1) << (lo & 63);
    if ((c.smem_ready[lo >> 6] & bits) == bits) [[likely]] {
      if (!notes_for_peers(c)) return;
      const uint32_t release = c.releases + 1, rank = c.launch.cluster_rank;
      SmemTensorWord* const tensor = c.smem_tensor_word.data();
      if (f.reader && &c != f.reader_cta && rank < kMaxClusterRanks) {  // a peer's read
        const uint32_t acquired = f.reader->acquired[rank];
        bool quiet = true;
        for (uint32_t w = lo; w <= hi; ++w) {
          quiet = quiet && tensor[w].landed_release <= acquired;
          tensor[w].read_release = release;
        }
        if (quiet) return;
      } else {
        if (lo % 4 == 0 && hi == lo + 3) c.smem_chunk_read[lo / 4] = release;  // the whole chunk
        else
          for (uint32_t w = lo; w <= hi; ++w) tensor[w].read_release = release;
        return;
      }
    }
  }
  note_word_state_slow(c, addr, bytes, f);
}

// One row's k16 slice (16 bf16 = 32 bytes) of an operand under its descriptor, placed by
// layout::wgmma_descriptor_address_unchecked for every swizzle, major-ness, LBO, SBO and base
// offset (the GPU reads the same bytes: probe wgmma-desc, 2026-11-24 H100, 32 descriptors, the
// model's C equal to the GPU's bit for bit). K-major reads two 16-byte chunks (the swizzle moves whole chunks, so each chunk is
// contiguous); MN-major reads each element on its own (K neighbours sit in different K rows).
// A byte outside the CTA's shared memory reads as NaN, so the product is visibly wrong.
void read_operand_row(Cta& c, const layout::WgmmaDescriptor& d, char operand, uint32_t row, bool k_major,
                      float scale, float* out, ReadFaults& f) {
  const uint64_t window_end = uint64_t(timing::kSmemBaseAddress) + c.smem.size();
  const auto outside = [&](uint32_t addr, uint32_t bytes) {
    if (addr >= timing::kSmemBaseAddress && uint64_t(addr) + bytes <= window_end) return false;
    if (f.outside == kNone) {
      f.outside = addr;
      f.outside_operand = operand;
      f.outside_desc = d;
    }
    return true;
  };
  if (k_major) {
    for (uint32_t chunk = 0; chunk < 2; ++chunk) {
      const uint32_t addr = layout::wgmma_descriptor_address_unchecked(d, row, 16 * chunk, true);
      if (outside(addr, 16)) {
        for (uint32_t k = 0; k < 8; ++k) out[8 * chunk + k] = std::numeric_limits<float>::quiet_NaN();
        continue;
      }
      note_word_state(c, addr, 16, f);
      uint16_t h[8];
      std::memcpy(h, c.smem.data() + (addr - timing::kSmemBaseAddress), 16);
      for (uint32_t k = 0; k < 8; ++k) out[8 * chunk + k] = scale * bf16_to_f32(h[k]);
    }
    return;
  }
  for (uint32_t k = 0; k < 16; ++k) {
    const uint32_t addr = layout::wgmma_descriptor_address_unchecked(d, row, 2 * k, false);
    if (outside(addr, 2)) {
      out[k] = std::numeric_limits<float>::quiet_NaN();
      continue;
    }
    note_word_state(c, addr, 2, f);
    uint16_t h;
    std::memcpy(&h, c.smem.data() + (addr - timing::kSmemBaseAddress), 2);
    out[k] = scale * bf16_to_f32(h);
  }
}

// Rows row0 .. row0 + rows - 1 in turn, row i into out[i]: what read_operand_row gives row by
// row, values, notes and faults alike. A K-major row's two 16-byte chunks are 16-byte aligned
// (the descriptor's start address, LBO, SBO and the swizzle's XOR all move by 16 bytes); where
// both lie in the window, are ready (Cta::smem_ready) and outside the range a generic store may
// have left unfenced, and the CTA reads its own shared memory, note_word_state's rule comes to
// nothing but the chunks' read notes where peers may read them, so such a row is taken here in a
// few instructions. Any other row (and MN-major or a peer's operand: every row) goes through
// read_operand_row, in the same order, so the first fault of each kind is the same one.
namespace {

// Whether a K-major row's 16-byte chunk at window offset `off` needs nothing noted (read_operand_rows
// says when); an offset wrapped below the window is never inside.
struct QuietChunks {
  uint64_t size;
  uint32_t unfenced_lo, unfenced_hi;
  const uint64_t* ready;
  explicit QuietChunks(const Cta& c)
      : size(c.smem.size()), unfenced_lo(c.unfenced_lo), unfenced_hi(c.unfenced_hi), ready(c.smem_ready.data()) {}
  bool operator()(uint32_t off) const {
    const uint32_t lo = off / 4, hi = lo + 3;
    const uint64_t bits = uint64_t(0xF) << (lo & 63);
    return off % 16 == 0 && uint64_t(off) + 16 <= size && (hi < unfenced_lo || lo >= unfenced_hi) &&
           (ready[lo >> 6] & bits) == bits;
  }
};

// The bits read_operand_pairs flips in each word of bf16 pairs for `scale` (-1: both signs).
uint32_t pair_signs(float scale) { return scale < 0.0f ? 0x80008000u : 0u; }

// A K-major row's two chunks' window offsets.
std::array<uint32_t, 2> row_chunks(const layout::WgmmaDescriptor& d, uint32_t row) {
  return {layout::wgmma_descriptor_address_unchecked(d, row, 0, true) - timing::kSmemBaseAddress,
          layout::wgmma_descriptor_address_unchecked(d, row, 16, true) - timing::kSmemBaseAddress};
}

}  // namespace

void read_operand_rows(Cta& c, const layout::WgmmaDescriptor& d, char operand, uint32_t row0, uint32_t rows,
                       bool k_major, float scale, float (*out)[16], ReadFaults& f) {
  const bool notes = notes_for_peers(c);
  const bool peer = f.reader && &c != f.reader_cta && c.launch.cluster_rank < kMaxClusterRanks;
  if (!k_major || peer) {
    for (uint32_t i = 0; i < rows; ++i) read_operand_row(c, d, operand, row0 + i, k_major, scale, out[i], f);
    return;
  }
  const uint32_t release = c.releases + 1;
  const QuietChunks quiet(c);
  for (uint32_t i = 0; i < rows; ++i) {
    const uint32_t row = row0 + i;
    const auto [off0, off1] = row_chunks(d, row);
    if (!(quiet(off0) && quiet(off1))) {
      read_operand_row(c, d, operand, row, true, scale, out[i], f);
      continue;
    }
    if (notes) {  // the whole chunks' read notes (SmemTensorWord::read_release)
      c.smem_chunk_read[off0 / 16] = release;
      c.smem_chunk_read[off1 / 16] = release;
    }
    uint16_t h[16];
    std::memcpy(h, c.smem.data() + off0, 16);
    std::memcpy(h + 8, c.smem.data() + off1, 16);
    for (uint32_t k = 0; k < 16; ++k) out[i][k] = scale * bf16_to_f32(h[k]);
  }
}

bool read_operand_pairs(Cta& c, const layout::WgmmaDescriptor& d, uint32_t row0, uint32_t rows, float scale,
                        uint32_t (*out)[8]) {
  const QuietChunks quiet(c);
  std::array<std::array<uint32_t, 2>, 256> chunks;
  for (uint32_t i = 0; i < rows; ++i) {
    chunks[i] = row_chunks(d, row0 + i);
    if (!(quiet(chunks[i][0]) && quiet(chunks[i][1]))) return false;
  }
  const bool notes = notes_for_peers(c);
  const uint32_t release = c.releases + 1, sign = pair_signs(scale);
  for (uint32_t i = 0; i < rows; ++i) {
    const auto [off0, off1] = chunks[i];
    if (notes) {
      c.smem_chunk_read[off0 / 16] = release;
      c.smem_chunk_read[off1 / 16] = release;
    }
    std::memcpy(out[i], c.smem.data() + off0, 16);
    std::memcpy(out[i] + 4, c.smem.data() + off1, 16);
    for (uint32_t k = 0; k < 8; ++k) out[i][k] ^= sign;
  }
  return true;
}

void pairs_to_rows(const uint32_t (*pairs)[8], uint32_t rows, float scale, float (*out)[16]) {
  const uint32_t sign = pair_signs(scale);  // read_operand_pairs' sign, taken back
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t p = 0; p < 8; ++p) {
      const uint32_t w = pairs[r][p] ^ sign;
      out[r][2 * p] = scale * bf16_to_f32(uint16_t(w));
      out[r][2 * p + 1] = scale * bf16_to_f32(uint16_t(w >> 16));
    }
}

void report_read_faults(ExecContext& x, const ReadFaults& f, std::string_view mma) {
  Cta& c = x.cta;
  const uint32_t w = x.warp.id, all = kAllLanes;
  if (f.outside != kNone)
    report(c, HazardKind::bad_descriptor, x.inst_id, w, all, f.outside,
           fmt::format("the {} descriptor ({}) reaches shared address 0x{:X}, outside the CTA's {} B of shared memory "
                       "(0x{:X}..0x{:X}): check its start address, LBO and SBO; the products that read it are NaN",
                       f.outside_operand, layout::describe_wgmma_descriptor(layout::encode_wgmma_descriptor(f.outside_desc)),
                       f.outside, c.smem.size(), timing::kSmemBaseAddress, timing::kSmemBaseAddress + c.smem.size()));
  if (f.tma_pending != kNone)
    report_tma_race(c, x.inst_id, w, all, f.tma_pending,
                    fmt::format("{} reads shared address 0x{:X} before the TMA load writing it has completed", mma,
                                f.tma_pending),
                    "wait on the stage's mbarrier first");
  if (f.unacquired != kNone)
    report(c, HazardKind::cluster_race, x.inst_id, w, all, f.unacquired,
           fmt::format("{} reads 0x{:X} of CTA rank {}, which a TMA load wrote there after the latest release of rank {} "
                       "this warp acquired: nothing orders the load before the read. Wait for the peer's word that its "
                       "stage landed (an arrive of rank {} on a barrier this warp waits on) first",
                       mma, f.unacquired, f.unacquired_rank, f.unacquired_rank, f.unacquired_rank));
  if (f.unfenced != kNone)
    report(c, HazardKind::missing_proxy_fence, x.inst_id, w, all, f.unfenced,
           fmt::format("{} (async proxy) reads 0x{:X}, written by ordinary stores without fence.proxy.async", mma,
                       f.unfenced));
  if (f.unwritten != kNone)
    report(c, HazardKind::uninitialized_shared, x.inst_id, w, all, f.unwritten,
           fmt::format("{} reads shared address 0x{:X}, which nothing has written", mma, f.unwritten));
}

namespace {

// A descriptor with reserved bits set cannot be placed: what the tensor core does with them is
// unknown (bits 46-48 = 0b001 is the sm_100 tcgen05 version field, a descriptor built for the
// wrong architecture). Reported at the MMA, naming the bits; the caller makes the products NaN.
bool descriptor_placeable(ExecContext& x, char operand, uint64_t bits) {
  const uint64_t reserved = layout::wgmma_descriptor_reserved_bits(bits);
  if (reserved == 0) return true;
  report(x.cta, HazardKind::bad_descriptor, x.inst_id, x.warp.id, kNone, 0,
         fmt::format("the {} descriptor 0x{:016X} sets reserved bits 0x{:016X} (sm_90 reads only bits 0-13 start, 16-29 "
                     "LBO, 32-45 SBO, 49-51 base offset, 62-63 swizzle; bits 46-48 = 1 is the sm_100 version field): "
                     "the model cannot place it, and the products are NaN",
                     operand, bits, reserved));
  return false;
}

}  // namespace

namespace {

// The faults of a later read merged into those of an earlier one: the first of each kind wins.
void merge_faults(ReadFaults& into, const ReadFaults& later) {
  if (into.outside == kNone && later.outside != kNone) {
    into.outside = later.outside;
    into.outside_operand = later.outside_operand;
    into.outside_desc = later.outside_desc;
  }
  if (into.tma_pending == kNone) into.tma_pending = later.tma_pending;
  if (into.unfenced == kNone) into.unfenced = later.unfenced;
  if (into.unwritten == kNone) into.unwritten = later.unwritten;
  if (into.unacquired == kNone && later.unacquired != kNone) {
    into.unacquired = later.unacquired;
    into.unacquired_rank = later.unacquired_rank;
  }
}

bool no_faults(const ReadFaults& f) {
  return f.outside == kNone && f.tma_pending == kNone && f.unfenced == kNone && f.unwritten == kNone &&
         f.unacquired == kNone;
}

#if defined(__x86_64__) && defined(__GNUC__)
// Four columns at a time: each row's four values one 4 x 4 transpose and one widening store away.
__attribute__((target("avx2"))) void columns_into_b_avx2(const float (*columns)[16], uint32_t n,
                                                         double (&b)[16][256]) {
  for (uint32_t col = 0; col < n; col += 4)
    for (uint32_t k0 = 0; k0 < 16; k0 += 4) {
      __m128 r0 = _mm_load_ps(&columns[col][k0]), r1 = _mm_load_ps(&columns[col + 1][k0]),
             r2 = _mm_load_ps(&columns[col + 2][k0]), r3 = _mm_load_ps(&columns[col + 3][k0]);
      _MM_TRANSPOSE4_PS(r0, r1, r2, r3);  // r_i: the four columns' values at k0 + i
      _mm256_storeu_pd(&b[k0][col], _mm256_cvtps_pd(r0));
      _mm256_storeu_pd(&b[k0 + 1][col], _mm256_cvtps_pd(r1));
      _mm256_storeu_pd(&b[k0 + 2][col], _mm256_cvtps_pd(r2));
      _mm256_storeu_pd(&b[k0 + 3][col], _mm256_cvtps_pd(r3));
    }
}

// The same transpose into float rows.
__attribute__((target("avx2"))) void columns_into_rows_avx2(const float (*columns)[16], uint32_t n,
                                                            float (&b)[16][256]) {
  for (uint32_t col = 0; col < n; col += 4)
    for (uint32_t k0 = 0; k0 < 16; k0 += 4) {
      __m128 r0 = _mm_load_ps(&columns[col][k0]), r1 = _mm_load_ps(&columns[col + 1][k0]),
             r2 = _mm_load_ps(&columns[col + 2][k0]), r3 = _mm_load_ps(&columns[col + 3][k0]);
      _MM_TRANSPOSE4_PS(r0, r1, r2, r3);  // r_i: the four columns' values at k0 + i
      _mm_store_ps(&b[k0][col], r0);
      _mm_store_ps(&b[k0 + 1][col], r1);
      _mm_store_ps(&b[k0 + 2][col], r2);
      _mm_store_ps(&b[k0 + 3][col], r3);
    }
}
#endif

// B as K×N (column index innermost, so the products run along contiguous columns), read by this
// warp or taken from the read another warp of warpgroup `group` made. The four warps of a
// warpgroup read all of B; a read of the same descriptor (N, major-ness, sign) under the same
// Cta::smem_writes and Cta::releases reads the same bytes, finds the same records and notes the
// same (read_release = releases + 1) as the one before it, so a clean one is kept and the next
// warps take it instead of reading again. A read that found a hazard is not kept: each warp that
// reads then reports it, as before. Where no peer consults the read notes (notes_for_peers), the
// read notes nothing `releases` could change, so the key leaves it out, and any warpgroup's kept
// read will do: two consumer warpgroups read the same B between the same writes.
Cta::WgmmaB& operand_b(Cta& c, uint32_t group, const layout::WgmmaDescriptor& db, uint64_t bits, bool ok,
                       bool k_major, float scale, uint32_t n, ReadFaults& faults) {
  if (c.wgmma_b.size() <= group) c.wgmma_b.resize(group + 1);
  const bool any_group = !notes_for_peers(c);
  const auto holds = [&](const Cta::WgmmaB& k) {
    return k.valid && k.bits == bits && k.b.n == n && k.k_major == k_major && k.scale == scale &&
           k.smem_writes == c.smem_writes && (any_group || k.releases == c.releases);
  };
  Cta::WgmmaB& kept = c.wgmma_b[group];
  if (ok && holds(kept)) return kept;
  if (ok && any_group)
    for (Cta::WgmmaB& other : c.wgmma_b)
      if (holds(other)) return other;
  ReadFaults mine;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // The columns read in order (the first fault of each kind is the first read's), then written
  // into B's rows four at a time: in float where the float sums may take them (a finite bound),
  // else straight into double.
  // A K-major B whose rows need nothing noted, for a build that sums bf16 pairs, is read as its
  // bytes (read_operand_pairs): kept as pairs where they are all integers of at most 256, else
  // turned into the floats read_operand_rows gives.
  alignas(64) float columns[256][16];
  alignas(64) uint32_t raw[256][8];
  const bool raw_read = ok && k_major && uses_bf16(fastest_sums_build()) &&
                        read_operand_pairs(c, db, 0, n, scale, raw);
  if (raw_read && n % 16 == 0 && pairs_integers(&raw[0][0], 8 * size_t(n))) {
    kept.b.fill_pairs(raw, n, scale);
  } else {
    if (raw_read) pairs_to_rows(raw, n, scale, columns);
    else if (ok) read_operand_rows(c, db, 'B', 0, n, k_major, scale, columns, mine);
    else std::fill(&columns[0][0], &columns[0][0] + 16 * n, nan);
    kept.b.fill(columns, n, integer_bound(&columns[0][0], 16 * size_t(n), fastest_sums_build()));
  }
  kept.valid = ok && no_faults(mine);
  kept.bits = bits;
  kept.k_major = k_major;
  kept.scale = scale;
  kept.smem_writes = c.smem_writes;
  kept.releases = c.releases;
  merge_faults(faults, mine);
  return kept;
}

void wgmma_mma(ExecContext& x) {
  Cta& c = x.cta;
  Warp& w = x.warp;
  const ir::Inst& in = x.inst;
  const uint32_t n = in.aux, nacc = n / 2;
  Sources src(x);
  if (x.mask != kAllLanes)
    report(c, HazardKind::wgmma_divergent, x.inst_id, w.id, kNone, 0,
           "wgmma.mma_async.sync.aligned must be executed by all 32 lanes of every warp of the warpgroup");
  if (!w.wgmma_fenced)
    report(c, HazardKind::missing_wgmma_fence, x.inst_id, w.id, kNone, 0,
           w.wgmma_any ? "the accumulators were touched by ordinary instructions since the last wgmma: issue "
                         "wgmma.fence before this wgmma"
                       : "the first wgmma of the warpgroup needs a wgmma.fence before it (it orders earlier register "
                         "accesses before the tensor cores use them)");
  const uint32_t lane0 = uint32_t(std::countr_zero(x.mask | 0x80000000u));
  const uint64_t a_bits = src.get(nacc, lane0), b_bits = src.get(nacc + 1, lane0);
  for (uint32_t l = 0; l < 32; ++l)
    if ((x.mask >> l & 1) && (src.get(nacc, l) != a_bits || src.get(nacc + 1, l) != b_bits)) {
      report(c, HazardKind::wgmma_descriptor_divergent, x.inst_id, w.id, l, 0,
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
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const bool a_ok = descriptor_placeable(x, 'A', a_bits), b_ok = descriptor_placeable(x, 'B', b_bits);
  ReadFaults faults;
  const SumsBuild build = fastest_sums_build();
  alignas(64) float rows[16][16];
  // A K-major A whose rows need nothing noted, for a build that sums bf16 pairs: its rows' bytes
  // as they are (read_operand_pairs), the pairs those sums take; turned into floats only if the
  // pair sums decline them.
  alignas(64) uint32_t a_pairs[16][8];
  const bool a_paired = a_ok && a_k_major && uses_bf16(build) && read_operand_pairs(c, da, row0, 16, sa, a_pairs);
  if (!a_paired && a_ok) read_operand_rows(c, da, 'A', row0, 16, a_k_major, sa, rows, faults);
  else if (!a_paired) std::fill(&rows[0][0], &rows[0][0] + 16 * 16, nan);
  Cta::WgmmaB& kept_b = operand_b(c, w.id / 4, db, b_bits, b_ok, b_k_major, sb, n, faults);
  report_read_faults(x, faults, "wgmma");
  const size_t slot0 = size_t(w.id) * c.nregs;
  if (scale_d)  // accumulating reads the old D: it must have been written (by a wgmma or a mov)
    for (uint32_t v = 0; v < nacc; ++v)
      if ((c.written[slot0 + in.operands[v].id] & x.mask) != x.mask) {
        report(c, HazardKind::uninitialized_register, x.inst_id, w.id, kNone, 0,
               fmt::format("wgmma accumulates into %{} (scale-d = 1) before anything wrote it: use scale-d = 0 for "
                           "the first wgmma, or zero the accumulators",
                           c.launch.kernel->regs[in.operands[v].id].name));
        break;
      }
  // Straight into the registers where each is named once (the builder's accumulators come in
  // increasing order, which shows it); otherwise register by register, as the map says, so
  // that a repeated one ends as it did.
  std::array<uint64_t*, 128> dst;  // the first nacc set below
  bool distinct = true;
  for (uint32_t v = 0; v < nacc; ++v) {
    dst[v] = c.reg_lanes(w.id, in.operands[v].id);
    distinct = distinct && (v == 0 || in.operands[v].id > in.operands[v - 1].id);
  }
  // Small integers: from their bf16 pairs or in float (where they say yes); otherwise in double.
  const bool summed = distinct && a_paired &&
                      wgmma_accumulate_pairs(a_pairs, kept_b.b.pairs(), n, dst.data(), scale_d, build);
  if (a_paired && !summed) pairs_to_rows(a_pairs, 16, sa, rows);
  if (!summed &&
      !(distinct && wgmma_accumulate_integers(rows, kept_b.b.float_rows(), kept_b.b.row_bound(), n, dst.data(), scale_d, build))) {
    alignas(64) double A[16][16];
    for (uint32_t r = 0; r < 16; ++r)
      for (uint32_t k = 0; k < 16; ++k) A[r][k] = rows[r][k];
    const double (&B)[16][256] = kept_b.b.in_double();
    if (distinct) {
      wgmma_accumulate(A, B, n, dst.data(), scale_d, build);
    } else {
      const std::vector<layout::Coord>& map = accumulator_map(n);
      for (uint32_t v = 0; v < nacc; ++v)
        for (uint32_t l = 0; l < 32; ++l) {
          const layout::Coord rc = map[(32 * (w.id % 4) + l) * nacc + v];
          const uint32_t r = uint32_t(rc.row) - row0, col = uint32_t(rc.col);
          double sum = 0.0;
          for (uint32_t k = 0; k < 16; ++k) sum += A[r][k] * B[k][col];
          const float old = scale_d ? as_f32(dst[v][l]) : 0.0f;
          dst[v][l] = from_f32(float(double(old) + sum));
        }
    }
  }
  // One allocation: commit_group moves the list away (its capacity with it), so growing it a
  // register at a time reallocated ~8 times a wgmma.
  // The tables through pointers taken once: the byte stores below may alias anything, so the
  // vectors' data pointers were loaded again for every register.
  const size_t listed = w.uncommitted_regs.size();
  if (const size_t need = listed + nacc; w.uncommitted_regs.capacity() < need)
    w.uncommitted_regs.reserve(std::max(need, 2 * w.uncommitted_regs.capacity()));
  w.uncommitted_regs.resize(listed + nacc);
  uint32_t* const written = c.written.data() + slot0;
  uint8_t* const acc = c.wgmma_acc.data() + slot0;
  uint8_t* const pending = c.reg_pending.data() + slot0;
  uint32_t* const uncommitted = w.uncommitted_regs.data() + listed;
  const ir::Operand* const accumulators = in.operands.data();
  for (uint32_t v = 0; v < nacc; ++v) {
    const uint32_t reg = accumulators[v].id;
    written[reg] |= x.mask;
    acc[reg] = 1;
    pending[reg] = 1;
    uncommitted[v] = reg;
  }
  w.wgmma_any = true;
  // Timing: the warpgroup's m64nNk16 occupies the SM's tensor cores for N/2 cycles, from when
  // its first warp issues it (the hardware runs a warpgroup's wgmma as one); its results are
  // ready kWgmmaPipelineLatency after that, for all four warps (probe wgmma_n*_1wg: the gap
  // between one waited round and the next). A wgmma issues no sooner than the SM's wgmma issue
  // is free, and takes it for timing::wgmma_issue_cycles: longer while kWgmmaQueue or more
  // wgmmas are on the tensor cores or waiting for them (probes wgmma_issue_*). The warpgroup's
  // warps wait at the wgmma until it issues.
  Cta::WgmmaInstance& inst =
      c.wgmma_instances[(w.id / 4) % c.wgmma_instances.size()][w.wgmma_issued % Cta::kWgmmaRing];
  if (inst.index != w.wgmma_issued) {
    const uint64_t at = std::max(c.now, c.wgmma_issue_free);
    // kWgmmaQueue or more not ended: the ends come in issue order, so the one kWgmmaQueue back.
    static_assert(timing::kWgmmaQueue >= 1 && timing::kWgmmaQueue <= Cta::kWgmmaEnds);
    const bool crowded = c.wgmma_count >= timing::kWgmmaQueue &&
                         c.wgmma_ends[(c.wgmma_count - timing::kWgmmaQueue) % Cta::kWgmmaEnds] > at;
    c.wgmma_issue_free = at + timing::wgmma_issue_cycles(n, crowded);
    const uint64_t busy = timing::wgmma_busy_cycles(n);
    const uint64_t start = std::max(at, c.tensor_free);
    c.tensor_free = start + busy;
    c.wgmma_ends[c.wgmma_count++ % Cta::kWgmmaEnds] = c.tensor_free;
    c.cost.tensor_busy_cycles += busy;
    inst = {w.wgmma_issued, at, c.tensor_free + timing::kWgmmaPipelineLatency};
  }
  if (inst.issued > c.now) {
    x.hold_until = inst.issued + 1;
    if (c.trace)
      trace_event(c, EventKind::wgmma_issue_wait, c.now, w.id, x.inst_id, x.mask, kNone, uint32_t(inst.issued - c.now));
  }
  ++w.wgmma_issued;
  w.uncommitted_complete_at = std::max(w.uncommitted_complete_at, inst.complete);
  if (w.id % 4 == 0) c.stats->mma_ops++;
  MmaOp op;
  op.n = n;
  op.a_desc = a_bits;
  op.b_desc = b_bits;
  op.scale_d = scale_d;
  op.group = uint32_t(w.groups.size());
  op.issue_cycle = c.now;
  op.complete_cycle = inst.complete;
  op.a_k_major = a_k_major;  // trans_a and trans_b (signature wgmma), read above
  op.b_k_major = b_k_major;
  record_tensor_reads(c, w.id, op);  // the counts for every CTA, the records for the traced one
  if (c.trace) {
    const uint32_t index = append(c.trace->mma, op);
    trace_event(c, EventKind::wgmma_issue, c.now, w.id, x.inst_id, x.mask, index, n);
    if (c.launch.record_registers)
      for (uint32_t v = 0; v < nacc; ++v) record_register_write(c, w.id, x.inst_id, in.operands[v].id, x.mask);
  }
}

}  // namespace

void columns_into_b(const float (*columns)[16], uint32_t n, double (&b)[16][256]) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (n % 4 == 0 && cpu_has_avx2()) return columns_into_b_avx2(columns, n, b);
#endif
  for (uint32_t col = 0; col < n; ++col)
    for (uint32_t k = 0; k < 16; ++k) b[k][col] = columns[col][k];
}

void columns_into_rows(const float (*columns)[16], uint32_t n, float (&b)[16][256]) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (n % 4 == 0 && cpu_has_avx2()) return columns_into_rows_avx2(columns, n, b);
#endif
  for (uint32_t col = 0; col < n; ++col)
    for (uint32_t k = 0; k < 16; ++k) b[k][col] = columns[col][k];
}

void widen_rows(const float (&rows)[16][256], uint32_t n, double (&b)[16][256]) {
  for (uint32_t k = 0; k < 16; ++k)
    for (uint32_t col = 0; col < n; ++col) b[k][col] = rows[k][col];
}

void BRows::fill(const float (*columns)[16], uint32_t count, float bound_of_columns) {
  n = count;
  bound = bound_of_columns;
  widened = !std::isfinite(bound);
  paired = has_pairs = false;
  rows_made = true;
  if (widened) columns_into_b(columns, n, b);
  else columns_into_rows(columns, n, rows);
}

const uint32_t (*BRows::pairs())[256] {
  if (!paired) {
    paired = true;
    has_pairs = bound <= 256.0f && n % 16 == 0;  // a NaN bound (some value no integer) compares false
    if (has_pairs) bf16_pairs_of_rows(rows, n, pair_words);
  }
  return has_pairs ? pair_words : nullptr;
}

void BRows::fill_pairs(const uint32_t (*columns)[8], uint32_t count, float scale) {
  n = count;
  widened = false;
  paired = has_pairs = true;
  rows_made = false;
  pairs_scale = scale;
  columns_into_pairs(columns, n, pair_words);
}

const float (&BRows::float_rows())[16][256] {
  if (!rows_made) {
    rows_made = true;
    const uint32_t sign = pair_signs(pairs_scale);  // read_operand_pairs' flip, taken back
    float top = 0.0f;
    for (uint32_t p = 0; p < 8; ++p)
      for (uint32_t c = 0; c < n; ++c) {
        const uint32_t w = pair_words[p][c] ^ sign;
        rows[2 * p][c] = pairs_scale * bf16_to_f32(uint16_t(w));
        rows[2 * p + 1][c] = pairs_scale * bf16_to_f32(uint16_t(w >> 16));
        top = std::max({top, std::fabs(rows[2 * p][c]), std::fabs(rows[2 * p + 1][c])});
      }
    bound = top;  // integer_bound of integers: their largest magnitude
  }
  return rows;
}

float BRows::row_bound() {
  float_rows();
  return bound;
}

const double (&BRows::in_double())[16][256] {
  if (!widened) {
    float_rows();
    widen_rows(rows, n, b);
    widened = true;
  }
  return b;
}

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
      trace_event(c, EventKind::wgmma_commit, c.now, w.id, x.inst_id, x.mask, kNone, uint32_t(w.groups.size()));
      break;
    case Op::wgmma_wait_group: {
      const size_t keep = size_t(std::max<int64_t>(ir::group_count_operands_of(x.inst).n.imm, 0));
      uint64_t until = c.now;
      const bool blocks = w.groups.size() > keep;
      if (blocks) trace_event(c, EventKind::wgmma_wait_blocked, c.now, w.id, x.inst_id, x.mask, kNone, uint32_t(keep));
      while (w.groups.size() > keep) {
        Warp::Group& g = w.groups.front();
        until = std::max(until, g.complete_at);
        for (uint32_t r : g.regs) c.reg_pending[size_t(w.id) * c.nregs + r] = 0;
        trace_event(c, EventKind::wgmma_complete, g.complete_at, w.id, x.inst_id, x.mask);
        w.groups.erase(w.groups.begin());
      }
      x.latency = uint32_t(std::max<uint64_t>(until - c.now, 1));
      if (blocks) trace_event(c, EventKind::wgmma_wait_released, until, w.id, x.inst_id, x.mask, kNone, uint32_t(keep));
      break;
    }
    default: not_handled(x, "exec_wgmma");
  }
}

}  // namespace gs::model
