// gs::cuda cuBLASLt baseline: the number our ladder kernels are measured against.
//
// libcublasLt is opened at run time like the driver (dlopen "libcublasLt.so.13", then
// "libcublasLt.so", then the toolkit's lib64), so gemmscope starts without it. All matrices are
// row-major, as everywhere in gemmscope:
//
//   C[M×N] = A[M×K] · B,  A row-major M×K,
//   B either "nk": stored N×K row-major (K-major; the main layout: each column of B is a row)
//         or     "kn": stored K×N row-major.
//
// bf16 inputs accumulate in fp32 (CUBLAS_COMPUTE_32F) and write f32 or bf16; the f32 variant
// (A, B, C all f32, plain fp32 math, no TF32) is the baseline for SIMT fp32 kernels. Calls are
// asynchronous on the given stream, so they can be timed with Events like our own kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "engine/cuda/driver.hpp"

namespace gs::cuda {

enum class BLayout { nk, kn };
enum class GemmOutput { f32, bf16 };

struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
};

class CublasLt {
 public:
  // Opens the library on first use (which opens the driver too). Never throws.
  static CublasLt& instance();

  bool available() const { return reason_.empty(); }
  // "cuBLASLt needs the CUDA driver: libcuda.so.1 not found ...", "libcublasLt.so.13 not
  // found (dlopen: ...)", "built without the CUDA toolkit"; empty when available.
  const std::string& unavailable_reason() const { return reason_; }
  // cublasLtGetVersion(): e.g. 130000 and up for cuBLAS 13.0; 0 when unavailable.
  std::size_t version() const { return version_; }

  // C = A · B with bf16 A and B (fp32 accumulation); C is f32 or bf16. All pointers are device
  // memory of the current context. The first call binds this object to that context's device
  // (it retains the primary context and a 32 MiB workspace for the life of the process).
  void matmul_bf16(const GemmShape& shape, DevicePtr a, DevicePtr b, BLayout b_layout, DevicePtr c,
                   GemmOutput output, StreamHandle stream = nullptr);
  // C = A · B with A, B and C all f32, computed in plain fp32.
  void matmul_f32(const GemmShape& shape, DevicePtr a, DevicePtr b, BLayout b_layout, DevicePtr c,
                  StreamHandle stream = nullptr);

  // The algorithm cuBLASLt picked for the most recent call, for reports (e.g. "algo 66, tile
  // 21, stages 19, workspace 0 B, 1.00 waves"); empty before the first call.
  std::string last_algorithm() const;

  CublasLt(const CublasLt&) = delete;
  CublasLt& operator=(const CublasLt&) = delete;

  struct State;  // library handle, entry points, plans (cublas.cpp)

 private:
  CublasLt();
  ~CublasLt();
  void matmul(const GemmShape& shape, DevicePtr a, DevicePtr b, BLayout b_layout, DevicePtr c,
              int input_type, int output_type, StreamHandle stream);

  std::string reason_;
  std::size_t version_ = 0;
  std::unique_ptr<State> state_;
  mutable std::mutex mutex_;
};

}  // namespace gs::cuda
