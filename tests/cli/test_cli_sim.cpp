// `gemmscope sim` through run_cli, and the progress bar. Cases tagged [model] run the CPU
// model; the usage errors are caught before it starts.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "tests/support/cli_run.hpp"
#include "cli/progress.hpp"

namespace {
using Run = gs::test::CliRun;
Run run(const std::vector<std::string>& args) { return gs::test::run_cli(args); }
}  // namespace

TEST_CASE("cli sim: bad usage exits 2 with a message naming the value", "[cli][sim][errors]") {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases{
      {{"sim"}, "ID is required"},
      {{"sim", "nope"}, "unknown kernel id 'nope'"},
      {{"sim", "simt_naive", "--cta", "foo"}, "--cta: 'foo' is not a CTA: give X,Y (e.g. 1,0)"},
      {{"sim", "simt_naive", "--cta", "1"}, "'1' is not a CTA"},
      {{"sim", "simt_naive", "--cta", "1,2,3,4"}, "'1,2,3,4' is not a CTA"},
      {{"sim", "simt_naive", "--cta", "-1,0"}, "'-1,0' is not a CTA"},
      {{"sim", "simt_naive", "--cta", "1,"}, "'1,' is not a CTA"},
      {{"sim", "simt_naive", "--cta", "5,0"}, "CTA (5,0) is outside the grid (4,4,1)"},
      {{"sim", "hopper_tma_wgmma_64", "--cta", "0,2"}, "CTA (0,2) is outside the grid (2,2,1)"},
      {{"sim", "simt_naive", "--inputs", "floats"}, "'floats' is not an input mode: valid values are random, int"},
      {{"sim", "simt_naive", "--break", "no-such-mistake"}, "unknown mistake 'no-such-mistake' for simt_naive"},
      {{"sim", "hopper_tma_wgmma_64", "--m", "100"}, "M=100 is not a positive multiple of 64"},
      {{"sim", "simt_naive", "--seed", "x"}, "--seed"},
      {{"sim", "simt_naive", "--machine", "h300"}, "--machine 'h300' is not a card the model knows; valid: h100, h200, b200"},
      {{"sim", "hopper_tma_wgmma_64", "--machine", "b200"},
       "--machine b200: hopper_tma_wgmma_64 is built for sm_90a, which does not run on B200; valid: h100, h200"},
      {{"sim", "blackwell_tcgen05_basic", "--machine", "h200"}, "does not run on H200; valid: b200"},
  };
  for (const Case& c : cases) {
    INFO(c.args.size() << " args, last " << c.args.back());
    const Run r = run(c.args);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.message));
    CHECK(r.out.empty());
  }
}

TEST_CASE("cli sim: --help lists the options", "[cli][sim]") {
  const Run r = run({"sim", "--help"});
  CHECK(r.code == 0);
  for (const char* opt : {"--m", "--break", "--inputs", "--seed", "--cta", "--trace", "--json"})
    CHECK_THAT(r.out, Catch::Contains(opt));
  CHECK_THAT(run({"--help"}).out, Catch::Contains("sim"));
}

TEST_CASE("cli sim: --json prints one object with every field", "[cli][sim][model]") {
  for (const std::string id : {"simt_naive", "hopper_tma_wgmma_64"})
    for (const std::string inputs : {"int", "random"}) {
      INFO(id << " --inputs " << inputs);
      const Run r = run({"sim", id, "--json", "--inputs", inputs, "--seed", "9", "--cta", "1,0"});
      CHECK(r.code == 0);
      const nlohmann::json j = nlohmann::json::parse(r.out);
      for (const char* field : {"kernel", "shape", "correct", "max_abs_err", "rel_err", "warp_instructions", "smem",
                                "tma", "hazards", "cycles", "predicted_tflops", "seconds", "mistakes", "inputs", "seed",
                                "cta", "completed", "error", "mma_ops", "unwritten", "first_mismatch"})
        CHECK(j.contains(field));
      for (const char* f : {"m", "n", "k"}) CHECK(j["shape"].contains(f));
      for (const char* f : {"accesses", "wavefronts", "bank_conflicts", "ideal_wavefronts"}) CHECK(j["smem"].contains(f));
      for (const char* f : {"transfers", "bytes"}) CHECK(j["tma"].contains(f));
      CHECK(j["kernel"] == id);
      CHECK(j["inputs"] == inputs);
      CHECK(j["seed"] == 9);
      CHECK(j["cta"] == nlohmann::json({1, 0, 0}));
      CHECK(j["correct"] == true);
      CHECK(j["completed"] == true);
      CHECK(j["hazards"].empty());
      CHECK(j["unwritten"] == 0);
      CHECK(j["warp_instructions"].get<uint64_t>() > 0);
    }
  // The Hopper kernel moves its operands with TMA.
  const nlohmann::json h = nlohmann::json::parse(run({"sim", "hopper_tma_wgmma_64", "--json"}).out);
  // 2×2 CTAs × 4 K-blocks × (one 64×64 bf16 box of A + one of B, 8 KiB each).
  CHECK(h["tma"]["transfers"] == 2 * 2 * 4 * 2);
  CHECK(h["tma"]["bytes"] == 2 * 2 * 4 * 2 * 8192);
  CHECK(h["mma_ops"].get<uint64_t>() > 0);
}

TEST_CASE("cli sim: the table and exit code 0 for a correct run", "[cli][sim][model]") {
  const Run r = run({"sim", "simt_naive", "--m", "40", "--n", "50", "--k", "60"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("correct (exact, integer inputs)") && Catch::Contains("M=40 N=50 K=60") &&
                        Catch::Contains("hazards             none"));
}

TEST_CASE("cli sim: --traced-cta-only runs one CTA at any shape, predicts, and does not judge", "[cli][sim][model]") {
  // 8192³ on the model: only CTA (0,0) runs, so it takes about as long as the example shape.
  const Run r = run({"sim", "hopper_two_consumers", "--m", "8192", "--n", "8192", "--k", "8192", "--traced-cta-only", "--json"});
  CHECK(r.code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["judged"] == false);
  CHECK(j["correct"].is_null());
  CHECK(j["ok"] == true);
  CHECK(j["ctas"] == 1);
  CHECK(j["predicted_tflops"].get<double>() > 100.0);
  CHECK_THAT(run({"sim", "simt_naive", "--traced-cta-only"}).out, Catch::Contains("not judged: only the traced CTA ran"));
  // A hazard still fails it.
  CHECK(run({"sim", "hopper_tma_wgmma_64", "--traced-cta-only", "--break", "wrong-expect-tx"}).code == 1);
  // The whole grid is judged as before.
  const nlohmann::json whole = nlohmann::json::parse(run({"sim", "simt_naive", "--json"}).out);
  CHECK(whole["judged"] == true);
  CHECK(whole["correct"] == true);
}

TEST_CASE("cli sim: --trace writes the traced CTA as JSON", "[cli][sim][model]") {
  const std::string path = (std::filesystem::temp_directory_path() / "gemmscope_cli_sim_trace.json").string();
  std::filesystem::remove(path);
  const Run r = run({"sim", "hopper_tma_wgmma_64", "--trace", path, "--cta", "1,1"});
  CHECK(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("wrote " + path));
  std::ifstream f(path);
  REQUIRE(f);
  const nlohmann::json j = nlohmann::json::parse(f);
  CHECK(j["kernel"] == "hopper_tma_wgmma_64");
  CHECK(j["traced_cta"] == 3);
  CHECK_FALSE(j["events"].empty());
  CHECK(j["events"][0].contains("kind"));
  CHECK_FALSE(j["tma"].empty());
  CHECK_FALSE(j["mma"].empty());
  CHECK_FALSE(j["instructions"].empty());
  std::filesystem::remove(path);
  // An unwritable trace path is bad input, found before the model runs (exit 2).
  const Run bad = run({"sim", "simt_naive", "--trace", "/nonexistent-dir/t.json"});
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--trace '/nonexistent-dir/t.json': cannot write there"));
  CHECK(bad.out.empty());
}

TEST_CASE("progress bar: format, and silent when stderr is not a terminal", "[cli][progress]") {
  CHECK(gs::cli::format_progress_bar(12, 64, 10, "CTAs") == "[#         ] 12/64 CTAs");
  CHECK(gs::cli::format_progress_bar(32, 64, 10, "CTAs") == "[#####     ] 32/64 CTAs");
  CHECK(gs::cli::format_progress_bar(64, 64, 10, "CTAs") == "[##########] 64/64 CTAs");
  CHECK(gs::cli::format_progress_bar(0, 0, 4, "CTAs") == "[####] 0/0 CTAs");
  std::ostringstream err;
  CHECK_FALSE(gs::cli::is_terminal_stderr(err));  // a string stream is never the terminal
  {
    gs::cli::ProgressBar bar(err, false);
    bar.update(1, 2);
  }
  CHECK(err.str().empty());
}

TEST_CASE("progress bar: draws after a delay and erases itself", "[cli][progress]") {
  std::ostringstream err;
  gs::cli::ProgressBar bar(err, true);
  bar.update(1, 8);  // too early: short runs show nothing
  CHECK(err.str().empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(350));
  bar.update(2, 8);
  CHECK_THAT(err.str(), Catch::Contains("2/8 CTAs"));
  bar.finish();
  const std::string s = err.str();
  CHECK(s.back() == '\r');  // the line is blanked and the cursor back at its start
}

TEST_CASE("cli sim: the prediction names its machine: a B200 for sm_100a, the H100 otherwise", "[cli][sim]") {
  auto r = run({"sim", "blackwell_tcgen05_basic", "--json"});
  REQUIRE(r.code == 0);
  CHECK(nlohmann::json::parse(r.out)["predicted_on"] == "B200");
  r = run({"sim", "blackwell_tcgen05_basic"});
  CHECK_THAT(r.out, Catch::Contains("TFLOP/s on a B200") && Catch::Contains("unconfirmed"));
  r = run({"sim", "hopper_tma_wgmma_64", "--json"});
  REQUIRE(r.code == 0);
  const nlohmann::json h100 = nlohmann::json::parse(r.out);
  CHECK(h100["predicted_on"] == "H100");
  // --machine h200: the H200's figures, in the CTA's own run (its TMA lands sooner) and the whole GEMM.
  r = run({"sim", "hopper_tma_wgmma_64", "--json", "--machine", "h200"});
  REQUIRE(r.code == 0);
  const nlohmann::json h200 = nlohmann::json::parse(r.out);
  CHECK(h200["predicted_on"] == "H200");
  CHECK(h200["cycles"].get<double>() < h100["cycles"].get<double>());
  r = run({"sim", "hopper_tma_wgmma_64", "--machine", "h200"});
  CHECK_THAT(r.out, Catch::Contains("TFLOP/s on an H200"));
}

TEST_CASE("cli sim --vs: both predictions, why one is faster, and one card for both", "[cli][sim][model]") {
  Run r = run({"sim", "hopper_producer_consumer", "--vs", "hopper_two_consumers", "--m", "512", "--n", "512", "--k",
               "512", "--traced-cta-only"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("why, in the model's terms (512x512x512 on an H100)"));
  CHECK_THAT(r.out, Catch::Contains("hopper_producer_consumer is bound by"));
  CHECK_THAT(r.out, Catch::Contains("(* the bound: the wave takes the longest of its limits)"));
  r = run({"sim", "hopper_producer_consumer", "--vs", "hopper_two_consumers", "--m", "512", "--n", "512", "--k", "512",
           "--traced-cta-only", "--json", "--machine", "h200"});
  REQUIRE(r.code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["a"]["kernel"] == "hopper_producer_consumer");
  CHECK(j["b"]["kernel"] == "hopper_two_consumers");
  CHECK(j["a"]["predicted_on"] == "H200");
  CHECK(j["b"]["predicted_on"] == "H200");
  const double speedup = j["comparison"]["speedup"].get<double>();
  CHECK(speedup == Approx(j["a"]["predicted_seconds"].get<double>() / j["b"]["predicted_seconds"].get<double>()));
  CHECK(j["comparison"]["bound_a"] == j["a"]["prediction"]["bound"]);
  CHECK(j["comparison"]["lines"].size() >= 2);
  // A variant against the kernel as it ships: named by its parameters, and where its deeper ring
  // lets the waves drift apart (step 13's 6 stages at 8192^3), the bytes that costs.
  r = run({"sim", "hopper_producer_consumer", "--param", "stages=6", "--vs", "hopper_producer_consumer", "--m", "8192",
           "--n", "8192", "--k", "8192", "--traced-cta-only"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("hopper_producer_consumer is predicted") &&
                        Catch::Contains("faster than hopper_producer_consumer stages=6"));
  CHECK_THAT(r.out, Catch::Contains("hopper_producer_consumer stages=6 is bound by HBM"));
  CHECK_THAT(r.out, Catch::Contains("the waves drift apart: hopper_producer_consumer stages=6 asks for a stage"));
  // Errors before anything runs: an unknown kernel, and one no card runs together with the first.
  r = run({"sim", "hopper_producer_consumer", "--vs", "nope", "--traced-cta-only"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("unknown kernel id 'nope'"));
  CHECK(r.out.empty());
  r = run({"sim", "hopper_producer_consumer", "--vs", "blackwell_tcgen05_basic", "--traced-cta-only"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err,
             Catch::Contains("--vs blackwell_tcgen05_basic: it is built for sm_100a, which does not run on H100"));
  CHECK(r.out.empty());
}
