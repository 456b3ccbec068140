// [gpu] tests: the driver layer against a real GPU. Each test runs its CUDA work in a child
// (run_gpu), returns plain bytes or a report, and checks them here. Without a usable driver
// each test prints "skipped: ..." and returns (Catch2 v2 has no SKIP).
//
// A child's result starts with a tag: 'B' binary data follows, 'S' the job decided to skip (the
// rest says why), 'R' a pack_report() report follows.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "engine/cuda/context.hpp"
#include "engine/cuda/cublas.hpp"
#include "engine/cuda/device.hpp"
#include "engine/cuda/launch.hpp"
#include "engine/cuda/module.hpp"
#include "engine/cuda/tensor_map.hpp"
#include "tests/cuda/gpu_test_support.hpp"

using namespace gs::cuda;
using namespace gs::cuda::test;
using Catch::Contains;
using namespace std::chrono_literals;

namespace {

constexpr unsigned kTidCount = 1000, kTidBias = 1000, kTidWords = 1024;

// In the child: JIT write_tid, run it over 8 × 128 threads for n = 1000, return the 1024 words.
std::string run_write_tid() {
  Context context(0);
  Module module(kWriteTidPtx);
  const Function function = module.get_function("write_tid");
  DeviceBuffer out(kTidWords * 4);
  out.memset_u32(0xffffffffu);
  KernelArgs args;
  args.add_ptr(out.ptr()).add_u32(kTidCount).add_u32(kTidBias);
  LaunchConfig config;
  config.grid = {8, 1, 1};
  config.block = {128, 1, 1};
  launch(function, config, args);
  context.synchronize();
  return "B" + to_bytes(out.download_values<std::uint32_t>(kTidWords));
}

// In the parent: the words run_write_tid returned are i + bias below n and untouched above.
void check_write_tid(const ChildResult& r) {
  INFO(r.error);
  REQUIRE(r.ok());
  REQUIRE(r.payload.size() == 1 + kTidWords * 4);
  REQUIRE(r.payload[0] == 'B');
  const auto words = from_bytes<std::uint32_t>(std::string_view(r.payload).substr(1));
  std::size_t wrong = 0;
  for (unsigned i = 0; i < kTidWords; ++i) {
    const std::uint32_t expected = i < kTidCount ? i + kTidBias : 0xffffffffu;
    if (words[i] != expected && wrong++ == 0)
      FAIL_CHECK("word " << i << " is " << words[i] << ", expected " << expected);
  }
  CHECK(wrong == 0);
}

bool skipped(const ChildResult& r) {
  if (r.ok() && !r.payload.empty() && r.payload[0] == 'S') {
    WARN("skipped: " << r.payload.substr(1));
    return true;
  }
  return false;
}

std::map<std::string, std::string> report_of(const ChildResult& r) {
  INFO(r.error);
  REQUIRE(r.ok());
  REQUIRE(!r.payload.empty());
  REQUIRE(r.payload[0] == 'R');
  return unpack_report(r.payload.substr(1));
}

}  // namespace

constexpr std::size_t kWriteTidParams = 3;  // kWriteTidPtx's parameters, as the IR would declare them

TEST_CASE("[gpu] the driver lists the GPU and its limits", "[cuda][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  const ChildResult r = run_gpu(
      [] {
        const std::vector<DeviceInfo> devices = list_devices();
        const DeviceInfo& d = devices.at(0);
        std::string why;
        return "R" + pack_report({{"count", std::to_string(devices.size())},
                                  {"describe", describe(d)},
                                  {"name", d.name},
                                  {"cc", std::to_string(d.cc_major * 10 + d.cc_minor)},
                                  {"sms", std::to_string(d.sms)},
                                  {"optin", std::to_string(d.max_smem_per_block_optin)},
                                  {"l2", std::to_string(d.l2_bytes)},
                                  {"mem", std::to_string(d.total_mem)},
                                  {"clock", std::to_string(d.sm_clock_khz)},
                                  {"driver", std::to_string(d.driver_version)},
                                  {"runs_own_arch", can_run(d, arch_name(d), &why) ? "yes" : why},
                                  {"bad_ordinal", outcome_of([&] {
                                     (void)device_info(static_cast<int>(devices.size()));
                                   })}});
      },
      "device list");
  auto report = report_of(r);
  WARN(report["describe"]);
  CHECK(std::stoi(report["count"]) >= 1);
  CHECK_FALSE(report["name"].empty());
  CHECK(std::stoi(report["cc"]) >= 80);
  CHECK(std::stoi(report["sms"]) > 0);
  CHECK(std::stoi(report["optin"]) >= 48 * 1024);
  CHECK(std::stoll(report["l2"]) > 0);
  CHECK(std::stoll(report["mem"]) > 0);
  CHECK(std::stoi(report["clock"]) > 0);
  CHECK(std::stoi(report["driver"]) >= 12000);
  CHECK(report["runs_own_arch"] == "yes");
  CHECK_THAT(report["bad_ordinal"], Contains("out_of_range: no GPU"));
}

TEST_CASE("[gpu] a JIT-compiled kernel writes its thread ids", "[cuda][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  check_write_tid(run_gpu(run_write_tid, "write_tid"));
}

TEST_CASE("[gpu] JIT logs and function attributes are reported", "[cuda][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  const ChildResult r = run_gpu(
      [] {
        Context context(0);
        Module module(kWriteTidPtx);
        const Function f = module.get_function("write_tid", kWriteTidParams);
        const Function::ParamLayout params = f.param_layout();
        std::string sizes;
        for (const ParamSlot& p : params.params)
          sizes += std::to_string(p.offset) + ":" + std::to_string(p.size) + " ";
        return "R" +
               pack_report(
                   {{"info_log", module.jit().info_log},
                    {"error_log", module.jit().error_log},
                    {"wall_ms", std::to_string(module.jit().wall_ms)},
                    {"regs", std::to_string(f.num_regs())},
                    {"static_smem", std::to_string(f.static_smem_bytes())},
                    {"max_threads", std::to_string(f.max_threads_per_block())},
                    {"param_known", params.known ? "yes" : "no"},
                    {"params", sizes},
                    // Asked only about the parameters declared: none declared, nothing asked;
                    // one too many declared, the driver's three come back and the check sees it.
                    {"undeclared_known", module.get_function("write_tid").param_layout().known ? "yes" : "no"},
                    {"overdeclared", std::to_string(module.get_function("write_tid", 4).param_layout().params.size())},
                    {"missing", outcome_of([&] { (void)module.get_function("no_such_kernel"); })}});
      },
      "JIT attributes");
  auto report = report_of(r);
  INFO("info log: " << report["info_log"]);
  CHECK(report["error_log"].empty());
  CHECK(std::stod(report["wall_ms"]) > 0.0);
  CHECK(std::stoi(report["regs"]) > 0);
  CHECK(report["static_smem"] == "0");
  CHECK(std::stoi(report["max_threads"]) >= 128);
  if (report["param_known"] == "yes") {
    CHECK(report["params"] == "0:8 8:4 12:4 ");
    CHECK(report["overdeclared"] == "3");
  } else {
    WARN(
        "this driver does not report kernel parameters (cuFuncGetParamInfo): argument checks are "
        "off");
  }
  CHECK(report["undeclared_known"] == "no");
  CHECK_THAT(
      report["missing"],
      Contains("CudaError: cuModuleGetFunction(\"no_such_kernel\") failed: CUDA_ERROR_NOT_FOUND"));
}

TEST_CASE("[gpu] a PTX syntax error comes back with the JIT error log", "[cuda][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  const ChildResult r = run_gpu(
      [] {
        Context context(0);
        try {
          Module module(write_tid_ptx_with_syntax_error());
        } catch (const CudaError& e) {
          return "R" + pack_report({{"what", e.what()},
                                    {"result", std::to_string(e.result())},
                                    {"detail", e.detail()}});
        }
        return std::string("Rno error");
      },
      "bad PTX");
  auto report = report_of(r);
  INFO(report["what"]);
  CHECK(report["result"] == "218");  // CUDA_ERROR_INVALID_PTX
  CHECK_THAT(report["what"], Contains("cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (") &&
                                 Contains(" \u2014 JIT log: "));
  CHECK_THAT(report["detail"], Contains("line 21") && Contains("error"));
}

TEST_CASE("[gpu] a launch whose arguments do not match the kernel is refused", "[cuda][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  const ChildResult r = run_gpu(
      [] {
        Context context(0);
        Module module(kWriteTidPtx);
        const Function f = module.get_function("write_tid", kWriteTidParams);
        if (!f.param_layout().known)
          return std::string("Sthe driver does not report kernel parameters");
        DeviceBuffer out(4096);
        KernelArgs too_few;
        too_few.add_ptr(out.ptr()).add_u32(1);
        KernelArgs wrong_size;
        wrong_size.add_ptr(out.ptr()).add_u64(1).add_u32(2);
        LaunchConfig config;
        config.block = {32, 1, 1};
        return "R" +
               pack_report({{"too_few", outcome_of([&] { launch(f, config, too_few); })},
                            {"wrong_size", outcome_of([&] { launch(f, config, wrong_size); })}});
      },
      "argument check");
  if (skipped(r)) return;
  auto report = report_of(r);
  CHECK_THAT(report["too_few"],
             Contains("invalid_argument: cannot launch 'write_tid'") &&
                 Contains("takes 3 parameters (8, 4, 4 B) but 2 arguments were given (ptr, u32)"));
  CHECK_THAT(report["wrong_size"],
             Contains("argument 1 is a u64 (8 B) but parameter 1 of kernel 'write_tid' is 4 B"));
}

TEST_CASE("[gpu] events time a prepared launch on a stream", "[cuda][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  const ChildResult r = run_gpu(
      [] {
        Context context(0);
        Module module(kWriteTidPtx);
        DeviceBuffer out(kTidWords * 4);
        KernelArgs args;
        args.add_ptr(out.ptr()).add_u32(kTidCount).add_u32(kTidBias);
        LaunchConfig config;
        config.grid = {8, 1, 1};
        config.block = {128, 1, 1};
        PreparedLaunch prepared = prepare_launch(module.get_function("write_tid", kWriteTidParams), config, args);
        Stream stream;
        Event start, stop;
        start.record(stream.handle());
        for (int i = 0; i < 10; ++i) prepared.enqueue(stream.handle());
        stop.record(stream.handle());
        const float ms = Event::elapsed_ms(start, stop);
        stream.synchronize();
        const auto words = out.download_values<std::uint32_t>(4);
        return "R" + pack_report({{"ms", std::to_string(ms)}, {"word3", std::to_string(words[3])}});
      },
      "event timing");
  auto report = report_of(r);
  const double ms = std::stod(report["ms"]);
  CHECK(ms > 0.0);
  CHECK(ms < 1000.0);
  CHECK(report["word3"] == std::to_string(3 + kTidBias));
}

TEST_CASE("[gpu] dynamic shared memory above 48 KiB is raised automatically", "[cuda][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  const ChildResult r = run_gpu(
      [] {
        Context context(0);
        Module module(kProbesPtx);
        const Function f = module.get_function("smem_probe");
        constexpr unsigned threads = 256, smem = 100 * 1024;
        DeviceBuffer out(threads * 4);
        KernelArgs args;
        args.add_ptr(out.ptr()).add_u32(smem / 4);
        LaunchConfig config;
        config.block = {threads, 1, 1};
        config.dynamic_smem_bytes = smem;
        const int before = f.attribute(FunctionAttribute::max_dynamic_smem_bytes);
        launch(f, config, args);
        context.synchronize();
        const int after = f.attribute(FunctionAttribute::max_dynamic_smem_bytes);
        const auto words = out.download_values<std::uint32_t>(threads);
        std::size_t wrong = 0;
        for (unsigned t = 0; t < threads; ++t) wrong += words[t] != threads - 1 - t;
        LaunchConfig too_much = config;
        too_much.dynamic_smem_bytes =
            static_cast<unsigned>(context.device().max_smem_per_block_optin) + 1024;
        return "R" + pack_report({{"before", std::to_string(before)},
                                  {"after", std::to_string(after)},
                                  {"wrong", std::to_string(wrong)},
                                  {"too_much", outcome_of([&] { launch(f, too_much, args); })}});
      },
      "dynamic smem");
  auto report = report_of(r);
  CHECK(std::stoi(report["before"]) <= 48 * 1024);
  CHECK(report["after"] == std::to_string(100 * 1024));
  CHECK(report["wrong"] == "0");
  CHECK_THAT(report["too_much"], Contains("invalid_argument: cannot launch 'smem_probe'") &&
                                     Contains("dynamic shared memory") && Contains("exceeds the"));
}

TEST_CASE("[gpu] a cluster launch gives each CTA its rank", "[cuda][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  const ChildResult r = run_gpu(
      [] {
        Context context(0);
        if (context.device().cc_major < 9)
          return "Sclusters need compute capability 9.0; this is " + describe(context.device());
        Module module(kClusterProbePtx);
        const Function f = module.get_function("cluster_rank");
        DeviceBuffer out(8 * 4);
        out.memset_u32(0xffffffffu);
        KernelArgs args;
        args.add_ptr(out.ptr());
        LaunchConfig config;
        config.grid = {8, 1, 1};
        config.block = {32, 1, 1};
        config.cluster = {2, 1, 1};
        launch(f, config, args);
        context.synchronize();
        return "B" + to_bytes(out.download_values<std::uint32_t>(8));
      },
      "cluster launch");
  if (skipped(r)) return;
  INFO(r.error);
  REQUIRE(r.ok());
  REQUIRE(r.payload.size() == 1 + 8 * 4);
  const auto words = from_bytes<std::uint32_t>(std::string_view(r.payload).substr(1));
  for (unsigned cta = 0; cta < 8; ++cta) {
    INFO("CTA " << cta);
    CHECK(words[cta] == ((2u << 16) | (cta % 2)));  // 2 CTAs per cluster, rank = ctaid.x % 2
  }
}

TEST_CASE("[gpu] a trapping kernel fails its child and the next child works", "[cuda][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  const ChildResult r = run_gpu(
      [] {
        Context context(0);
        Module module(kProbesPtx);
        KernelArgs none;
        LaunchConfig config;
        config.block = {32, 1, 1};
        launch(module.get_function("do_trap"), config, none);
        context.synchronize();
        return std::string("the trap went unnoticed");
      },
      "kernel 'do_trap'", 60s);
  INFO(r.error);
  CHECK(r.status == ChildResult::Status::failed);
  CHECK_THAT(r.error,
             Contains("kernel 'do_trap' failed: cuCtxSynchronize") && Contains("CUDA_ERROR_"));
  WARN("trap reported as: " << r.error);
  check_write_tid(run_gpu(run_write_tid, "write_tid after a trap"));
}

TEST_CASE("[gpu] a kernel that never finishes times out and the next child works", "[cuda][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  int side[2];
  REQUIRE(pipe(side) == 0);  // the child reports "launched" here before it blocks
  const ChildResult r = run_gpu(
      [fd = side[1]] {
        Context context(0);
        Module module(kProbesPtx);
        DeviceBuffer flag(4);
        flag.memset_u32(0);
        KernelArgs args;
        args.add_ptr(flag.ptr());
        LaunchConfig config;
        config.block = {32, 1, 1};
        launch(module.get_function("spin_forever"), config, args);
        (void)!write(fd, "L", 1);
        context.synchronize();
        return std::string("the spin loop ended");
      },
      "kernel 'spin_forever'", 8s);
  close(side[1]);
  char mark = 0;
  const ssize_t got = read(side[0], &mark, 1);
  close(side[0]);
  INFO(r.error);
  CHECK(got == 1);  // the kernel was running when the limit hit, not stuck before the launch
  CHECK(r.status == ChildResult::Status::timed_out);
  CHECK_THAT(r.error, Contains("kernel 'spin_forever' did not finish in 8 s"));
  check_write_tid(run_gpu(run_write_tid, "write_tid after a timeout"));
}

TEST_CASE("[gpu] the driver encodes the reference tensor map", "[cuda][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  const ChildResult r = run_gpu(
      [] {
        Context context(0);
        if (context.device().cc_major < 9)
          return "Stensor maps need compute capability 9.0; this is " + describe(context.device());
        DeviceBuffer matrix(std::size_t{4096} * 8192 * 2);
        TensorMapSpec spec = tensor_map_2d(TensorMapDataType::bfloat16, matrix.ptr(), 4096, 8192,
                                           64, 64, TensorMapSwizzle::b128);
        const TensorMapBytes map = encode_tensor_map(spec);
        spec.box_dim[0] = 128;
        return "R" + pack_report({{"nonzero", std::to_string(std::count_if(
                                                  map.begin(), map.end(),
                                                  [](std::byte b) { return b != std::byte{0}; }))},
                                  {"bad", outcome_of([&] { (void)encode_tensor_map(spec); })}});
      },
      "tensor map");
  if (skipped(r)) return;
  auto report = report_of(r);
  CHECK(std::stoi(report["nonzero"]) > 0);
  CHECK_THAT(report["bad"],
             Contains("invalid_argument: invalid tensor map") && Contains("swizzle span"));
}

TEST_CASE("[gpu] work without a context gets an actionable error", "[cuda][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  const ChildResult r = run_gpu(
      [] {
        return "R" + pack_report({{"module", outcome_of([] { Module m(kWriteTidPtx); })}});
      },
      "no context");
  auto report = report_of(r);
  CHECK_THAT(report["module"],
             Contains("CudaError: cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_CONTEXT") &&
                 Contains("create a gs::cuda::Context first"));
}

TEST_CASE("[gpu] cuBLASLt agrees with a CPU reference, B as nk and kn", "[cuda][gpu][cublas]") {
  GS_REQUIRE_GPU_OR_SKIP();
  constexpr int M = 128, N = 96, K = 64;
  // Integer inputs in [-2, 2]: every product and every sum (|C| <= 256) is exact in fp32 and
  // in bf16, so GPU and CPU must agree bit for bit whatever the summation order.
  auto a_value = [](int m, int k) { return static_cast<float>((m * 7 + k * 3) % 5 - 2); };
  auto b_value = [](int k, int n) { return static_cast<float>((k * 5 + n * 11) % 5 - 2); };
  const ChildResult r = run_gpu(
      [&] {
        Context context(0);
        CublasLt& lt = CublasLt::instance();
        if (!lt.available()) return "S" + lt.unavailable_reason();
        std::vector<std::uint16_t> a16(M * K), bnk16(N * K), bkn16(K * N);
        std::vector<float> a32(M * K), bnk32(N * K), bkn32(K * N);
        for (int m = 0; m < M; ++m)
          for (int k = 0; k < K; ++k)
            a16[m * K + k] = bf16_from_float(a32[m * K + k] = a_value(m, k));
        for (int k = 0; k < K; ++k)
          for (int n = 0; n < N; ++n) {
            bnk16[n * K + k] = bf16_from_float(bnk32[n * K + k] = b_value(k, n));
            bkn16[k * N + n] = bf16_from_float(bkn32[k * N + n] = b_value(k, n));
          }
        auto upload = [](const auto& values) {
          DeviceBuffer buffer(values.size() * sizeof(values[0]));
          buffer.upload_values(values);
          return buffer;
        };
        DeviceBuffer da16 = upload(a16), dbnk16 = upload(bnk16), dbkn16 = upload(bkn16);
        DeviceBuffer da32 = upload(a32), dbnk32 = upload(bnk32), dbkn32 = upload(bkn32);
        std::vector<DeviceBuffer> c;
        for (int i = 0; i < 5; ++i) c.emplace_back(std::size_t{M} * N * 4);
        Stream stream;
        const GemmShape shape{M, N, K};
        lt.matmul_bf16(shape, da16.ptr(), dbnk16.ptr(), BLayout::nk, c[0].ptr(), GemmOutput::f32,
                       stream.handle());
        lt.matmul_bf16(shape, da16.ptr(), dbkn16.ptr(), BLayout::kn, c[1].ptr(), GemmOutput::f32,
                       stream.handle());
        lt.matmul_bf16(shape, da16.ptr(), dbnk16.ptr(), BLayout::nk, c[2].ptr(), GemmOutput::bf16,
                       stream.handle());
        lt.matmul_f32(shape, da32.ptr(), dbnk32.ptr(), BLayout::nk, c[3].ptr(), stream.handle());
        lt.matmul_f32(shape, da32.ptr(), dbkn32.ptr(), BLayout::kn, c[4].ptr(), stream.handle());
        stream.synchronize();
        std::vector<float> all;
        for (int i = 0; i < 5; ++i) {
          if (i == 2) {
            for (std::uint16_t v : c[i].download_values<std::uint16_t>(M * N))
              all.push_back(float_from_bf16(v));
          } else {
            const auto values = c[i].download_values<float>(M * N);
            all.insert(all.end(), values.begin(), values.end());
          }
        }
        const std::string algorithm =
            "cuBLASLt " + std::to_string(lt.version()) + ": " + lt.last_algorithm();
        return "B" +
               to_bytes(std::vector<std::uint32_t>{static_cast<std::uint32_t>(algorithm.size())}) +
               algorithm + to_bytes(all);
      },
      "cuBLASLt");
  if (skipped(r)) return;
  INFO(r.error);
  REQUIRE(r.ok());
  REQUIRE(r.payload.size() >= 5);
  const std::uint32_t algorithm_size =
      from_bytes<std::uint32_t>(std::string_view(r.payload).substr(1, 4)).at(0);
  REQUIRE(r.payload.size() == 5 + algorithm_size + 5u * M * N * 4);
  WARN(r.payload.substr(5, algorithm_size));
  const auto all = from_bytes<float>(std::string_view(r.payload).substr(5 + algorithm_size));
  const char* names[5] = {"bf16 nk -> f32", "bf16 kn -> f32", "bf16 nk -> bf16", "f32 nk",
                          "f32 kn"};
  for (int i = 0; i < 5; ++i) {
    std::size_t wrong = 0;
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        float expected = 0.0f;
        for (int k = 0; k < K; ++k) expected += a_value(m, k) * b_value(k, n);
        const float got = all[static_cast<std::size_t>(i) * M * N + m * N + n];
        if (got != expected && wrong++ == 0) {
          FAIL_CHECK(names[i] << ": C[" << m << "][" << n << "] = " << got << ", expected "
                              << expected);
        }
      }
    INFO(names[i]);
    CHECK(wrong == 0);
  }
}
