// Shared helpers for tests/cuda: the [gpu] skip rule, inline PTX fixtures, payload packing.
//
// Every test that touches the driver runs its CUDA work in a run_isolated child, so this test
// process never calls cuInit itself (CUDA is not fork-safe after cuInit; see
// engine/cuda/isolation.hpp). Catch2 v2 has no SKIP: a [gpu] test that cannot run prints
// WARN("skipped: ...") and returns.
#pragma once

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cuda/isolation.hpp"

namespace gs::cuda::test {

// Empty when [gpu] tests can run here; otherwise why not ("libcuda.so.1 not found ...").
// Decided once, in a child process.
const std::string& gpu_skip_reason();

// "GPU 0: NVIDIA H100 80GB HBM3, sm_90, ..." when a GPU is present.
const std::string& gpu_description();

// Runs a GPU job in a child with a generous limit (context creation and JIT take time).
ChildResult run_gpu(std::function<std::string()> job, std::string_view what,
                    std::chrono::milliseconds limit = std::chrono::seconds(120));

// Runs `body` and returns "no exception" or "<kind>: <what()>" with kind one of CudaError,
// DriverUnavailable, invalid_argument, out_of_range, runtime_error, exception.
std::string outcome_of(const std::function<void()>& body);

// A small key -> text report through the pipe: records "key\x1fvalue" separated by "\x1e",
// so values may hold newlines (error messages do).
std::string pack_report(const std::map<std::string, std::string>& report);
std::map<std::string, std::string> unpack_report(const std::string& text);

template <class T>
std::string to_bytes(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}
template <class T>
std::vector<T> from_bytes(std::string_view bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

// bf16 <-> float for integer-valued test data (exact for |x| <= 256).
inline std::uint16_t bf16_from_float(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, 4);
  return static_cast<std::uint16_t>(bits >> 16);
}
inline float float_from_bf16(std::uint16_t value) {
  const std::uint32_t bits = std::uint32_t{value} << 16;
  float result = 0.0f;
  std::memcpy(&result, &bits, 4);
  return result;
}

// Skips the current test (WARN + return) unless a GPU is usable.
#define GS_REQUIRE_GPU_OR_SKIP()                                                            \
  do {                                                                                      \
    if (const std::string& gs_why = ::gs::cuda::test::gpu_skip_reason(); !gs_why.empty()) { \
      WARN("skipped: no usable CUDA driver: " << gs_why);                                   \
      return;                                                                               \
    }                                                                                       \
  } while (0)

// --- PTX fixtures (test_ptx_fixtures.cpp assembles each one with ptxas for sm_90) ----------

// out[i] = i + bias for i < n, i = ctaid.x * ntid.x + tid.x. Parameters: (u64 out, u32 n, u32
// bias).
inline constexpr const char* kWriteTidPtx = R"(.version 7.8
.target sm_80
.address_size 64

.visible .entry write_tid(
    .param .u64 out,
    .param .u32 n,
    .param .u32 bias
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    ld.param.u32 %r6, [bias];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    add.u32 %r7, %r5, %r6;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r7;
DONE:
    ret;
}
)";

// The same kernel with a missing operand on line 21: "mad.lo.s32 %r5, %r2, %r3;".
std::string write_tid_ptx_with_syntax_error();

// sm_80 probes: smem_probe (a dynamic shared memory round trip: out[t] = ntid - 1 - t, with
// thread t's word stored `words - 1 - t` words into the allocation, so a large allocation is
// touched near its end), do_trap, spin_forever (spins while *flag == 0).
inline constexpr const char* kProbesPtx = R"(.version 7.8
.target sm_80
.address_size 64

.extern .shared .align 16 .b8 dsmem[];

.visible .entry smem_probe(
    .param .u64 out,
    .param .u32 words
)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    ld.param.u32 %r1, [words];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r5, dsmem;
    sub.u32 %r4, %r1, 1;
    sub.u32 %r4, %r4, %r2;
    shl.b32 %r6, %r4, 2;
    add.u32 %r6, %r5, %r6;
    st.shared.u32 [%r6], %r2;
    bar.sync 0;
    sub.u32 %r7, %r3, 1;
    sub.u32 %r7, %r7, %r2;
    sub.u32 %r8, %r1, 1;
    sub.u32 %r8, %r8, %r7;
    shl.b32 %r8, %r8, 2;
    add.u32 %r8, %r5, %r8;
    ld.shared.u32 %r9, [%r8];
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r9;
    ret;
}

.visible .entry do_trap()
{
    trap;
    ret;
}

.visible .entry spin_forever(
    .param .u64 flag
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [flag];
    cvta.to.global.u64 %rd2, %rd1;
SPIN:
    ld.volatile.global.u32 %r1, [%rd2];
    setp.eq.u32 %p1, %r1, 0;
    @%p1 bra SPIN;
    ret;
}
)";

// sm_90 cluster probe: thread 0 of each CTA writes out[ctaid.x] = nctarank << 16 | ctarank.
// Without a cluster launch every CTA would report rank 0 of 1.
inline constexpr const char* kClusterProbePtx = R"(.version 8.0
.target sm_90
.address_size 64

.visible .entry cluster_rank(
    .param .u64 out
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<7>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %cluster_ctarank;
    mov.u32 %r4, %cluster_nctarank;
    shl.b32 %r5, %r4, 16;
    or.b32 %r6, %r5, %r3;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r6;
DONE:
    ret;
}
)";

}  // namespace gs::cuda::test
