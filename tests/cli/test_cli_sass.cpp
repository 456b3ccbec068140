// `gemmscope sass`: the listing, its errors and exit codes (engine/ptx/sass.hpp does the work;
// tests/ptx/test_sass.cpp checks the links themselves).
#include <cstdlib>
#include <string>

#include <catch2/catch.hpp>

#include "engine/ptx/ptxas.hpp"
#include "tests/support/cli_run.hpp"
#include "tests/support/ptxas_check.hpp"
#include "tests/support/scoped_env.hpp"

namespace {

using gs::test::run_cli;
using Catch::Matchers::Contains;

}  // namespace

TEST_CASE("cli: sass rejects bad input with exit 2, naming what is valid", "[cli][sass][errors]") {
  auto r = run_cli({"sass", "no_such_kernel"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Contains("no_such_kernel") && Contains("hopper_tma_wgmma_64"));
  r = run_cli({"sass", "hopper_tma_wgmma_64", "--m", "100"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Contains("100"));
  r = run_cli({"sass", "hopper_tma_wgmma_64", "--mistake", "no_such_mistake"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Contains("no_such_mistake"));
  r = run_cli({"sass"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
}

TEST_CASE("cli: sass without the toolkit says what to install and exits 1", "[cli][sass][errors]") {
  const gs::test::ScopedEnv no_ptxas("GEMMSCOPE_PTXAS", "/nonexistent/ptxas");
  const auto r = run_cli({"sass", "hopper_tma_wgmma_64"});
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Contains("CUDA toolkit") && Contains("ptxas") && Contains("nvdisasm"));
  CHECK(r.out.empty());
}

TEST_CASE("cli: sass prints ptxas's report and each address under its PTX line", "[cli][sass][ptxas]") {
  if (!gs::ptx::find_ptxas()) {
    if (gs::test::ptxas_required()) FAIL("GEMMSCOPE_REQUIRE_PTXAS=1 but no ptxas");
    WARN("skipped: no ptxas");
    return;
  }
  const auto r = run_cli({"sass", "hopper_tma_wgmma_64", "--k", "128"});
  INFO(r.err);
  // With a disassembler: exit 0; without one, the addresses and their PTX lines with exit 1.
  CHECK((r.code == 0 || r.code == 1));
  CHECK_THAT(r.out, Contains("hopper_tma_wgmma_64 (M=128 N=128 K=128) for sm_90a"));
  CHECK_THAT(r.out, Contains("ptxas:") && Contains("registers") && Contains("16392 bytes static shared memory") &&
                        Contains("no spills"));
  CHECK_THAT(r.out, Contains("st.global.v2.f32"));
  if (r.code == 1) CHECK_THAT(r.err, Contains("nvdisasm"));

  SECTION("ptxas failing is a clear error with its log") {
    // A "ptxas" that rejects everything stands for a PTX it cannot assemble.
    const gs::test::ScopedEnv fake("GEMMSCOPE_PTXAS", "/bin/false");
    const auto f = run_cli({"sass", "simt_naive"});
    CHECK(f.code == 1);
    CHECK_THAT(f.err, Contains("ptxas could not assemble the PTX for sm_80"));
  }
}

TEST_CASE("cli: sass --timeline compiles the instrumented kernel and says so", "[cli][sass][ptxas][timeline]") {
  if (!gs::ptx::find_ptxas()) {
    if (gs::test::ptxas_required()) FAIL("GEMMSCOPE_REQUIRE_PTXAS=1 but no ptxas");
    WARN("skipped: no ptxas");
    return;
  }
  const auto r = run_cli({"sass", "hopper_producer_consumer", "--timeline"});
  INFO(r.err);
  CHECK((r.code == 0 || r.code == 1));
  CHECK_THAT(r.out, Contains("instrumented by the timeline pass (CTA 0 records)") && Contains("timeline: mbar_wait_end"));
  const auto plain = run_cli({"sass", "hopper_producer_consumer"});
  CHECK(plain.out.find("timeline") == std::string::npos);
}
