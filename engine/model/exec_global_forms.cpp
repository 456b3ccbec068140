// The decoded forms of ld.global and st.global through [reg + offset] (exec_memory's common
// case, exec_mem.cpp), with their AVX2 and AVX-512 straight paths, and select_memory, which
// picks a decoded form for every ld/st of global or shared memory (the shared forms are in
// exec_smem_forms.cpp).
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "engine/model/decode.hpp"
#include "engine/model/exec_mem_forms.hpp"
#include "engine/model/exec_context.hpp"
#include "engine/model/operands.hpp"
#include "engine/model/values.hpp"

namespace gs::model {

using ir::Op;
using memform::c_tile_of;
using memform::check_form_registers;
using memform::distinct_if_sorted;
using memform::load_bytes;
using memform::note_c_tile;
using memform::store_bytes;

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
