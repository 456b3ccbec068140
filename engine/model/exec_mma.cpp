// exec_mma: warp-level mma.sync.m16n8k16 (bf16 x bf16 -> f32). The fragments are spread
// over the 32 lanes as the facts sheet's §2 maps say (layout::mma_m16n8k16_*_layout, checked
// on the GPU by `gemmscope probe mma`): gather A, B and C from the lanes, multiply, scatter D.
#include <array>
#include <cmath>
#include <fmt/format.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "engine/layout/fragments.hpp"
#include "engine/ir/signature.hpp"
#include "engine/model/decode.hpp"
#include "engine/model/machine.hpp"
#include "engine/model/operands.hpp"
#include "engine/model/values.hpp"

namespace gs::model {

namespace {

// The fragment maps as flat indices, looked up once: A's (lane, e) -> row * 16 + k, B's
// (lane, e) -> k * 8 + n, C's and D's (lane, v) -> row * 8 + n.
struct MmaMaps {
  std::array<std::array<uint8_t, 8>, 32> a{};
  std::array<std::array<uint8_t, 4>, 32> b{}, c{};
  MmaMaps() {
    const layout::FragmentMap fa = layout::mma_m16n8k16_a_layout();  // (T32,V8) -> (M16,K16)
    const layout::FragmentMap fb = layout::mma_m16n8k16_b_layout();  // (T32,V4) -> (K16,N8)
    const layout::FragmentMap fc = layout::mma_m16n8k16_c_layout();  // (T32,V4) -> (M16,N8)
    for (int l = 0; l < 32; ++l) {
      for (int e = 0; e < 8; ++e) a[l][e] = uint8_t(fa.at(l, e).row * 16 + fa.at(l, e).col);
      for (int e = 0; e < 4; ++e) b[l][e] = uint8_t(fb.at(l, e).row * 8 + fb.at(l, e).col);
      for (int v = 0; v < 4; ++v) c[l][v] = uint8_t(fc.at(l, v).row * 8 + fc.at(l, v).col);
    }
  }
};
const MmaMaps& maps() {
  static const MmaMaps m;
  return m;
}

// S[r][n] = sum over k = 0..15, in that order, of A[r][k] · B[k][n] (row-major 16×16, 16×8,
// 16×8), each product exact, each add rounded in double.
void mma_sums_generic(const double* A, const double* B, double* S) {
  for (uint32_t r = 0; r < 16; ++r) {
    double sum[8] = {};
    for (uint32_t k = 0; k < 16; ++k) {
      const double a = A[r * 16 + k];
#pragma GCC unroll 8
      for (uint32_t j = 0; j < 8; ++j) sum[j] += a * B[k * 8 + j];
    }
    for (uint32_t j = 0; j < 8; ++j) S[r * 8 + j] = sum[j];
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// The same with fused multiply-adds (the product being exact, each rounds as the add alone),
// two rows at a time: four independent chains.
__attribute__((target("avx2,fma"))) void mma_sums_avx2(const double* A, const double* B, double* S) {
  for (uint32_t r = 0; r < 16; r += 2) {
    __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
#pragma GCC unroll 16
    for (uint32_t k = 0; k < 16; ++k) {
      const __m256d b0 = _mm256_load_pd(B + k * 8), b1 = _mm256_load_pd(B + k * 8 + 4);
      const __m256d a0 = _mm256_broadcast_sd(A + r * 16 + k), a1 = _mm256_broadcast_sd(A + (r + 1) * 16 + k);
      s0 = _mm256_fmadd_pd(a0, b0, s0);
      s1 = _mm256_fmadd_pd(a0, b1, s1);
      s2 = _mm256_fmadd_pd(a1, b0, s2);
      s3 = _mm256_fmadd_pd(a1, b1, s3);
    }
    _mm256_store_pd(S + r * 8, s0);
    _mm256_store_pd(S + r * 8 + 4, s1);
    _mm256_store_pd(S + (r + 1) * 8, s2);
    _mm256_store_pd(S + (r + 1) * 8 + 4, s3);
  }
}
#endif

void mma_sums(const double* A, const double* B, double* S) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (cpu_has_avx2_fma()) return mma_sums_avx2(A, B, S);
#endif
  mma_sums_generic(A, B, S);
}

}  // namespace

void exec_mma(ExecContext& x) {
  expect_op(x, "exec_mma", ir::Op::mma_sync);
  Cta& c = x.cta;
  const ir::mma_sync_operands ops = ir::mma_sync_operands_of(x.inst);
  if (x.mask != kAllLanes)
    report(c, HazardKind::mma_divergent, x.inst_id, x.warp.id, kNone, 0,
           "mma.sync.aligned must be executed by all 32 lanes of the warp");
  Sources src(x);  // checks the A, B and C registers
  const MmaMaps& m = maps();
  alignas(32) double A[16 * 16] = {}, B[16 * 8] = {};
  float C[16 * 8] = {};
  for (uint32_t l = 0; l < 32; ++l) {
    for (uint32_t e = 0; e < 8; ++e) {  // element e sits in register e/2, low half when e is even
      const uint32_t word = uint32_t(src.get(ops.a_at + e / 2, l));
      A[m.a[l][e]] = bf16_to_f32(uint16_t(e % 2 == 0 ? word : word >> 16));
    }
    for (uint32_t e = 0; e < 4; ++e) {
      const uint32_t word = uint32_t(src.get(ops.b_at + e / 2, l));
      B[m.b[l][e]] = bf16_to_f32(uint16_t(e % 2 == 0 ? word : word >> 16));
    }
    for (uint32_t v = 0; v < 4; ++v) C[m.c[l][v]] = as_f32(src.get(ops.c_at + v, l));
  }
  // S[r][n] = the sum over k, in order, of the exact product A[r][k] · B[k][n], rounded in double
  // once per k (a bf16 × bf16 product has at most 16 significant bits: exact in double; the
  // model took it in float first until 2026-11-28, which differed only where a product leaves
  // float's normal range); D = f32(C + S) rounds once more. The 8 columns of a row vectorise.
  alignas(32) double S[16 * 8];
  mma_sums(A, B, S);
  for (uint32_t v = 0; v < 4; ++v) {
    uint64_t* d = c.reg_lanes(x.warp.id, ops.d[v].id);
    for (uint32_t l = 0; l < 32; ++l) {
      const uint32_t at = m.c[l][v];
      d[l] = from_f32(float(double(C[at]) + S[at]));
    }
    note_register_write(x, ops.d[v].id, x.mask);
  }
  c.stats->mma_ops++;
  // The warp's sub-partition's tensor core takes one m16n8k16 at a quarter of the SM's measured
  // mma.sync rate; the result is ready kMmaSyncLatency after it starts.
  constexpr double kFlops = 2 * 16 * 8 * 16;
  const uint64_t busy = uint64_t(std::ceil(kFlops / (timing::kMmaSyncFlopsPerCycle / 4)));
  uint64_t& free_at = c.mma_free[x.warp.id & 3];
  const uint64_t start = std::max(c.now, free_at);
  free_at = start + busy;
  c.cost.tensor_busy_cycles += uint64_t(std::ceil(kFlops / timing::kMmaSyncFlopsPerCycle));  // the SM's share
  x.latency = uint32_t(start - c.now) + timing::kMmaSyncLatency;
  if (c.trace)
    append(c.trace->mma_sync, MmaSyncOp{x.inst_id, uint16_t(c.launch.trace_warp_base + x.warp.id), start,
                                        start + timing::kMmaSyncLatency});
}

}  // namespace gs::model
