// The command line: run in-process through run_cli, and once as the real binary.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "kernels/registry.hpp"
#include "tests/support/cli_run.hpp"
#include "tests/support/paths.hpp"

namespace {
using Run = gs::test::CliRun;
Run run(const std::vector<std::string>& args) { return gs::test::run_cli(args); }
}  // namespace

TEST_CASE("cli: list prints the ladder; --json is the registry", "[cli]") {
  Run r = run({"list"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("simt_naive") && Catch::Contains("hopper_tma_wgmma_64"));
  r = run({"list", "--json"});
  REQUIRE(r.code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  REQUIRE(j.is_array());
  REQUIRE(j.size() >= 2);
  for (const auto& k : j)
    for (const char* field : {"id", "title", "arch", "family", "step", "explanation", "tile", "example_shape",
                              "constraints", "mistakes", "delta", "dtypes", "b_layout"})
      CHECK(k.contains(field));
  // The ladder in step order: the naive kernel first; the Hopper step among the later ones.
  CHECK(j[0]["id"] == "simt_naive");
  const auto hopper = std::find_if(j.begin(), j.end(), [](const auto& k) { return k["id"] == "hopper_tma_wgmma_64"; });
  REQUIRE(hopper != j.end());
  CHECK((*hopper)["arch"] == "sm_90a");
  CHECK((*hopper)["family"] == "hopper");
  CHECK((*hopper)["tile"]["m"] == 64);
  CHECK((*hopper)["mistakes"].is_array());
}

TEST_CASE("cli: list --json names each step's focus views", "[cli][focus]") {
  const Run r = run({"list", "--json"});
  REQUIRE(r.code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  REQUIRE(j.size() == gs::kernels::all_kernels().size());
  for (const auto& k : j) {
    INFO(k["id"]);
    REQUIRE(k.contains("focus_views"));
    CHECK(k["focus_views"].is_array());
    CHECK(!k["focus_views"].empty());
    for (const auto& v : k["focus_views"]) CHECK(v.is_string());
  }
  // A step's own choice: step 02 teaches coalescing, step 20 tensor memory.
  const auto of = [&](const char* id) {
    for (const auto& k : j)
      if (k["id"] == id) return k["focus_views"];
    return nlohmann::json();
  };
  CHECK(of("simt_coalesced")[0] == "coalescing");
  CHECK(of("blackwell_tcgen05_basic")[0] == "tmem");
  CHECK(of("hopper_persistent")[0] == "schedule");
  // And its guided stops (kernels/stops.def, with their sentences) and the article's pictures.
  for (const auto& k : j) {
    INFO(k["id"]);
    REQUIRE(k["stops"].is_array());
    CHECK(!k["stops"].empty());
    for (const auto& s : k["stops"]) CHECK(s["sentence"].get<std::string>().size() > 40);
    CHECK(!k["pictures"].empty());
  }
  const auto field = [&](const char* id, const char* name) {
    for (const auto& k : j)
      if (k["id"] == id) return k[name];
    return nlohmann::json();
  };
  CHECK(field("hopper_tma_wgmma_64", "pictures") ==
        nlohmann::json({"swizzle --mode 128B", "wgmma-acc --n 64", "smem"}));
  const auto ldm = field("ampere_ldmatrix", "stops");
  CHECK(std::any_of(ldm.begin(), ldm.end(), [](const auto& s) {
    return s["name"] == "bank-conflict" && s["mistake"] == "unswizzled-ldmatrix";
  }));
}

TEST_CASE("cli: ptx prints to stdout or writes a file", "[cli]") {
  Run r = run({"ptx", "simt_naive", "--m", "40", "--n", "50", "--k", "60"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("//") && Catch::Contains(".target sm_80") && Catch::Contains(", %row, 40;"));
  const std::string path = (std::filesystem::temp_directory_path() / "gemmscope_cli_test.ptx").string();
  std::filesystem::remove(path);
  r = run({"ptx", "hopper_tma_wgmma_64", "--m", "4096", "--n", "4096", "--k", "8192", "-o", path});
  CHECK(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("wrote " + path));
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  CHECK_THAT(text.str(), Catch::Contains(".target sm_90a") && Catch::Contains("wgmma.mma_async"));
  CHECK(text.str().size() < 200 * 1024);
  std::filesystem::remove(path);
}

TEST_CASE("cli: ptx --timeline prints the kernel instrumented by the timeline pass", "[cli][timeline]") {
  const Run plain = run({"ptx", "hopper_producer_consumer"});
  const Run timed = run({"ptx", "hopper_producer_consumer", "--timeline"});
  REQUIRE(plain.code == 0);
  REQUIRE(timed.code == 0);
  CHECK(plain.out.find("timeline:") == std::string::npos);
  CHECK_THAT(timed.out, Catch::Contains("%globaltimer") && Catch::Contains("// timeline: mbar_wait_end") &&
                            Catch::Contains(".param .u64 timeline"));
  CHECK(timed.out.size() > plain.out.size());
}

TEST_CASE("cli: bad input exits 2 with a message naming the value", "[cli][errors]") {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases{
      {{"ptx", "nope"}, "unknown kernel id 'nope': valid ids are simt_naive, "},
      {{"ptx", "hopper_tma_wgmma_64", "--m", "100"}, "M=100 is not a positive multiple of 64"},
      {{"ptx", "hopper_tma_wgmma_64", "--k", "32"}, "K=32 is not a positive multiple of 64"},
      {{"ptx", "simt_naive", "--m", "abc"}, "--m"},
      {{"ptx", "simt_naive", "--m", "-4"}, "--m"},
      {{"ptx"}, "ID is required"},
      {{"frobnicate"}, "frobnicate"},
      {{"list", "--jsn"}, "--jsn"},
      {{"ptx", "hopper_two_consumers", "--param", "stages=10"}, "stages=10 is not a value hopper_two_consumers takes: choose one of 2, 3, 4, 5, 6, 7, 8, 9 (default 3)"},
      {{"ptx", "hopper_two_consumers", "--param", "stages=5"}, "at bn=256 take stages 2..4, or a smaller bn (192: up to 5; 128: up to 7; 64: up to 9)"},
      {{"ptx", "hopper_two_consumers", "--param", "stages"}, "'stages' is not a build parameter: give NAME=VALUE"},
      {{"ptx", "hopper_two_consumers", "--param", "stages=-1"}, "is not a build parameter"},
      {{"ptx", "hopper_two_consumers", "--param", "stages=2", "--param", "stages=3"}, "--param stages is given twice"},
      {{"sim", "simt_naive", "--param", "stages=2"}, "unknown build parameter 'stages' for simt_naive"},
      {{"bench", "hopper_two_consumers", "--param", "depth=2"}, "valid parameters are bn, stages"},
      // A flag takes no value: CLI11 read --json=1 (and --json=0, --json=no) and went on.
      {{"list", "--json=1"}, "--json is a flag and takes no value (got '--json=1')"},
      {{"list", "--json=0"}, "--json is a flag and takes no value"},
      {{"sim", "simt_naive", "--json=true"}, "--json is a flag and takes no value"},
      {{"ptx", "simt_naive", "--annotate=yes"}, "--annotate is a flag"},
      {{"--version=1"}, "--version is a flag"},
      // Options kept out of --help are named in messages too (they read "gemmscope: : '0x0' ...").
      {{"bench", "simt_naive", "--warmup", "x"}, "--warmup: 'x' is not a valid number of warm-up launches"},
      {{"gui", "--resize-to", "0x0"}, "--resize-to: '0x0' is not a window size"},
      {{"gui", "--machine", "a100"}, "--machine 'a100' is not a card the model knows; valid: h100, h200, b200"},
  };
  for (const Case& c : cases) {
    INFO(c.args.size() << " args, first " << c.args[0]);
    const Run r = run(c.args);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.message));
    CHECK(r.out.empty());
  }
}

TEST_CASE("cli: an option's --name=VALUE form still works where the name is a flag elsewhere", "[cli][errors]") {
  // bench's --json takes a file, while list's and sim's --json are flags.
  const Run r = run({"bench", "simt_naive", "--reps", "0", "--no-cublas", "--json=/dev/null"});
  CHECK_THAT(r.err, !Catch::Contains("takes no value"));
  CHECK(r.code != 2);
  const Run p = run({"ptx", "simt_naive", "--m=64", "--output=/dev/null"});
  CHECK(p.code == 0);
}

TEST_CASE("cli: --param sets a kernel's build parameter in ptx, sim and list", "[cli][params]") {
  // Four stages of 48 KiB instead of the default three: a different ring, different PTX.
  const Run three = run({"ptx", "hopper_two_consumers"});
  const Run four = run({"ptx", "hopper_two_consumers", "--param", "stages=4"});
  REQUIRE(three.code == 0);
  REQUIRE(four.code == 0);
  CHECK(four.out != three.out);
  CHECK(run({"ptx", "hopper_two_consumers", "--param", "stages=3"}).out == three.out);  // the default, named
  const Run sim = run({"sim", "hopper_producer_consumer", "--param", "stages=2", "--json"});
  REQUIRE(sim.code == 0);
  const nlohmann::json j = nlohmann::json::parse(sim.out);
  CHECK(j["params"] == nlohmann::json{{"bn", 128}, {"stages", 2}});  // every declared parameter, as built
  CHECK(j["ok"] == true);
  CHECK_THAT(run({"sim", "hopper_producer_consumer", "--param", "stages=3"}).out, Catch::Contains("stages=3"));
  const Run list = run({"list"});
  CHECK_THAT(list.out, Catch::Contains("--param stages=3 (default; takes 2, 3, 4, 5, 6, 7, 8, 9)"));
  CHECK_THAT(list.out, Catch::Contains("--param bn=256 (default; takes 64, 128, 192, 256)"));
  const nlohmann::json reg = nlohmann::json::parse(run({"list", "--json"}).out);
  const auto ring = std::find_if(reg.begin(), reg.end(), [](const auto& k) { return k["id"] == "hopper_producer_consumer"; });
  REQUIRE(ring != reg.end());
  CHECK((*ring)["params"][0]["name"] == "bn");
  CHECK((*ring)["params"][0]["default"] == 128);
  CHECK((*ring)["params"][1]["name"] == "stages");
  CHECK((*ring)["params"][1]["default"] == 4);
}

TEST_CASE("cli: a failed ptx -o leaves an existing file untouched", "[cli][errors]") {
  const std::string path = (std::filesystem::temp_directory_path() / "gemmscope_keep.ptx").string();
  std::ofstream(path) << "precious";
  const Run r = run({"ptx", "hopper_tma_wgmma_64", "--m", "65", "-o", path});
  CHECK(r.code == 2);
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  CHECK(s == "precious");
  std::filesystem::remove(path);
  // A path that cannot be written is bad input, found before the work (exit 2).
  const Run bad_dir = run({"ptx", "simt_naive", "-o", "/nonexistent-dir/k.ptx"});
  CHECK(bad_dir.code == 2);
  CHECK_THAT(bad_dir.err, Catch::Contains("'/nonexistent-dir/k.ptx': cannot write there: the folder "
                                          "'/nonexistent-dir' does not exist"));
}

TEST_CASE("cli: --help and --version", "[cli]") {
  Run r = run({"--help"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("list") && Catch::Contains("ptx") && Catch::Contains("Exit codes"));
  r = run({"--version"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("gemmscope "));
  r = run({"ptx", "--help"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("--m"));
  // The options for scripts stay out of the help.
  r = run({"bench", "--help"});
  CHECK_THAT(r.out, Catch::Contains("--sizes") && !Catch::Contains("--warmup") && !Catch::Contains("hidden"));
}

TEST_CASE("cli: the real binary's exit codes", "[cli]") {
  const std::string bin = gs::test::cli_binary();
  CHECK(WEXITSTATUS(std::system((bin + " list --json > /dev/null").c_str())) == 0);
  CHECK(WEXITSTATUS(std::system((bin + " ptx hopper_tma_wgmma_64 --n 7 > /dev/null 2>&1").c_str())) == 2);
}
