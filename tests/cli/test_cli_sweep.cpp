// `gemmscope sweep` through run_cli (and, for Ctrl-C, as a program): usage errors naming the
// value and what is valid, the table, JSON and CSV of a small sweep on the model, the invalid
// combinations with their reasons, --gpu without a GPU, and Ctrl-C keeping the finished rows.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/cli_run.hpp"
#include "tests/support/shell.hpp"

namespace {
using Run = gs::test::CliRun;
Run run(const std::vector<std::string>& args) { return gs::test::run_cli(args); }
using Catch::Contains;

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("gemmscope-sweep-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}
}  // namespace

TEST_CASE("cli sweep: bad usage exits 2 naming the value and what is valid", "[cli][sweep][errors]") {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases{
      {{"sweep"}, "ID is required"},
      {{"sweep", "nope", "--param", "bm=64"}, "unknown kernel id 'nope': valid ids are simt_naive"},
      {{"sweep", "simt_blocktile_2d", "--param", "bq=64"},
       "unknown build parameter 'bq' for simt_blocktile_2d: valid parameters are bm, bn, bk, tm, tn"},
      {{"sweep", "simt_blocktile_2d", "--param", "bm=64,48"},
       "bm=48 is not a value simt_blocktile_2d takes: choose one of 32, 64, 128, 256 (default 128)"},
      {{"sweep", "simt_blocktile_2d", "--param", "bm=64,,128"}, "'' in --param 'bm=64,,128' is not a value"},
      {{"sweep", "simt_blocktile_2d", "--param", "bm=x"}, "'x' in --param 'bm=x' is not a value"},
      {{"sweep", "simt_blocktile_2d", "--param", "bm"}, "'bm' is not a parameter and its values: give NAME=V1,V2"},
      {{"sweep", "simt_blocktile_2d", "--param", "bm=64", "--param", "bm=128"}, "--param bm is given twice"},
      {{"sweep", "simt_blocktile_2d"}, "a sweep needs at least one --param NAME=V1,V2,...: simt_blocktile_2d takes bm"},
      {{"sweep", "simt_naive", "--param", "bm=64"}, "unknown build parameter 'bm' for simt_naive: this kernel has no"},
      {{"sweep", "simt_blocktile_2d", "--param", "bm=64", "--sizes", "0"}, "'0' is not a problem size"},
      {{"sweep", "simt_blocktile_2d", "--param", "bm=64", "--machine", "h300"}, "--machine 'h300' is not a card"},
      {{"sweep", "simt_blocktile_2d", "--param", "bm=64", "--json", ""}, "'' is not a file name"},
      {{"sweep", "simt_blocktile_2d", "--param", "bm=64", "--csv", "/proc/x.csv"}, "/proc/x.csv"},
  };
  for (const Case& c : cases) {
    INFO(c.args.size() << " args, last " << c.args.back());
    const Run r = run(c.args);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Contains(c.message));
    CHECK(r.out.empty());
  }
}

TEST_CASE("cli sweep: --help lists the options", "[cli][sweep]") {
  const Run r = run({"sweep", "--help"});
  CHECK(r.code == 0);
  for (const char* opt : {"--param", "--sizes", "--gpu", "--json", "--csv", "--machine", "--reps", "Ctrl-C"})
    CHECK_THAT(r.out, Contains(opt));
  CHECK_THAT(run({"--help"}).out, Contains("sweep"));
}

TEST_CASE("cli sweep: a table sorted by speed, the invalid combinations, JSON and CSV", "[cli][sweep][model]") {
  const auto dir = scratch_dir("model");
  const std::string json = (dir / "s.json").string(), csv = (dir / "s.csv").string();
  // Step 04 at 512^3 over bm and tm: tm=4 makes 512 or 1024 threads, more than A's chunk has
  // rows for; tm=8 builds.
  const Run r = run({"sweep", "simt_blocktile_1d", "--param", "BM=32,64", "--param", "tm=4,8", "--size", "512", "--json",
                     json, "--csv", csv});
  INFO(r.err);
  REQUIRE(r.code == 0);
  // A progress line per combination on stderr.
  for (const char* line : {"[1/4] bm=32 tm=4 at 512x512x512: cannot be built: simt_blocktile_1d cannot be built with",
                           "[2/4] bm=32 tm=8 at 512x512x512: ", "[4/4] bm=64 tm=8 at 512x512x512: "})
    CHECK_THAT(r.err, Contains(line));
  CHECK_THAT(r.err, Contains("TFLOP/s predicted (bound by "));
  CHECK_THAT(r.out, Contains("simt_blocktile_1d at 512x512x512, predicted on H100 (sorted by predicted TFLOP/s)"));
  CHECK_THAT(r.out, Contains("2 combinations the kernel cannot build:"));
  CHECK_THAT(r.out, Contains("bm=64 tm=4 at 512x512x512: simt_blocktile_1d cannot be built with bk=8 bm=64 bn=64 tm=4: "
                             "the 1024 threads copy 128 rows of A's chunk a round, but it has bm=64"));

  const nlohmann::json j = nlohmann::json::parse(read_file(json));
  CHECK(j["kernel"] == "simt_blocktile_1d");
  CHECK(j["total"] == 4);
  CHECK(j["stopped"] == false);
  REQUIRE(j["points"].size() == 2);
  REQUIRE(j["invalid"].size() == 2);
  CHECK(j["points"][0]["predicted_tflops"].get<double>() >= j["points"][1]["predicted_tflops"].get<double>());
  for (const nlohmann::json& p : j["points"]) {
    CHECK(p["swept"]["tm"] == 8);
    CHECK(p["params"]["bn"] == 64);
    CHECK(p["bound"].is_string());
    CHECK(p["gpu"].is_null());
  }
  for (const nlohmann::json& p : j["invalid"]) CHECK_THAT(p["reason"].get<std::string>(), Contains("rows of A's chunk"));
  // The table's first row is the JSON's first point.
  const std::string first_bm = std::to_string(j["points"][0]["swept"]["bm"].get<int>());
  CHECK_THAT(r.out, Contains("     1  bm=" + first_bm + " tm=8"));

  // The CSV: a header and one line per combination, the valid ones first in the same order.
  std::istringstream lines(read_file(csv));
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  REQUIRE(rows.size() == 5);
  CHECK(rows[0].rfind("kernel,m,n,k,bm,tm,valid,predicted_tflops,bound,", 0) == 0);
  CHECK(rows[1].rfind("simt_blocktile_1d,512,512,512," + std::to_string(j["points"][0]["swept"]["bm"].get<int>()) +
                          ",8,yes,",
                      0) == 0);
  CHECK(rows[3].rfind("simt_blocktile_1d,512,512,512,32,4,no,,,,,,,,,", 0) == 0);
  CHECK(rows[4].rfind("simt_blocktile_1d,512,512,512,64,4,no,,,,,,,,,", 0) == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("cli sweep: the Hopper tile N against the ring's depth, a ring that does not fit named", "[cli][sweep][model]") {
  // Step 16's bn and stages: five stages of 48 KiB (bn=256) pass 227 KiB, five of 32 KiB (bn=128)
  // do not.
  const Run r = run({"sweep", "hopper_fewer_arrivals", "--param", "bn=128,256", "--param", "stages=4,5", "--size",
                     "256x512x128"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Contains("1 combination the kernel cannot build:"));
  CHECK_THAT(r.out, Contains("bn=256 stages=5 at 256x512x128: hopper_fewer_arrivals cannot be built with bn=256 "
                             "ctas=128 order=1 stages=5: 5 stages × (16 KiB of A + 32 KiB of B) = 240 KiB of shared "
                             "memory, more than the 227 KiB a CTA can have: at bn=256 take stages 2..4, or a smaller bn "
                             "(192: up to 5; 128: up to 7; 64: up to 9)"));
  for (const char* built : {"bn=128 stages=4", "bn=128 stages=5", "bn=256 stages=4"})
    CHECK_THAT(r.err, Contains(std::string(built) + " at 256x512x128: ") && Contains("TFLOP/s predicted"));
}

TEST_CASE("cli sweep: the same figure as sim --traced-cta-only for the same build", "[cli][sweep][model]") {
  const auto dir = scratch_dir("same");
  const std::string json = (dir / "s.json").string();
  const Run s = run({"sweep", "simt_blocktile_2d", "--param", "tn=4", "--param", "bk=16", "--size", "256x512x128",
                     "--json", json});
  REQUIRE(s.code == 0);
  const nlohmann::json j = nlohmann::json::parse(read_file(json));
  std::filesystem::remove_all(dir);
  REQUIRE(j["points"].size() == 1);
  const Run sim = run({"sim", "simt_blocktile_2d", "--param", "tn=4", "--param", "bk=16", "--m", "256", "--n", "512", "--k",
                       "128", "--traced-cta-only", "--json"});
  REQUIRE(sim.code == 0);
  const nlohmann::json one = nlohmann::json::parse(sim.out);
  CHECK(one["predicted_tflops"] == j["points"][0]["predicted_tflops"]);
  CHECK(one["prediction"]["bound"] == j["points"][0]["bound"]);
}

TEST_CASE("cli sweep: nothing that builds is a failed result naming why", "[cli][sweep]") {
  const Run r = run({"sweep", "simt_blocktile_1d", "--param", "tm=4", "--param", "bm=64,128", "--size", "256"});
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Contains("none of the 2 combinations can be built"));
  CHECK_THAT(r.out, Contains("2 combinations the kernel cannot build:"));
}

TEST_CASE("cli sweep: --gpu without a GPU gives the GPU commands' error and exit 3", "[cli][sweep]") {
  const Run devices = run({"devices"});
  if (devices.code != 3) {
    WARN("this machine has a GPU: the no-GPU path is not tested here");
    return;
  }
  const Run r = run({"sweep", "simt_blocktile_1d", "--param", "bm=32,64", "--size", "256", "--gpu"});
  CHECK(r.code == 3);
  CHECK(r.err == devices.err);  // the same reason, said the same way
  CHECK(r.out.empty());
}

TEST_CASE("cli sweep: Ctrl-C stops after the point under way and keeps the finished rows", "[cli][sweep][model]") {
  const auto dir = scratch_dir("interrupt");
  const std::string bin = GEMMSCOPE_CLI_PATH;
  const auto q = [](const std::filesystem::path& p) { return gs::test::shell_quote(p.string()); };
  // 45 combinations of step 07 at 2048^3: far more than finish before the first line appears.
  const std::string script =
      gs::test::shell_quote(bin) +
      " sweep simt_warptile --param bm=64,128,256 --param bn=64,128,256 --param bk=8,16,32,64,128 --size 2048 --json " +
      q(dir / "s.json") + " --csv " + q(dir / "s.csv") + " >" + q(dir / "out") + " 2>" + q(dir / "err") +
      " & pid=$!; i=0; while ! grep -q '^\\[2/45\\]' " + q(dir / "err") +
      " 2>/dev/null; do i=$((i+1)); [ $i -gt 3000 ] && break; sleep 0.1; done; kill -INT $pid; wait $pid; echo exit=$?";
  const gs::test::ShellRun r = gs::test::run_shell("sh -c " + gs::test::shell_quote(script));
  INFO(r.output << read_file(dir / "err"));
  CHECK_THAT(r.output, Contains("exit=130"));
  CHECK_THAT(read_file(dir / "err"), Contains("stopped by Ctrl-C: the finished points are kept"));
  const nlohmann::json j = nlohmann::json::parse(read_file(dir / "s.json"));
  CHECK(j["stopped"] == true);
  CHECK(j["total"] == 45);
  const size_t finished = j["points"].size() + j["invalid"].size();
  CHECK(finished >= 2);
  CHECK(finished < 45);
  std::istringstream lines(read_file(dir / "s.csv"));
  size_t rows = 0;
  for (std::string line; std::getline(lines, line);) ++rows;
  CHECK(rows == finished + 1);
  CHECK_THAT(read_file(dir / "out"), Contains("stopped after"));
  std::filesystem::remove_all(dir);
}
