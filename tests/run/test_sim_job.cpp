// run/sim_job: the simulate job, its JSON and table, and the trace export.
// Cases tagged [model] run the CPU model end to end; the rest check input validation and the
// formatting on hand-made reports.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "engine/model/timing.hpp"
#include "engine/ptx/registers.hpp"
#include "run/sim_job.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;
using run::InputMode;

namespace {

// A report as the model might leave it, without running the model: a built kernel, a few
// stats and one hazard.
run::SimReport fake_report() {
  run::SimReport r;
  r.kernel_id = "hopper_tma_wgmma_64";
  r.shape = {128, 128, 256};
  r.inputs = InputMode::integer;
  r.seed = 3;
  r.cta = {1, 0, 0};
  const kernels::KernelInfo& info = kernels::kernel_or_throw(r.kernel_id);
  r.ab_dtype = info.ab_dtype;
  r.c_dtype = info.c_dtype;
  r.kernel = kernels::build_kernel(info, {r.shape, {}});
  r.result.stats.ctas = 4;
  r.result.stats.warp_instructions = 123456;
  r.result.stats.smem_accesses = 10;
  r.result.stats.smem_wavefronts = 14;
  r.result.stats.smem_ideal_wavefronts = 10;
  r.result.stats.smem_bank_conflicts = 4;
  r.result.stats.tma_transfers = 32;
  r.result.stats.tma_bytes = 32 * 8192;
  r.result.stats.traced_cta_cycles = 5000;
  r.result.stats.predicted_tflops = 1.5;
  r.result.hazards.push_back({.kind = model::HazardKind::tma_race,
                              .inst = 12,
                              .warp = 2,
                              .lane = 0,
                              .address = 1024,
                              .cycle = 77,
                              .detail = "wgmma read sA before the TMA load completed"});
  r.cmp.correct = false;
  r.cmp.elements = 128 * 128;
  r.cmp.mismatches = 4096;
  r.cmp.first_mismatch = "C[0][0] = 5 but the reference is 7";
  r.cmp.max_abs_err = 2.0;
  r.cmp.rel_err = std::numeric_limits<double>::infinity();
  return r;
}

}  // namespace

TEST_CASE("sim job: bad requests are ConfigErrors that name the value", "[run][sim]") {
  CHECK_THROWS_AS(run::run_sim({.kernel_id = "nope"}), kernels::ConfigError);
  // Grid of simt_naive at 128×128: 4×4×1.
  CHECK_THROWS_WITH(run::run_sim({.kernel_id = "simt_naive", .cta = {5, 0, 0}}),
                    Catch::Contains("CTA (5,0) is outside the grid (4,4,1)"));
  CHECK_THROWS_WITH(run::run_sim({.kernel_id = "hopper_tma_wgmma_64", .cta = {0, 0, 1}}),
                    Catch::Contains("CTA (0,0,1) is outside the grid (2,2,1)"));
  CHECK_THROWS_WITH(run::run_sim({.kernel_id = "hopper_tma_wgmma_64", .mistakes = {"no-such-mistake"}}),
                    Catch::Contains("unknown mistake 'no-such-mistake'"));
  CHECK_THROWS_WITH(run::run_sim({.kernel_id = "hopper_tma_wgmma_64", .shape = {100, 0, 0}}),
                    Catch::Contains("M=100"));
}

TEST_CASE("sim job: JSON has every field; non-finite numbers are null", "[run][sim]") {
  const nlohmann::json j = run::sim_report_json(fake_report());
  for (const char* field :
       {"kernel", "shape", "mistakes", "inputs", "seed", "cta", "grid", "correct", "completed", "error", "ok",
        "max_abs_err", "rel_err", "mismatches", "unwritten", "first_mismatch", "warp_instructions", "ctas", "smem",
        "tma", "mma_ops", "hazards", "cycles", "predicted_tflops", "seconds"})
    CHECK(j.contains(field));
  CHECK(j["kernel"] == "hopper_tma_wgmma_64");
  CHECK(j["shape"] == nlohmann::json({{"m", 128}, {"n", 128}, {"k", 256}}));
  CHECK(j["inputs"] == "int");
  CHECK(j["cta"] == nlohmann::json({1, 0, 0}));
  CHECK(j["grid"] == nlohmann::json({2, 2, 1}));
  for (const char* f : {"accesses", "wavefronts", "ideal_wavefronts", "bank_conflicts"}) CHECK(j["smem"].contains(f));
  CHECK(j["smem"]["bank_conflicts"] == 4);
  CHECK(j["tma"]["transfers"] == 32);
  CHECK(j["tma"]["bytes"] == 32 * 8192);
  CHECK(j["rel_err"].is_null());
  CHECK(j["error"].is_null());
  CHECK(j["ok"] == false);
  REQUIRE(j["hazards"].size() == 1);
  const nlohmann::json& h = j["hazards"][0];
  CHECK(h["kind"] == "tma-race");
  CHECK(h["inst"] == 12);
  CHECK(h["warp"] == 2);
  CHECK(h["detail"] == "wgmma read sA before the TMA load completed");
  CHECK_FALSE(h["ptx"].get<std::string>().empty());
}

TEST_CASE("sim job: the table names the result, counters and hazards", "[run][sim]") {
  const std::string t = run::sim_report_table(fake_report());
  CHECK_THAT(t, Catch::Contains("hopper_tma_wgmma_64 (step 11, sm_90a)"));
  CHECK_THAT(t, Catch::Contains("M=128 N=128 K=256"));
  CHECK_THAT(t, Catch::Contains("WRONG: 4,096 of 16,384 elements differ; C[0][0] = 5 but the reference is 7"));
  CHECK_THAT(t, Catch::Contains("123,456"));
  CHECK_THAT(t, Catch::Contains("14 wavefronts (ideal 10), 4 bank conflicts"));
  CHECK_THAT(t, Catch::Contains("32 transfers, 262,144 bytes"));
  CHECK_THAT(t, Catch::Contains("traced CTA (1,0)"));
  CHECK_THAT(t, Catch::Contains("1.50 TFLOP/s on an H100"));
  CHECK_THAT(t, Catch::Contains("tma-race at instruction 12 (warp 2): wgmma read sA before the TMA load completed"));
  run::SimReport ok = fake_report();
  ok.result.hazards.clear();
  ok.cmp = {.correct = true, .elements = 16384};
  const std::string t2 = run::sim_report_table(ok);
  CHECK_THAT(t2, Catch::Contains("correct (exact, integer inputs)"));
  // An sm_100a kernel's prediction is on a B200, whose figures are NVIDIA's.
  ok.result.stats.predicted_on = &model::timing::kB200;
  const std::string t3 = run::sim_report_table(ok);
  CHECK_THAT(t3, Catch::Contains("1.50 TFLOP/s on a B200"));
  CHECK_THAT(t3, Catch::Contains("unconfirmed"));
  CHECK(run::sim_report_json(ok)["predicted_on"] == "B200");
  CHECK_THAT(t2, Catch::Contains("hazards             none"));
}

TEST_CASE("sim job: trace JSON names event kinds and keeps side tables", "[run][sim][trace]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_tma_wgmma_64");
  const ir::Kernel kernel = kernels::build_kernel(info, {info.example_shape, {}});
  model::Trace t;
  t.warps = 4;
  t.end_cycle = 99;
  t.smem.push_back({});
  t.smem[0].mask = 0x3;
  t.smem[0].addr[0] = 128;
  t.smem[0].addr[1] = 132;
  t.events.push_back({.cycle = 0, .kind = model::EventKind::cta_start, .warp = 0xFFFF});
  t.events.push_back({.cycle = 5, .kind = model::EventKind::warp_inst, .warp = 1, .inst = 3, .mask = 0xFFFFFFFFu});
  t.events.push_back({.cycle = 6, .kind = model::EventKind::smem_access, .warp = 1, .inst = 4, .mask = 3, .payload = 0});
  t.mma.push_back({.n = 64, .a_desc = 0x4000004000010040ull});
  t.hazards.push_back({.kind = model::HazardKind::deadlock, .detail = "warp 0 waits forever"});
  // One register write of each encoding: lanes 0 and 2 packed; a whole warp as base 5, step 2.
  t.regs.push_back({.reg = 1, .value_offset = 0, .words = 1, .mask = 0b101});
  t.regs.push_back({.reg = 2, .value_offset = 2, .words = 1, .encoding = model::RegWrite::Encoding::affine,
                    .mask = 0xFFFFFFFFu});
  for (const uint32_t v : {7u, 9u, 5u, 2u}) t.values.push_back(v);
  const nlohmann::json j = nlohmann::json::parse(run::trace_json(t, kernel).dump());  // survives a text round trip
  CHECK(j["kernel"] == "hopper_tma_wgmma_64");
  CHECK(j["warps"] == 4);
  REQUIRE(j["events"].size() == 3);
  CHECK(j["events"][0]["kind"] == model::event_kind_name(model::EventKind::cta_start));
  CHECK(j["events"][0]["warp"].is_null());
  CHECK(j["events"][0]["inst"].is_null());
  CHECK(j["events"][1]["kind"] == model::event_kind_name(model::EventKind::warp_inst));
  CHECK(j["events"][1]["inst"] == 3);
  CHECK(j["events"][2]["payload"] == 0);
  CHECK(j["smem"][0]["addr"][1] == 132);
  CHECK(j["smem"][0]["addr"][2].is_null());  // inactive lane
  CHECK(j["mma"][0]["a_desc"] == "0x4000004000010040");
  CHECK(j["hazards"][0]["kind"] == "deadlock");
  CHECK(j["regs"][0]["encoding"] == "packed");
  CHECK(j["regs"][1]["encoding"] == "affine");
  CHECK(j["regs"][1]["value_offset"] == 2);
  CHECK(j["values"] == nlohmann::json::array({7, 9, 5, 2}));
  CHECK(t.reg_value(t.regs[0], 2) == 9);
  CHECK(t.reg_value(t.regs[1], 31) == 5 + 2 * 31);
  CHECK(j["instructions"].size() == kernel.insts.size());
  CHECK(j["registers"].size() == kernel.regs.size());
  CHECK(j["event_kinds"].size() == size_t(model::EventKind::count_));
}

TEST_CASE("sim job: both kernels are correct with no hazards at their example shapes", "[run][sim][model]") {
  for (const kernels::KernelInfo& info : kernels::all_kernels())
    for (const InputMode inputs : {InputMode::integer, InputMode::random}) {
      INFO(info.id << " with " << run::input_mode_name(inputs) << " inputs");
      const run::SimReport r = run::run_sim({.kernel_id = info.id, .inputs = inputs, .seed = 5});
      CHECK(r.result.completed);
      CHECK(r.result.error.empty());
      CHECK(r.result.hazards.empty());
      CHECK(r.cmp.correct);
      CHECK(r.cmp.unwritten == 0);
      CHECK(r.cmp.first_mismatch.empty());
      // Integer sums are exact: an f32 C equals them; a bf16 C (step 19's default) equals them
      // rounded once, so it differs from the exact sums by the rounding but matches bit for bit.
      if (inputs == InputMode::integer && r.c_dtype == kernels::DType::f32) CHECK(r.cmp.max_abs_err == 0.0);
      if (inputs == InputMode::integer) CHECK(r.cmp.mismatches == 0);
      CHECK(r.ok());
      // A launch-controlled grid (step 24) runs its first wave only: the rest are cancelled.
      if (r.kernel_id != "blackwell_clc") CHECK(r.result.stats.ctas == r.kernel.launch.ctas());
      else CHECK(r.result.stats.ctas < r.kernel.launch.ctas());
      CHECK(r.result.stats.warp_instructions > 0);
      CHECK_FALSE(r.result.trace.events.empty());
      CHECK(r.result.stats.traced_cta_cycles > 0);
    }
}

TEST_CASE("sim job: traces the requested CTA; fast mode records nothing", "[run][sim][model]") {
  const run::SimReport traced = run::run_sim({.kernel_id = "hopper_tma_wgmma_64", .cta = {1, 1, 0}});
  CHECK(traced.ok());
  CHECK(traced.result.trace.traced_cta == 3);  // linear id of (1,1) in a 2×2 grid
  const run::SimReport fast = run::run_sim({.kernel_id = "hopper_tma_wgmma_64", .trace = false});
  CHECK(fast.ok());
  CHECK(fast.result.trace.events.empty());
  CHECK(fast.result.stats.warp_instructions == traced.result.stats.warp_instructions);
}

TEST_CASE("sim job: progress is reported and cancel stops the run", "[run][sim][model]") {
  uint64_t calls = 0, last_done = 0, last_total = 0;
  const run::SimReport r = run::run_sim({.kernel_id = "simt_naive", .progress = [&](uint64_t done, uint64_t total) {
                                           ++calls;
                                           last_done = done;
                                           last_total = total;
                                         }});
  CHECK(r.ok());
  CHECK(calls > 0);
  CHECK(last_total == 16);
  CHECK(last_done <= last_total);
  const std::atomic<bool> cancel{true};
  const run::SimReport c = run::run_sim({.kernel_id = "simt_naive", .cancel = &cancel});
  CHECK_FALSE(c.result.completed);
  CHECK(c.result.cancelled);
  CHECK_FALSE(c.ok());
}

TEST_CASE("sim job: the tensor cores' shared-memory reads are counted apart from ld/st.shared", "[run][sim][model]") {
  // The Hopper step reads shared memory only through wgmma descriptors: its own warps issue no
  // ld/st.shared, so a table row of "0 accesses" alone would be misread.
  const run::SimReport r = run::run_sim({.kernel_id = "hopper_tma_wgmma_64"});
  const nlohmann::json j = run::sim_report_json(r);
  CHECK(j["smem"]["accesses"] == 0);
  CHECK(j["tensor_smem"]["reads"].get<uint64_t>() > 0);
  CHECK(j["tensor_smem"]["bank_conflicts"] == 0);
  const std::string table = run::sim_report_table(r);
  CHECK_THAT(table, Catch::Contains("0 ld/st.shared accesses"));
  CHECK_THAT(table, Catch::Contains("tensor-core reads"));
  const run::SimReport simt = run::run_sim({.kernel_id = "simt_naive"});
  CHECK(run::sim_report_json(simt)["tensor_smem"]["reads"] == 0);
  CHECK_THAT(run::sim_report_table(simt), !Catch::Contains("tensor-core reads"));
}

TEST_CASE("sim: the prediction's occupancy counts the registers ptxas gives the kernel", "[model][ptxas]") {
  // Step 07: 128 threads and 16 KiB of shared memory would allow 16 CTAs an SM; its registers
  // allow two. The report says how many, from where, and the waves follow.
  run::SimRequest req{.kernel_id = "simt_warptile", .shape = {1024, 1024, 64}, .only_traced_cta = true};
  const run::SimReport r = run::run_sim(req);
  const ptx::RegisterCount regs = ptx::kernel_registers(r.kernel);
  if (regs.registers == 0) {
    if (gs::test::ptxas_required()) FAIL("GEMMSCOPE_REQUIRE_PTXAS=1 but " << regs.source);
    CHECK(r.registers == 0);
    CHECK(r.registers_source == regs.source);
    return;
  }
  CHECK(r.registers == regs.registers);
  CHECK_THAT(r.registers_source, Catch::Contains("ptxas -v"));
  const model::timing::Prediction& p = r.result.stats.prediction;
  const auto limit = model::timing::cta_limit(model::timing::kH100Desc, uint32_t(r.kernel.launch.threads()),
                                              r.kernel.smem_bytes(), regs.registers);
  CHECK(p.ctas_per_sm == limit.ctas);
  CHECK(std::string(p.occupancy_bound) == limit.resource);
  CHECK(p.ctas_per_sm < model::timing::ctas_per_sm(model::timing::kH100Desc, uint32_t(r.kernel.launch.threads()),
                                                    r.kernel.smem_bytes(), 0));
  const nlohmann::json j = run::sim_report_json(r);
  CHECK(j["prediction"]["occupancy"]["registers"] == regs.registers);
  CHECK(j["prediction"]["occupancy"]["bound"] == "registers");
  CHECK_THAT(run::sim_report_table(r), Catch::Contains(fmt::format("registers: {} per thread", regs.registers)));

  // Step 16's shared memory allows one CTA an SM: ptxas is not asked, and the report says why.
  const run::SimReport h =
      run::run_sim({.kernel_id = "hopper_fewer_arrivals", .shape = {256, 256, 128}, .only_traced_cta = true});
  CHECK(h.registers == 0);
  CHECK_THAT(h.registers_source, Catch::Contains("not needed"));
  CHECK(h.result.stats.prediction.ctas_per_sm == 1);
}
