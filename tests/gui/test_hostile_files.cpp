// Outside data the app reads (issue 15): bench JSON imports and the settings file are bounded
// in size and nesting, and their values are checked field by field, so no file can crash the
// app (a 50000-deep array overflowed the stack of the old recursive import), hang it (a FIFO)
// or put absurd numbers in the table and the plots.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include "gui/core/measurements.hpp"
#include "gui/core/settings.hpp"
#include "run/input_file.hpp"
#include "tests/support/scratch.hpp"

using namespace gs;
using namespace gs::gui;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

using Scratch = gs::test::ScratchDir;

template <typename F>
std::string thrown(F&& f) {
  return gs::test::thrown_message(std::forward<F>(f));
}

std::string nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

}  // namespace

TEST_CASE("bench import: JSON nested 100000 deep is a clear error, not a stack overflow", "[gui][import]") {
  Scratch s;
  Measurements m;
  const std::string bare = s.write("deep.json", nested(100000));
  CHECK_THAT(thrown([&] { m.import_file(bare, 0.0); }), Contains(bare) && Contains("nested more than"));
  const std::string report = s.write("deep-report.json", "{\"results\": " + nested(100000) + "}");
  CHECK_THAT(thrown([&] { m.import_file(report, 0.0); }), Contains("nested more than"));
  // Nesting the format never has, under the limit, is refused by shape without any recursion.
  CHECK_THAT(thrown([&] { m.add_bench_json(nlohmann::json::parse(nested(12)), MeasurementSource::imported, 0.0); }),
             Contains("expected an object"));
  CHECK(m.variants.empty());
}

TEST_CASE("bench import: implausible values are refused with a message per field", "[gui][import]") {
  const nlohmann::json good = {{"kernel", "simt_naive"},
                               {"shape", {{"m", 256}, {"n", 256}, {"k", 128}}},
                               {"tflops", {{"median", 1.5}}},
                               {"cublas_tflops", 3.0}};
  struct Case {
    const char* field;
    nlohmann::json value;
    const char* message;
  };
  const std::vector<Case> cases{
      {"/tflops/median", 1e308, "'median' = 1e+308 TFLOP/s is not plausible"},
      {"/tflops/median", -2.0, "'median' = -2.0 TFLOP/s is not plausible"},
      {"/tflops/median", 0, "'median' = 0 TFLOP/s is not plausible"},
      {"/cublas_tflops", 1e300, "'cublas_tflops' = 1e+300 TFLOP/s is not plausible"},
      {"/shape/n", -1, "shape: 'n' = -1 is not a valid N: give an integer from 1 to 1048576"},
      {"/shape/m", 1e20, "shape: 'm' = 1e+20 is not a valid M"},
      {"/shape/k", 0, "shape: 'k' = 0 is not a valid K"},
      {"/shape/m", 4294967297u, "'m' = 4294967297 is not a valid M"},
      {"/shape/m", 64.5, "'m' = 64.5 is not a valid M"},
      {"/kernel", "", "'kernel' should be a kernel id"},
      {"/kernel", std::string(5000, 'x'), "'kernel' should be a kernel id (1 to 200 characters)"},
  };
  for (const Case& c : cases) {
    INFO(c.field << " = " << c.value.dump());
    nlohmann::json j = good;
    j[nlohmann::json::json_pointer(c.field)] = c.value;
    Measurements m;
    CHECK_THAT(thrown([&] { m.add_bench_json(j, MeasurementSource::imported, 0.0); }), Contains(c.message));
    // In a report, the message says which result.
    Measurements in_report;
    const nlohmann::json report = {{"results", {good, j}}};
    CHECK_THAT(thrown([&] { in_report.add_bench_json(report, MeasurementSource::imported, 0.0); }),
               Contains("results[1]"));
    CHECK(m.variants.empty());
    CHECK(in_report.variants.empty());  // one bad result adds nothing of the file
  }
  // A device description with absurd figures is refused too (it sets the roofline).
  Measurements m;
  nlohmann::json with_device = {{"device", {{"name", "GPU"}, {"sms", 1e12}, {"cc_major", 9}}}, {"results", {good}}};
  CHECK_THAT(thrown([&] { m.add_bench_json(with_device, MeasurementSource::imported, 0.0); }),
             Contains("device: 'sms' = 1000000000000.0 is not plausible"));
  CHECK(m.ceilings.tensor_tflops == DeviceCeilings{}.tensor_tflops);
}

TEST_CASE("bench import: oversized files, FIFOs and devices are read with limits", "[gui][import]") {
  Scratch s;
  Measurements m;
  const std::string huge = s.write("huge.json", "[" + std::string(17 << 20, ' ') + "]");
  CHECK_THAT(thrown([&] { m.import_file(huge, 0.0); }), Contains(huge) && Contains("more than the 16.0 MiB"));
  CHECK_THAT(thrown([&] { m.import_file("/dev/zero", 0.0); }), Contains("/dev/zero") && Contains("more than"));
  CHECK_THAT(thrown([&] { m.import_file("/dev/null", 0.0); }), Contains("/dev/null") && Contains("not valid JSON"));
  // A FIFO nobody writes reads as empty at once instead of blocking the app.
  const std::string fifo = (s.dir / "fifo").string();
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THAT(thrown([&] { m.import_file(fifo, 0.0); }), Contains("not valid JSON"));
  CHECK(m.variants.empty());
}

TEST_CASE("settings: a deep, huge or absurd settings file falls back to defaults with a warning", "[gui][settings]") {
  Scratch s;
  const std::string dir = s.dir.string();
  std::string warnings;
  s.write("settings.json", "{\"views\": " + nested(100000) + "}");
  Settings loaded = load_settings(dir, &warnings);
  CHECK_THAT(warnings, Contains("nested more than"));
  CHECK(loaded.theme == Theme::dark);

  warnings.clear();
  s.write("settings.json", R"({"last_shape": [4294967295, 64, 64], "last_kernel": ")" + std::string(10000, 'x') + "\"}");
  loaded = load_settings(dir, &warnings);
  CHECK_THAT(warnings, Contains("last_shape") && Contains("last_kernel"));
  CHECK(loaded.last_m == 0);
  CHECK(loaded.last_kernel == Settings::defaults().last_kernel);

  warnings.clear();
  s.write("settings.json", std::string(2 << 20, ' '));
  loaded = load_settings(dir, &warnings);
  CHECK_THAT(warnings, Contains("more than"));

  // A settings file that is a FIFO is not waited on.
  fs::remove(s.dir / "settings.json");
  REQUIRE(mkfifo((s.dir / "settings.json").c_str(), 0600) == 0);
  warnings.clear();
  loaded = load_settings(dir, &warnings);
  CHECK_THAT(warnings, Contains("not a regular file"));
}

TEST_CASE("settings: saving through a symbolic link keeps the link", "[gui][settings]") {
  Scratch s;
  fs::create_directories(s.dir / "dotfiles");
  fs::create_directories(s.dir / "config");
  s.write("dotfiles/settings.json", "{}");
  fs::create_symlink(s.dir / "dotfiles" / "settings.json", s.dir / "config" / "settings.json");
  Settings settings = Settings::defaults();
  settings.theme = Theme::light;
  std::string error;
  REQUIRE(save_settings(settings, (s.dir / "config").string(), &error));
  CHECK(fs::is_symlink(s.dir / "config" / "settings.json"));
  std::string warnings;
  CHECK(load_settings((s.dir / "dotfiles").string(), &warnings).theme == Theme::light);
  CHECK(warnings.empty());
}

TEST_CASE("bounded JSON parsing: the depth limit counts containers, and errors say where", "[run][input]") {
  CHECK(run::parse_json_bounded(nested(4), 4).is_array());
  CHECK_THAT(thrown([] { run::parse_json_bounded(nested(5), 4); }), Contains("nested more than 4 levels deep"));
  CHECK_THAT(thrown([] { run::parse_json_bounded("{\"a\": [1, 2", 8); }), Contains("not valid JSON") && Contains("line 1"));
  CHECK_THAT(thrown([] { run::parse_json_bounded("", 8); }), Contains("not valid JSON"));
}
