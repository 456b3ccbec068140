// gs::cuda cuBLASLt baseline: dlopen'd library, cached plans, row-major GEMM on column-major BLAS.
#include "engine/cuda/cublas.hpp"

#include <dlfcn.h>

#include <map>
#include <stdexcept>
#include <tuple>

#if GEMMSCOPE_HAVE_CUDA_H && __has_include(<cublasLt.h>)
#define GS_HAVE_CUBLASLT_H 1
#include <cublasLt.h>

#include "engine/cuda/context.hpp"
#include "engine/cuda/driver_api.hpp"
#else
#define GS_HAVE_CUBLASLT_H 0
#endif

namespace gs::cuda {

CublasLt& CublasLt::instance() {
  static CublasLt* lt = new CublasLt();  // never destroyed, like Driver (see driver.cpp)
  return *lt;
}

CublasLt::~CublasLt() = default;

#if GS_HAVE_CUBLASLT_H

// The entry points we use, typed from cublasLt.h (declarations only; nothing is linked).
#define GS_CUBLASLT_FUNCTIONS(X)          \
  X(cublasLtCreate)                       \
  X(cublasLtGetVersion)                   \
  X(cublasLtGetStatusName)                \
  X(cublasLtGetStatusString)              \
  X(cublasLtMatmulDescCreate)             \
  X(cublasLtMatmulDescDestroy)            \
  X(cublasLtMatmulDescSetAttribute)       \
  X(cublasLtMatrixLayoutCreate)           \
  X(cublasLtMatrixLayoutDestroy)          \
  X(cublasLtMatmulPreferenceCreate)       \
  X(cublasLtMatmulPreferenceDestroy)      \
  X(cublasLtMatmulPreferenceSetAttribute) \
  X(cublasLtMatmulAlgoGetHeuristic)       \
  X(cublasLtMatmulAlgoConfigGetAttribute) \
  X(cublasLtMatmul)

namespace {

constexpr std::size_t kWorkspaceBytes = 32u << 20;

// (m, n, k, B layout, input type, output type, alignments of A, B, C)
using PlanKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, int, int, int, unsigned,
                           unsigned, unsigned>;

unsigned alignment_of(DevicePtr p) {
  const DevicePtr lowest_bit = p & (~p + 1);
  return p == 0 || lowest_bit >= 256 ? 256u : static_cast<unsigned>(lowest_bit);
}

}  // namespace

struct CublasLt::State {
#define GS_CUBLASLT_DECLARE(name) decltype(&::name) name = nullptr;
  GS_CUBLASLT_FUNCTIONS(GS_CUBLASLT_DECLARE)
#undef GS_CUBLASLT_DECLARE

  // One cached plan per problem: descriptors, layouts and the algorithm the heuristic chose.
  struct Plan {
    const State* lt = nullptr;
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t x = nullptr, y = nullptr, d = nullptr;
    cublasLtMatmulHeuristicResult_t heuristic{};
    ~Plan() {
      if (x) lt->cublasLtMatrixLayoutDestroy(x);
      if (y) lt->cublasLtMatrixLayoutDestroy(y);
      if (d) lt->cublasLtMatrixLayoutDestroy(d);
      if (op) lt->cublasLtMatmulDescDestroy(op);
    }
  };

  void* library = nullptr;
  std::unique_ptr<Context> context;  // pins the primary context the handle and workspace use
  cublasLtHandle_t handle = nullptr;
  DeviceBuffer workspace;
  std::map<PlanKey, std::unique_ptr<Plan>> plans;
  std::string last_algorithm;

  void check(cublasStatus_t status, const std::string& what) const {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    const char* name = cublasLtGetStatusName(status);
    const char* text = cublasLtGetStatusString(status);
    throw std::runtime_error(
        what + " failed: " + (name ? name : "cublasStatus " + std::to_string(status)) +
        (text ? std::string(" (") + text + ")" : std::string()));
  }

  // Binds to the device of the current context on first use; afterwards insists on it.
  void bind() {
    const DriverApi& cu = api();
    CUcontext current = nullptr;
    gs::cuda::check(cu.cuCtxGetCurrent(&current), "cuCtxGetCurrent");
    if (current == nullptr) {
      throw std::logic_error(
          "the cuBLASLt baseline needs a current context: create a gs::cuda::Context first");
    }
    if (context) {
      if (current != context->handle()) {
        throw std::logic_error("the cuBLASLt baseline is bound to GPU " +
                               std::to_string(context->ordinal()) +
                               "'s primary context, which is not current on this thread");
      }
      return;
    }
    CUdevice device = 0;
    gs::cuda::check(cu.cuCtxGetDevice(&device), "cuCtxGetDevice");
    int count = 0, ordinal = -1;
    gs::cuda::check(cu.cuDeviceGetCount(&count), "cuDeviceGetCount");
    for (int i = 0; i < count && ordinal < 0; ++i) {
      CUdevice candidate = 0;
      if (cu.cuDeviceGet(&candidate, i) == CUDA_SUCCESS && candidate == device) ordinal = i;
    }
    auto pinned = std::make_unique<Context>(ordinal < 0 ? 0 : ordinal);
    if (pinned->handle() != current) {
      throw std::logic_error(
          "the cuBLASLt baseline runs in a device's primary context (gs::cuda::Context), "
          "but another context is current");
    }
    check(cublasLtCreate(&handle), "cublasLtCreate");
    workspace = DeviceBuffer(kWorkspaceBytes);
    context = std::move(pinned);
  }

  // Row-major C[M×N] = A[M×K]·B on a column-major BLAS.
  //
  // A row-major r×c array with leading dimension c, read column-major, is the c×r matrix (its
  // transpose) with ld c. So row-major C is column-major Cᵀ (N×M, ld N), and C = A·B is
  // Cᵀ = Bᵀ·Aᵀ. We ask cuBLASLt for D = op(X)·op(Y) with m' = N, n' = M, k' = K, where
  //   X is the B side:  "nk" (B stored N×K row-major) reads as the K×N matrix B, ld K -> op T;
  //                     "kn" (B stored K×N row-major) reads as the N×K matrix Bᵀ, ld N -> op N;
  //   Y is the A side:  A stored M×K row-major reads as the K×M matrix Aᵀ, ld K -> op N;
  //   D is C:           the N×M matrix Cᵀ, ld N.
  // "nk" is therefore cuBLAS's "TN" GEMM, the layout its Hopper bf16 kernels favour.
  // cuBLASLt's matrix "A" is our X (B side) and its "B" is our Y (A side), which matters for the
  // per-operand alignment preferences below.
  Plan& plan(const PlanKey& key) {
    if (auto it = plans.find(key); it != plans.end()) return *it->second;
    const auto [m, n, k, layout, input_type, output_type, align_a, align_b, align_c] = key;
    const auto in = static_cast<cudaDataType>(input_type);
    const auto out = static_cast<cudaDataType>(output_type);
    auto p = std::make_unique<Plan>();
    p->lt = this;
    check(cublasLtMatmulDescCreate(&p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F),
          "cublasLtMatmulDescCreate");
    const std::int32_t trans_x =
        layout == static_cast<int>(BLayout::nk) ? CUBLAS_OP_T : CUBLAS_OP_N;
    const std::int32_t trans_y = CUBLAS_OP_N;
    check(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &trans_x,
                                         sizeof trans_x),
          "cublasLtMatmulDescSetAttribute(TRANSA)");
    check(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &trans_y,
                                         sizeof trans_y),
          "cublasLtMatmulDescSetAttribute(TRANSB)");
    if (layout == static_cast<int>(BLayout::nk)) {
      check(cublasLtMatrixLayoutCreate(&p->x, in, k, n, k), "cublasLtMatrixLayoutCreate(B, nk)");
    } else {
      check(cublasLtMatrixLayoutCreate(&p->x, in, n, k, n), "cublasLtMatrixLayoutCreate(B, kn)");
    }
    check(cublasLtMatrixLayoutCreate(&p->y, in, k, m, k), "cublasLtMatrixLayoutCreate(A)");
    check(cublasLtMatrixLayoutCreate(&p->d, out, n, m, n), "cublasLtMatrixLayoutCreate(C)");

    cublasLtMatmulPreference_t preference = nullptr;
    check(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
    const std::uint64_t workspace_bytes = workspace.size();
    const std::uint32_t alignments[4] = {align_b, align_a, align_c, align_c};  // lt's A, B, C, D
    cublasStatus_t status =
        cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                             &workspace_bytes, sizeof workspace_bytes);
    const cublasLtMatmulPreferenceAttributes_t alignment_attributes[4] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    for (int i = 0; i < 4 && status == CUBLAS_STATUS_SUCCESS; ++i) {
      status = cublasLtMatmulPreferenceSetAttribute(preference, alignment_attributes[i],
                                                    &alignments[i], sizeof alignments[i]);
    }
    int found = 0;
    if (status == CUBLAS_STATUS_SUCCESS) {
      status = cublasLtMatmulAlgoGetHeuristic(handle, p->op, p->x, p->y, p->d, p->d, preference, 1,
                                              &p->heuristic, &found);
    }
    cublasLtMatmulPreferenceDestroy(preference);
    const std::string problem = std::to_string(m) + "×" + std::to_string(n) + "×" +
                                std::to_string(k) +
                                (layout == static_cast<int>(BLayout::nk) ? " (B nk)" : " (B kn)");
    check(status, "cublasLtMatmulAlgoGetHeuristic for " + problem);
    if (found == 0 || p->heuristic.state != CUBLAS_STATUS_SUCCESS) {
      throw std::runtime_error("cuBLASLt has no algorithm for the GEMM " + problem);
    }
    return *plans.emplace(key, std::move(p)).first->second;
  }

  std::string describe(const Plan& p) const {
    std::int32_t id = -1;
    std::uint32_t tile = 0, stages = 0;
    std::size_t written = 0;
    cublasLtMatmulAlgoConfigGetAttribute(&p.heuristic.algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id,
                                         &written);
    cublasLtMatmulAlgoConfigGetAttribute(&p.heuristic.algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile,
                                         sizeof tile, &written);
    cublasLtMatmulAlgoConfigGetAttribute(&p.heuristic.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages,
                                         sizeof stages, &written);
    return "algo " + std::to_string(id) + ", tile " + std::to_string(tile) + ", stages " +
           std::to_string(stages) + ", workspace " + std::to_string(p.heuristic.workspaceSize) +
           " B, " + std::to_string(p.heuristic.wavesCount) + " waves";
  }
};

CublasLt::CublasLt() {
  Driver& driver = Driver::instance();
  if (!driver.available()) {
    reason_ = "cuBLASLt needs the CUDA driver: " + driver.unavailable_reason();
    return;
  }
  auto state = std::make_unique<State>();
  std::string tried;
  for (const char* candidate :
       {"libcublasLt.so.13", "libcublasLt.so", "/usr/local/cuda/lib64/libcublasLt.so.13"}) {
    dlerror();
    state->library = dlopen(candidate, RTLD_NOW | RTLD_LOCAL);
    if (state->library != nullptr) break;
    const char* why = dlerror();
    tried += std::string(tried.empty() ? "" : "; ") + candidate + ": " + (why ? why : "not found");
  }
  if (state->library == nullptr) {
    reason_ = "libcublasLt not found (dlopen " + tried +
              "): install the CUDA toolkit's cuBLAS or add its lib "
              "directory to LD_LIBRARY_PATH";
    return;
  }
#define GS_CUBLASLT_LOOKUP(name)                                                       \
  state->name = reinterpret_cast<decltype(state->name)>(dlsym(state->library, #name)); \
  if (state->name == nullptr) {                                                        \
    reason_ = "libcublasLt has no " #name ": it is too old for gemmscope";             \
    return;                                                                            \
  }
  GS_CUBLASLT_FUNCTIONS(GS_CUBLASLT_LOOKUP)
#undef GS_CUBLASLT_LOOKUP
  version_ = state->cublasLtGetVersion();
  state_ = std::move(state);
}

void CublasLt::matmul(const GemmShape& shape, DevicePtr a, DevicePtr b, BLayout b_layout,
                      DevicePtr c, int input_type, int output_type, StreamHandle stream) {
  if (!available()) throw std::runtime_error("cuBLASLt baseline unavailable: " + reason_);
  if (shape.m <= 0 || shape.n <= 0 || shape.k <= 0) {
    throw std::invalid_argument("cuBLASLt GEMM shape " + std::to_string(shape.m) + "×" +
                                std::to_string(shape.n) + "×" + std::to_string(shape.k) +
                                ": M, N and K must be positive");
  }
  if (a == 0 || b == 0 || c == 0)
    throw std::invalid_argument("cuBLASLt GEMM: A, B and C must be device pointers");
  std::lock_guard<std::mutex> lock(mutex_);
  State& s = *state_;
  s.bind();
  const PlanKey key{shape.m,        shape.n,     shape.k,         static_cast<int>(b_layout),
                    input_type,     output_type, alignment_of(a), alignment_of(b),
                    alignment_of(c)};
  State::Plan& p = s.plan(key);
  const float alpha = 1.0f, beta = 0.0f;
  s.check(s.cublasLtMatmul(s.handle, p.op, &alpha, reinterpret_cast<const void*>(b), p.x,
                           reinterpret_cast<const void*>(a), p.y, &beta,
                           reinterpret_cast<const void*>(c), p.d, reinterpret_cast<void*>(c), p.d,
                           &p.heuristic.algo, reinterpret_cast<void*>(s.workspace.ptr()),
                           s.workspace.size(), stream),
          "cublasLtMatmul");
  s.last_algorithm = s.describe(p);
}

void CublasLt::matmul_bf16(const GemmShape& shape, DevicePtr a, DevicePtr b, BLayout b_layout,
                           DevicePtr c, GemmOutput output, StreamHandle stream) {
  matmul(shape, a, b, b_layout, c, CUDA_R_16BF,
         output == GemmOutput::f32 ? CUDA_R_32F : CUDA_R_16BF, stream);
}

void CublasLt::matmul_f32(const GemmShape& shape, DevicePtr a, DevicePtr b, BLayout b_layout,
                          DevicePtr c, StreamHandle stream) {
  matmul(shape, a, b, b_layout, c, CUDA_R_32F, CUDA_R_32F, stream);
}

std::string CublasLt::last_algorithm() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return state_ ? state_->last_algorithm : std::string();
}

#else  // !GS_HAVE_CUBLASLT_H

struct CublasLt::State {};

CublasLt::CublasLt() {
#if GEMMSCOPE_HAVE_CUDA_H
  reason_ = "built without cublasLt.h (the CUDA toolkit's cuBLAS headers were not found)";
#else
  reason_ =
      "built without the CUDA toolkit (cuda.h was not found when gemmscope was configured), so the "
      "cuBLAS baseline is disabled";
#endif
}

void CublasLt::matmul(const GemmShape&, DevicePtr, DevicePtr, BLayout, DevicePtr, int, int,
                      StreamHandle) {
  throw std::runtime_error("cuBLASLt baseline unavailable: " + reason_);
}

void CublasLt::matmul_bf16(const GemmShape& shape, DevicePtr a, DevicePtr b, BLayout b_layout,
                           DevicePtr c, GemmOutput, StreamHandle stream) {
  matmul(shape, a, b, b_layout, c, 0, 0, stream);
}

void CublasLt::matmul_f32(const GemmShape& shape, DevicePtr a, DevicePtr b, BLayout b_layout,
                          DevicePtr c, StreamHandle stream) {
  matmul(shape, a, b, b_layout, c, 0, 0, stream);
}

std::string CublasLt::last_algorithm() const {
  return {};
}

#endif  // GS_HAVE_CUBLASLT_H

}  // namespace gs::cuda
