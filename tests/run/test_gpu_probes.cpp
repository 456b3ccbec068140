// Probes (run/probe_*): the checks are exercised on the model's output here (no GPU
// needed, and a check that cannot fail is caught by feeding it wrong outputs); the [gpu] case
// runs every probe on the GPU and requires GPU, formula and model to agree.
#include <cstring>

#include <catch2/catch.hpp>

#include "run/probe_cases.hpp"
#include "tests/cuda/gpu_test_support.hpp"

using namespace gs;
using Catch::Contains;

namespace {

const run::ProbeCase& case_named(const std::vector<run::ProbeCase>& cases, const std::string& name) {
  for (const run::ProbeCase& c : cases)
    if (c.name == name) return c;
  FAIL("no probe named " << name);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("probes: the cases cover every swizzle, the parity facts, four wgmma widths and mma.sync", "[run][probe]") {
  const std::vector<run::ProbeCase> all = run::probe_cases("all");
  std::vector<std::string> names;
  for (const run::ProbeCase& c : all) names.push_back(c.name);
  CHECK(names == std::vector<std::string>{"tma 16x64 32B", "tma 32x64 64B", "tma 64x64 128B", "tma 64x64 none",
                                          "tma 16x64 none", "mbarrier parity", "wgmma m64n8k16", "wgmma m64n16k16",
                                          "wgmma m64n64k16", "wgmma m64n256k16", "mma.sync m16n8k16"});
  CHECK(run::probe_cases("tma").size() == 5);
  CHECK(run::probe_cases("mbarrier").size() == 1);
  CHECK(run::probe_cases("wgmma").size() == 4);
  CHECK(run::probe_cases("mma").size() == 1);
  CHECK_THROWS_AS(run::probe_cases("banks"), kernels::ConfigError);
}

TEST_CASE("probes: the model's outputs pass every check", "[run][probe]") {
  for (const run::ProbeCase& probe : run::probe_cases("all")) {
    DYNAMIC_SECTION(probe.name) {
      run::ProbeReport report;
      std::vector<uint8_t> model_c;
      run::run_probe_on_model(probe, report, model_c);
      INFO(report.model_error << report.model_vs_formula.first_mismatch);
      CHECK(report.model_completed);
      CHECK(report.model_hazards == 0);
      CHECK(report.model_vs_formula.pass);
      CHECK(report.model_vs_formula.checked > 0);
      CHECK(run::compare_probe_outputs(probe, model_c, model_c).pass);
    }
  }
}

TEST_CASE("probes: a wrong output fails with the first mismatch named", "[run][probe]") {
  const std::vector<run::ProbeCase> all = run::probe_cases("all");

  // A TMA that ignored the 128B swizzle: element i at byte 2i. Row 1's chunks are XORed with 1,
  // so where the formula puts (1,0) (byte 144) the unswizzled tile holds (1,8).
  const run::ProbeCase& tma = case_named(all, "tma 64x64 128B");
  std::vector<uint8_t> unswizzled = tma.buffers.a;
  const run::ProbeCheck t = run::check_probe_output(tma, unswizzled, "GPU");
  CHECK_FALSE(t.pass);
  CHECK(t.first_mismatch == "row 1 col 0: GPU holds element (1,8), formula says (1,0)");
  CHECK(t.mismatches == 64 * 64 - 8 * 64);  // rows 0, 8, 16, ... (XOR 0) stay in place
  std::vector<uint8_t> poisoned(tma.buffers.c.size(), 0xEE);
  CHECK_THAT(run::check_probe_output(tma, poisoned, "GPU").first_mismatch,
             Contains("row 0 col 0: GPU holds 0xeeee (no element of the box: never written?)"));
  // The unswizzled layout is what the model puts in the unswizzled probe: the two must agree.
  CHECK(run::check_probe_output(case_named(all, "tma 64x64 none"), unswizzled, "GPU").pass);

  const run::ProbeCase& bar = case_named(all, "mbarrier parity");
  std::vector<uint8_t> words(16, 0);
  const uint32_t seen[4] = {0, 1, 0, 0};
  std::memcpy(words.data(), seen, 16);
  const run::ProbeCheck b = run::check_probe_output(bar, words, "GPU");
  CHECK_FALSE(b.pass);
  CHECK(b.first_mismatch == "result 2 (test_wait.parity 0 after one arrival): GPU says 0, the facts say 1");

  const run::ProbeCase& mma = case_named(all, "wgmma m64n16k16");
  run::ProbeReport report;
  std::vector<uint8_t> model_c;
  run::run_probe_on_model(mma, report, model_c);
  REQUIRE(report.model_completed);
  std::vector<uint8_t> swapped = model_c;  // thread 0's registers 0 and 1 exchanged
  std::memcpy(swapped.data(), model_c.data() + 4, 4);
  std::memcpy(swapped.data() + 4, model_c.data(), 4);
  const run::ProbeCheck m = run::check_probe_output(mma, swapped, "GPU");
  CHECK_FALSE(m.pass);
  CHECK(m.mismatches == 2);
  CHECK(m.first_mismatch == "thread 0 register 0: GPU holds (row 0, col 1), the map says (row 0, col 0)");
  const run::ProbeCheck vs = run::compare_probe_outputs(mma, swapped, model_c);
  CHECK(vs.first_mismatch == "thread 0 register 0: GPU holds (row 0, col 1), model holds (row 0, col 0)");

  run::ProbeReport failed;
  failed.name = "wgmma m64n16k16";
  failed.gpu_status = run::GpuStatus::ok;
  failed.gpu_vs_formula = m;
  CHECK_THAT(run::probe_report_line(failed), Contains("FAIL  wgmma m64n16k16") && Contains("thread 0 register 0"));
}

TEST_CASE("[gpu] probes: the GPU places, flips and maps exactly as the facts and the model say", "[run][probe][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  const run::ProbeRun result = run::run_probes(run::probe_cases("all"));
  INFO(result.devices.job.error);
  REQUIRE(result.devices.job.ok());
  REQUIRE(result.reports.size() == run::probe_cases("all").size());
  REQUIRE(result.reports.size() >= 11);  // 5 TMA, parity, 4 wgmma widths, mma.sync
  for (const run::ProbeReport& r : result.reports) {
    INFO(run::probe_report_line(r));
    if (!r.skipped.empty()) {
      WARN(run::probe_report_line(r));
      continue;
    }
    CHECK(r.pass());
  }
}
