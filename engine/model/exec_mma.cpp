// exec_mma: warp-level mma.sync.m16n8k16 (bf16 x bf16 -> f32). The fragments are spread
// over the 32 lanes as the facts sheet's §2 maps say (layout::mma_m16n8k16_*_layout, checked
// on the GPU by `gemmscope probe mma`): gather A, B and C from the lanes, multiply, scatter D.
#include <algorithm>
#include <array>
#include <iterator>
#include <limits>
#include <cmath>
#include <fmt/format.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "engine/layout/fragments.hpp"
#include "engine/ir/signature.hpp"
#include "engine/model/decode.hpp"
#include "engine/model/exec_context.hpp"
#include "engine/model/operands.hpp"
#include "engine/model/integer_bound_avx2.hpp"
#include "engine/model/tensor_core.hpp"
#include "engine/model/values.hpp"

namespace gs::model {

namespace {

// The fragment maps as flat indices, looked up once: A's (lane, e) -> row * 16 + k, B's
// (lane, e) -> k * 8 + n, C's and D's (lane, v) -> row * 8 + n. `regular` says they are the
// maps written out in gather_regular below (the PTX ISA's, as the facts sheet gives them):
// checked here against the layout's, so a change there falls back to the plain gather.
struct MmaMaps {
  std::array<std::array<uint8_t, 8>, 32> a{};
  std::array<std::array<uint8_t, 4>, 32> b{}, c{};
  bool regular = true;
  MmaMaps() {
    const layout::FragmentMap fa = layout::mma_m16n8k16_a_layout();  // (T32,V8) -> (M16,K16)
    const layout::FragmentMap fb = layout::mma_m16n8k16_b_layout();  // (T32,V4) -> (K16,N8)
    const layout::FragmentMap fc = layout::mma_m16n8k16_c_layout();  // (T32,V4) -> (M16,N8)
    for (uint32_t l = 0; l < 32; ++l) {
      for (int e = 0; e < 8; ++e) a[l][e] = uint8_t(fa.at(int(l), e).row * 16 + fa.at(int(l), e).col);
      for (int e = 0; e < 4; ++e) b[l][e] = uint8_t(fb.at(int(l), e).row * 8 + fb.at(int(l), e).col);
      for (int v = 0; v < 4; ++v) c[l][v] = uint8_t(fc.at(int(l), v).row * 8 + fc.at(int(l), v).col);
      const uint32_t g = l / 4, t = l % 4;
      for (uint32_t j = 0; j < 4; ++j)  // register j: rows g (+8 for j odd), k 2t, 2t+1 (+8 for j >= 2)
        regular &= a[l][2 * j] == (g + 8 * (j % 2)) * 16 + 2 * t + 8 * (j / 2) && a[l][2 * j + 1] == a[l][2 * j] + 1;
      for (uint32_t j = 0; j < 2; ++j)  // register j: k 2t, 2t+1 (+8 for j = 1), column g
        regular &= b[l][2 * j] == (2 * t + 8 * j) * 8 + g && b[l][2 * j + 1] == b[l][2 * j] + 8;
      for (uint32_t v = 0; v < 4; ++v)  // register v: row g (+8 for v >= 2), column 2t + v%2
        regular &= c[l][v] == (g + 8 * (v / 2)) * 8 + 2 * t + v % 2;
    }
  }
};
const MmaMaps& maps() {
  static const MmaMaps m;
  return m;
}

// A and B from the lanes, by the maps (any maps), the operands as Sources give them.
void gather_by_maps(const MmaMaps& m, const Sources& src, const ir::mma_sync_operands& ops, double (&A)[16][16],
                    double (&B)[16][8]) {
  for (uint32_t l = 0; l < 32; ++l) {
    for (uint32_t e = 0; e < 8; ++e) {  // element e sits in register e/2, low half when e is even
      const uint32_t word = uint32_t(src.get(ops.a_at + e / 2, l));
      (&A[0][0])[m.a[l][e]] = bf16_to_f32(uint16_t(e % 2 == 0 ? word : word >> 16));
    }
    for (uint32_t e = 0; e < 4; ++e) {
      const uint32_t word = uint32_t(src.get(ops.b_at + e / 2, l));
      (&B[0][0])[m.b[l][e]] = bf16_to_f32(uint16_t(e % 2 == 0 ? word : word >> 16));
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// Four lanes' words (the low 32 bits of each lane) hold 8 bf16, the low half first: as 8 floats
// in that order (a bf16 is the high half of its f32).
__attribute__((target("avx2"), always_inline)) inline __m256 bf16x8_to_f32(const uint64_t* lanes) {
  const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lanes));
  const __m256i lo = _mm256_slli_epi32(w, 16);
  const __m256i hi = _mm256_slli_epi64(_mm256_and_si256(w, _mm256_set1_epi64x(0xFFFF0000)), 32);
  return _mm256_castsi256_ps(_mm256_blend_epi32(lo, hi, 0xAA));
}

// The maps written out (MmaMaps::regular): lanes 4g .. 4g+3 of A's register j hold row g (+8
// for odd j), k 0..7 (+8 for j >= 2) in order; of B's register j, column g, k 0..7 (+8 for j =
// 1). In float (bf16 to f32 is exact): A as it comes, B's columns turned into rows in two 8 x 8
// transposes (k 0..7, then 8..15). Each operand's integer_bound (tensor_core.hpp) is taken from
// the registers on the way: read back from memory, the 256-bit stores would not forward to wider
// loads.
__attribute__((target("avx2"))) void gather_regular_f32(const uint64_t* const* a, const uint64_t* const* b,
                                                        float (&A)[16][16], float (&B)[16][8], float& a_bound,
                                                        float& b_bound) {
  IntegerBoundAvx2 in_a, in_b;
  for (uint32_t j = 0; j < 4; ++j)
    for (uint32_t g = 0; g < 8; ++g) {
      const __m256 v = bf16x8_to_f32(a[j] + 4 * g);
      in_a.add(v);
      _mm256_storeu_ps(&A[g + 8 * (j % 2)][8 * (j / 2)], v);
    }
  __m256 bt[2][8];  // [k / 8][n]: column n's k 0..7, 8..15
  for (uint32_t j = 0; j < 2; ++j)
    for (uint32_t g = 0; g < 8; ++g) {
      bt[j][g] = bf16x8_to_f32(b[j] + 4 * g);
      in_b.add(bt[j][g]);
    }
  a_bound = in_a.bound();
  b_bound = in_b.bound();
  for (uint32_t j = 0; j < 2; ++j) {
    const __m256* r = bt[j];
    __m256 t[8], s[8];
    for (uint32_t i = 0; i < 8; i += 2) {
      t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
      t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (uint32_t i = 0; i < 8; i += 4) {
      s[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
      s[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
      s[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
      s[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
    }
    for (uint32_t i = 0; i < 4; ++i) {  // s[i]: k 8j + i and 8j + 4 + i of columns 0..3, s[4 + i] of 4..7
      _mm256_store_ps(B[8 * j + i], _mm256_permute2f128_ps(s[i], s[4 + i], 0x20));
      _mm256_store_ps(B[8 * j + 4 + i], _mm256_permute2f128_ps(s[i], s[4 + i], 0x31));
    }
  }
}
#endif

}  // namespace

namespace {

// D = C + A·B for the regular maps, D's lanes at d, C's at cl. D starts as C (through a copy
// where C is not D: a D register may be another v's C register), then takes the sums in place:
// S[r][n] = the sum over k, in order, of the exact product A[r][k] · B[k][n], rounded in double
// once per k (a bf16 × bf16 product has at most 16 significant bits: exact in double; the model
// took it in float first until 2026-11-28, which differed only where a product leaves float's
// normal range); D = f32(C + S) rounds once more (tensor_sums.cpp, mma_accumulate; C's and D's
// map is wgmma's at n = 8).
void c_into_d(const uint64_t* const (&cl)[4], uint64_t* const (&d)[4]) {
  // C is D (accumulating in place, as the steps do): nothing to copy; the sums read each
  // lane's low word, as as_f32 does.
  bool in_place = true;
  for (uint32_t v = 0; v < 4; ++v) in_place = in_place && cl[v] == d[v];
  if (!in_place) {
    uint64_t old[4][32];
    for (uint32_t v = 0; v < 4; ++v)
      for (uint32_t l = 0; l < 32; ++l) old[v][l] = uint32_t(cl[v][l]);
    for (uint32_t v = 0; v < 4; ++v) std::copy(std::begin(old[v]), std::end(old[v]), d[v]);
  }
}

void accumulate_regular(const uint64_t* const (&cl)[4], uint64_t* const (&d)[4], const double (&A)[16][16],
                        const double (&B)[16][8]) {
  c_into_d(cl, d);
  mma_accumulate(A, B, d, fastest_sums_build());
}

// The operands through Sources and the signature, any maps.
void mma_by_sources(ExecContext& x, const MmaMaps& m, double (&A)[16][16], double (&B)[16][8]) {
  Cta& c = x.cta;
  const ir::mma_sync_operands ops = ir::mma_sync_operands_of(x.inst);
  Sources src(x);  // checks the A, B and C registers
  const uint64_t* a[4] = {src.lanes(ops.a_at), src.lanes(ops.a_at + 1), src.lanes(ops.a_at + 2),
                          src.lanes(ops.a_at + 3)};
  const uint64_t* b[2] = {src.lanes(ops.b_at), src.lanes(ops.b_at + 1)};
  bool gathered = false;
#if defined(__x86_64__) && defined(__GNUC__)
  if (m.regular && cpu_has_avx2() && a[0] && a[1] && a[2] && a[3] && b[0] && b[1]) {
    alignas(32) float Af[16][16], Bf[16][8];
    float a_bound, b_bound;  // not used here: this path takes the double sums
    gather_regular_f32(a, b, Af, Bf, a_bound, b_bound);
    std::copy(&Af[0][0], &Af[0][0] + 16 * 16, &A[0][0]);
    std::copy(&Bf[0][0], &Bf[0][0] + 16 * 8, &B[0][0]);
    gathered = true;
  }
#endif
  if (!gathered) gather_by_maps(m, src, ops, A, B);
  uint64_t* d[4];
  for (uint32_t v = 0; v < 4; ++v) d[v] = c.reg_lanes(x.warp.id, ops.d[v].id);
  const uint64_t* cl[4];
  for (uint32_t v = 0; v < 4; ++v) cl[v] = src.lanes(ops.c_at + v);
  if (m.regular && cl[0] && cl[1] && cl[2] && cl[3]) {
    accumulate_regular(cl, d, A, B);
  } else {  // any other map: element by element
    float C[16 * 8];
    double S[16][8];
    for (uint32_t l = 0; l < 32; ++l)
      for (uint32_t v = 0; v < 4; ++v) C[m.c[l][v]] = as_f32(src.get(ops.c_at + v, l));
    for (uint32_t r = 0; r < 16; ++r)
      for (uint32_t n = 0; n < 8; ++n) {
        double sum = 0.0;
        for (uint32_t k = 0; k < 16; ++k) sum += A[r][k] * B[k][n];
        S[r][n] = sum;
      }
    for (uint32_t v = 0; v < 4; ++v)
      for (uint32_t l = 0; l < 32; ++l) d[v][l] = from_f32(float(double(C[m.c[l][v]]) + (&S[0][0])[m.c[l][v]]));
  }
  for (uint32_t v = 0; v < 4; ++v) note_register_write(x, ops.d[v].id, x.mask);
}

}  // namespace

namespace {

#if defined(__x86_64__) && defined(__GNUC__)
// The sums of a regular map straight from the lanes (exec_mma and its straight path): integers
// of at most 256 (the default inputs) by bf16 pairs where the CPU has AVX512_BF16; else in float
// first: small integers take the float sums (tensor_sums.cpp says why those are the same bits);
// anything else widens the floats (exactly) to double.
// `warp_regs`: the warp's registers, 32 lanes a register (Warp::regs).
// `kept`, `reuse`, `kept_valid`: A's pairs kept by the warp (mma_accumulate_integer_lanes).
void regular_sums(const MmaRegs& regs, uint64_t* warp_regs, MmaAPairs* kept = nullptr, bool reuse = false,
                  bool* kept_valid = nullptr) {
  const auto lanes = [&](uint32_t reg) { return warp_regs + 32 * size_t(reg); };
  const uint64_t* a[4] = {lanes(regs.sources[0]), lanes(regs.sources[1]), lanes(regs.sources[2]),
                          lanes(regs.sources[3])};
  const uint64_t* b[2] = {lanes(regs.sources[4]), lanes(regs.sources[5])};
  const uint64_t* cl[4] = {lanes(regs.sources[6]), lanes(regs.sources[7]), lanes(regs.sources[8]),
                           lanes(regs.sources[9])};
  uint64_t* d[4] = {lanes(regs.d[0]), lanes(regs.d[1]), lanes(regs.d[2]), lanes(regs.d[3])};
  const SumsBuild build = fastest_sums_build();
  if (mma_accumulate_integer_lanes(a, b, cl, d, build, kept, reuse, kept_valid)) return;
  alignas(32) float Af[16][16], Bf[16][8];
  float a_bound, b_bound;
  gather_regular_f32(a, b, Af, Bf, a_bound, b_bound);
  c_into_d(cl, d);
  if (!mma_accumulate_integers(Af, Bf, a_bound, b_bound, d, build)) {
    alignas(64) double A[16][16], B[16][8];
    std::copy(&Af[0][0], &Af[0][0] + 16 * 16, &A[0][0]);
    std::copy(&Bf[0][0], &Bf[0][0] + 16 * 8, &B[0][0]);
    mma_accumulate(A, B, d, build);
  }
}
#endif

// The warp's sub-partition's tensor core takes one m16n8k16 at a quarter of the SM's measured
// mma.sync rate; the result is ready kMmaSyncLatency after it starts. Returns the start.
uint64_t issue_mma(Cta& c, uint32_t warp) {
  c.stats->mma_ops++;
  constexpr double kFlops = 2 * 16 * 8 * 16;
  const uint64_t busy = uint64_t(std::ceil(kFlops / (timing::kMmaSyncFlopsPerCycle / 4)));
  uint64_t& free_at = c.mma_free[warp & 3];
  const uint64_t start = std::max(c.now, free_at);
  free_at = start + busy;
  c.cost.mma_sync_partition_cycles += busy;  // the SM's share is a quarter (CtaCost::tensor_cycles)
  return start;
}

// Whether the warp's last issue was pc - 1's mma.sync (it left Warp::mma_a_pc and mma_a_at).
bool right_after(const Warp& w, uint32_t pc) {
  return w.mma_a_pc == pc - 1 && w.mma_a_at == w.issue_at[(pc - 1) & kHoistWindow];
}

// Whether a run's first mma.sync computed this one's sums (run_sums), issued right after the one
// before it: it then writes nothing more. The run ends with its last one; any other issue of an
// mma.sync ends it too.
bool computed_by_run(Warp& w, uint32_t pc, bool after) {
  if (w.mma_batch_end > pc && after) {
    if (pc + 1 == w.mma_batch_end) w.mma_batch_end = 0;
    return true;
  }
  w.mma_batch_end = 0;
  return false;
}

#if defined(__x86_64__) && defined(__GNUC__)
static_assert(DecodedInst::kMmaRun == kMmaRunMax);

// Whether the ten sources of Program::mma_regs[bit] were found written in every lane of warp w
// (Warp::mma_sources_written: once true, true for the rest of the CTA), and the note that they are.
bool sources_known_written(const Warp& w, uint32_t bit) {
  return bit < Warp::kMmaWrittenBits && (w.mma_sources_written[bit / 64] >> (bit % 64) & 1) != 0;
}
void note_sources_written(Warp& w, uint32_t bit) {
  if (bit < Warp::kMmaWrittenBits) w.mma_sources_written[bit / 64] |= uint64_t(1) << (bit % 64);
}

// Where the sums take bf16 pairs (AMX tiles or AVX512_BF16): the sums of the run of mma.syncs
// from pc (DecodedInst::mma_run) at once, A's pairs made once and, on tiles, the tile's latency
// paid once for the run; without AMX, the run's later issues leave out their calls into the
// sums (the rest of an issue, scheduler and all, stays). Each of the run is issued right after the
// one before (no label between, no guard, no register a wgmma may own: decode), reads what it
// would read then (no one of the run writes another's sources) and finds its sources written
// (checked here, as its own straight path would): so its sums come out as they would at its own
// issue, which then writes nothing (Warp::mma_batch_end). An untraced CTA's registers are seen
// by nothing between the run's issues. Returns how many it took (0: none, nothing written).
uint32_t run_sums(Cta& c, Warp& w, const DecodedInst& d, uint32_t pc, bool reuse) {
  static const SumsBuild build = fastest_sums_build();
  if (!uses_bf16(build)) return 0;
  const uint32_t run = d.mma_run;
  std::array<MmaLanes, DecodedInst::kMmaRun> lanes;
  const auto at = [&](uint32_t reg) { return w.regs + 32 * size_t(reg); };
  for (uint32_t i = 0; i < run; ++i) {
    const uint32_t bit = c.program->insts[pc + i].mma_regs;
    const MmaRegs& r = c.program->mma_regs[bit];
    if (!sources_known_written(w, bit)) {
      uint32_t written = kAllLanes;
      for (const uint32_t s : r.sources) written &= w.written[s];
      if (written != kAllLanes) return 0;
      note_sources_written(w, bit);
    }
    lanes[i] = {{at(r.sources[4]), at(r.sources[5])},
                {at(r.sources[6]), at(r.sources[7]), at(r.sources[8]), at(r.sources[9])},
                {at(r.d[0]), at(r.d[1]), at(r.d[2]), at(r.d[3])}};
  }
  const MmaRegs& head = c.program->mma_regs[d.mma_regs];
  const uint64_t* a[4] = {at(head.sources[0]), at(head.sources[1]), at(head.sources[2]), at(head.sources[3])};
  bool kept_valid = false;
  if (!mma_run_integer_lanes(a, lanes.data(), run, build, &w.mma_a, reuse, &kept_valid)) return 0;
  return run;
}

// exec_mma's straight path (DecodedInst::direct) for an untraced whole warp whose ten source
// registers every lane has written and none of whose registers a wgmma may own: what the
// regular path of exec_mma does then, with nothing to check or report.
uint32_t direct_mma_sync(Cta& c, Warp& w, const DecodedInst& d) {
  if (!d.no_wgmma_regs || d.mma_regs == kNone) return 0;
  const MmaRegs& regs = c.program->mma_regs[d.mma_regs];
  // Its sources written in every lane: looked at once per warp and CTA (Warp::mma_sources_written;
  // the ten loads of the written lanes were half of this function's time on step 08).
  const uint32_t bit = d.mma_regs;
  if (!sources_known_written(w, bit)) {
    uint32_t written = kAllLanes;
    for (const uint32_t r : regs.sources) written &= w.written[r];
    if (written != kAllLanes) return 0;
    note_sources_written(w, bit);
  }
  // A's pairs as the mma.sync before left them, where that was this warp's last issue
  // (Warp::mma_a); kept anew otherwise.
  const uint32_t pc = uint32_t(&d - c.program->insts.data());
  const bool after = right_after(w, pc);
  const bool reuse = d.mma_same_a && after;
  bool kept = false;
  if (computed_by_run(w, pc, after)) {
    kept = true;
  } else if (const uint32_t run = d.mma_run > 1 ? run_sums(c, w, d, pc, reuse) : 0; run > 0) {
    kept = true;
    w.mma_batch_end = pc + run;
  } else {
    regular_sums(regs, w.regs, &w.mma_a, reuse, &kept);
  }
  w.mma_a_pc = kept ? pc : ~0u;
  w.mma_a_at = c.now;
  for (const uint32_t r : regs.d) w.written[r] = kAllLanes;  // note_register_write: |= all lanes
  return uint32_t(issue_mma(c, w.id) - c.now) + timing::kMmaSyncLatency;
}
#endif

}  // namespace

DirectFn mma_sync_direct() {
#if defined(__x86_64__) && defined(__GNUC__)
  if (maps().regular && cpu_has_avx2()) return direct_mma_sync;
#endif
  return nullptr;
}

void exec_mma(ExecContext& x) {
  expect_op(x, "exec_mma", ir::Op::mma_sync);
  Cta& c = x.cta;
  if (x.mask != kAllLanes)
    report(c, HazardKind::mma_divergent, x.inst_id, x.warp.id, kNone, 0,
           "mma.sync.aligned must be executed by all 32 lanes of the warp");
  const MmaMaps& m = maps();
  // The registers the decoder read from the signature (DecodedInst::mma_regs), checked in
  // Sources' order: the signature's parse and Sources' operand loop were a tenth of a step's
  // mma.sync.
  const MmaRegs* regs = c.program && x.dec.mma_regs != kNone ? &c.program->mma_regs[x.dec.mma_regs] : nullptr;
  bool done = false;
  Warp& w = x.warp;
  const uint32_t pc = x.inst_id;
  const bool by_run = computed_by_run(w, pc, right_after(w, pc));
  if (regs && by_run) {
    // The straight path takes the rest of such a run; this is in case it did not.
    for (const uint32_t r : regs->sources) check_register_read(x, r, x.mask);
    for (const uint32_t r : regs->d) note_register_write(x, r, x.mask);
    w.mma_a_pc = pc;
    w.mma_a_at = c.now;
    done = true;
  }
#if defined(__x86_64__) && defined(__GNUC__)
  if (!done && regs && m.regular && cpu_has_avx2()) {
    for (const uint32_t r : regs->sources) check_register_read(x, r, x.mask);
    regular_sums(*regs, x.warp.regs);
    for (const uint32_t r : regs->d) note_register_write(x, r, x.mask);
    done = true;
  }
#endif
  if (!done) {
    alignas(64) double A[16][16], B[16][8];
    mma_by_sources(x, m, A, B);
  }
  const uint64_t start = issue_mma(c, x.warp.id);
  x.latency = uint32_t(start - c.now) + timing::kMmaSyncLatency;
  if (c.trace)
    append(c.trace->mma_sync, MmaSyncOp{x.inst_id, uint16_t(c.launch.trace_warp_base + x.warp.id), start,
                                        start + timing::kMmaSyncLatency});
}

}  // namespace gs::model
