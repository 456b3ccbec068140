// Test support for the model: GEMM inputs in each kernel's layout, a double-precision
// reference, and a run helper. Integer-valued inputs make every fp32 sum exact, so the
// model's C must equal the reference exactly.
#pragma once

#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/model/model.hpp"
#include "engine/model/values.hpp"
#include "kernels/registry.hpp"

namespace gs::test {

struct ModelRun {
  ir::Kernel kernel;
  model::GemmBuffers bufs;
  std::vector<double> ref;  // M×N
  model::SimResult result;
  uint64_t mismatches = 0;
  double max_abs_err = 0, rel_err = 0;
};

inline void put(std::vector<uint8_t>& buf, size_t index, float v, kernels::DType t) {
  if (t == kernels::DType::bf16) {
    const uint16_t h = model::f32_to_bf16_rne(v);
    std::memcpy(buf.data() + 2 * index, &h, 2);
  } else {
    std::memcpy(buf.data() + 4 * index, &v, 4);
  }
}

inline float element(float v, kernels::DType t) {
  return t == kernels::DType::bf16 ? model::bf16_to_f32(model::f32_to_bf16_rne(v)) : v;
}

// C = A·B in double (A M×K, B K×N, row-major), each C[m][n] summed over k in order: run's reference
// (run/reference_gemm.cpp, compiled with the product; model_fixture.cpp). The tests' own code is
// built at -O0, where this loop written here was half of a model test file's time.
std::vector<double> reference_in_double(kernels::GemmShape shape, bool integer, std::vector<float> a,
                                        std::vector<float> b);

// integer: values in -4..4; otherwise uniform in [-1, 1). `params`: build parameters other
// than the kernel's defaults.
inline ModelRun run_model(const std::string& id, kernels::GemmShape shape, bool integer, uint64_t seed,
                          std::set<std::string> mistakes = {}, model::SimOptions opt = {},
                          kernels::ParamValues params = {}) {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(id);
  ModelRun r;
  // C's type of this build (a kernel with c_dtype: bf16 C is compared with the reference rounded once).
  const kernels::DType c_dtype = kernels::c_dtype_of(info, params);
  const size_t c_bytes = c_dtype == kernels::DType::bf16 ? 2 : 4;
  kernels::GemmConfig cfg{shape, std::move(mistakes), std::move(params)};
  r.kernel = kernels::build_kernel(info, cfg);
  const auto [M, N, K] = shape;
  const size_t eb = info.ab_dtype == kernels::DType::bf16 ? 2 : 4;
  r.bufs.a.resize(size_t(M) * K * eb);
  r.bufs.b.resize(size_t(K) * N * eb);
  r.bufs.c.assign(size_t(M) * N * c_bytes, 0xFF);  // poison: NaN
  std::mt19937_64 rng(seed);
  auto draw = [&] {
    const uint64_t x = rng();
    return integer ? float(int(x % 9) - 4) : float(double(x >> 11) / double(1ull << 53) * 2.0 - 1.0);
  };
  std::vector<float> A(size_t(M) * K), B(size_t(K) * N);  // logical values, B as K×N
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t k = 0; k < K; ++k) {
      A[size_t(m) * K + k] = element(draw(), info.ab_dtype);
      put(r.bufs.a, size_t(m) * K + k, A[size_t(m) * K + k], info.ab_dtype);
    }
  for (uint32_t k = 0; k < K; ++k)
    for (uint32_t n = 0; n < N; ++n) {
      const float v = element(draw(), info.ab_dtype);
      B[size_t(k) * N + n] = v;
      put(r.bufs.b, info.b_layout == kernels::BLayout::nk ? size_t(n) * K + k : size_t(k) * N + n, v, info.ab_dtype);
    }
  r.ref = reference_in_double(shape, integer, std::move(A), std::move(B));
  r.result = model::simulate(r.kernel, r.bufs, opt, 2.0 * M * N * K);
  double num = 0, den = 0;
  for (size_t i = 0; i < r.ref.size(); ++i) {
    float c;
    double want = r.ref[i];
    if (c_bytes == 2) {
      uint16_t h;
      std::memcpy(&h, r.bufs.c.data() + 2 * i, 2);
      c = model::bf16_to_f32(h);
      want = model::bf16_to_f32(model::f32_to_bf16_rne(float(want)));
    } else {
      std::memcpy(&c, r.bufs.c.data() + 4 * i, 4);
    }
    const double d = std::isnan(c) ? 1e30 : double(c) - want;
    if (d != 0) ++r.mismatches;
    r.max_abs_err = std::max(r.max_abs_err, std::abs(d));
    num += d * d;
    den += r.ref[i] * r.ref[i];
  }
  r.rel_err = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return r;
}

inline std::string hazard_list(const model::SimResult& r) {
  std::string s;
  for (const model::Hazard& h : r.hazards) s += std::string(model::hazard_kind_name(h.kind)) + " @" + std::to_string(h.inst) + ": " + h.detail + "\n";
  return s;
}

// Two runs that must agree hazard for hazard: each one's kind, instruction, warp, lane, address,
// cycle and text (a fast path against the general one, fast against traced).
inline void check_same_hazards(const std::vector<model::Hazard>& got, const std::vector<model::Hazard>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t h = 0; h < want.size(); ++h) {
    INFO("hazard " << h);
    CHECK(got[h].kind == want[h].kind);
    CHECK(got[h].inst == want[h].inst);
    CHECK(got[h].warp == want[h].warp);
    CHECK(got[h].lane == want[h].lane);
    CHECK(got[h].address == want[h].address);
    CHECK(got[h].cycle == want[h].cycle);
    CHECK(got[h].detail == want[h].detail);
  }
}

// A fast path's case as its test names it: "ampere_cp_async 64x64x64 no-sync-before-prefetch, fast".
inline std::string case_label(const std::string& id, const kernels::GemmShape& shape,
                              const std::set<std::string>& mistakes, bool trace) {
  std::string s = id + " " + std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k);
  if (!mistakes.empty()) s += " " + *mistakes.begin();
  return s + (trace ? ", one CTA traced" : ", fast");
}

// Two runs of one kernel that must agree (a fast path against the general one): completion, the
// counts, the cycles, each CTA's first store into each tile of C with its cycle, and every hazard.
inline void check_same_run(const model::SimResult& got, const model::SimResult& want) {
  CHECK(got.completed == want.completed);
  CHECK(got.stats.warp_instructions == want.stats.warp_instructions);
  CHECK(got.stats.thread_instructions == want.stats.thread_instructions);
  CHECK(got.stats.smem_accesses == want.stats.smem_accesses);
  CHECK(got.stats.smem_wavefronts == want.stats.smem_wavefronts);
  CHECK(got.stats.smem_bank_conflicts == want.stats.smem_bank_conflicts);
  CHECK(got.stats.mma_ops == want.stats.mma_ops);
  CHECK(got.stats.max_cta_cycles == want.stats.max_cta_cycles);
  CHECK(got.stats.traced_cta_cycles == want.stats.traced_cta_cycles);
  REQUIRE(got.schedule.visits.size() == want.schedule.visits.size());
  for (size_t i = 0; i < want.schedule.visits.size(); ++i) {
    INFO("tile visit " << i);
    CHECK(got.schedule.visits[i].cta == want.schedule.visits[i].cta);
    CHECK(got.schedule.visits[i].tile == want.schedule.visits[i].tile);
    CHECK(got.schedule.visits[i].cycle == want.schedule.visits[i].cycle);
  }
  check_same_hazards(got.hazards, want.hazards);
}

}  // namespace gs::test
