// What a headless run does with inputs it cannot use (issue 27): a settings file never stops
// the app, a failed --import is a failed run with the reason on stderr, and a --layout-file
// that is not a layout is never written over.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "tests/gui/headless.hpp"
#include "tests/support/scratch.hpp"
#include "tests/support/shell.hpp"

using namespace gs::gui::test;
using Catch::Matchers::Contains;

namespace {

// `gemmscope gui --frame-stats ARGS` under Xvfb with its settings in `config` (XDG_CONFIG_HOME).
gs::test::ShellRun run_gui(const std::string& config, const std::string& args) {
  return gs::test::run_shell(std::string(kHeadlessEnv) + "XDG_CONFIG_HOME=" + gs::test::shell_quote(config) +
                             " xvfb-run -a -s '-screen 0 1280x1024x24' " +
                             gs::test::shell_quote(GEMMSCOPE_CLI_PATH) +
                             " gui --frame-stats --frames 1 --size 800x600 --view ladder " + args);
}

}  // namespace

TEST_CASE("headless: a settings file with values out of range or stale still starts the app", "[gui][xvfb]") {
  if (!xvfb_or_skip()) return;
  gs::test::ScratchDir dir;
  std::filesystem::create_directories(dir.dir / "gemmscope");
  // 1e-30 made ImGui assert (fonts of 0 pixels); a shape the kernel does not take made it exit 1.
  std::ofstream(dir.dir / "gemmscope" / "settings.json")
      << R"({"font_scale": 1e-30, "last_kernel": "hopper_tma_wgmma_64", "last_shape": [100, 100, 100],
            "play_speed": 1e-300, "bench_reps": 4294967297})";
  const gs::test::ShellRun r = run_gui(dir.dir.string(), "");
  INFO(r.output);
  CHECK(r.code == 0);
  CHECK_THAT(r.output, Contains("font_scale") && Contains("last_shape") && Contains("play_speed") &&
                           Contains("bench_reps") && Contains("settings were reset"));
}

TEST_CASE("headless: a bench file that cannot be imported is a failed run that says why", "[gui][xvfb]") {
  if (!xvfb_or_skip()) return;
  gs::test::ScratchDir dir;
  const std::string corrupt = dir.write("corrupt.json", "{\"results\": [");
  const std::string empty = dir.write("empty.json", "{\"results\": []}");
  for (const std::string& path : {dir.path("missing.json"), corrupt, empty}) {
    const gs::test::ShellRun r = run_gui(dir.path("config"), "--no-settings --import " + gs::test::shell_quote(path));
    INFO(r.output);
    CHECK(r.code == 2);
    CHECK_THAT(r.output, Contains("--import") && Contains(path));
  }
}

TEST_CASE("headless: a --layout-file that is not a layout is read as nothing and never replaced", "[gui][xvfb]") {
  if (!xvfb_or_skip()) return;
  gs::test::ScratchDir dir;
  const std::string png_bytes("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
  const std::string precious = dir.write("precious.png", png_bytes);
  const gs::test::ShellRun r = run_gui(dir.path("config"), "--no-settings --layout-file " + gs::test::shell_quote(precious));
  INFO(r.output);
  CHECK(r.code == 0);
  CHECK_THAT(r.output, Contains("is not a window layout"));
  CHECK(gs::test::read_file(precious) == png_bytes);
  // A folder that cannot hold it is refused before any work, like every other output.
  const gs::test::ShellRun missing =
      run_gui(dir.path("config"), "--no-settings --layout-file " + gs::test::shell_quote(dir.path("nowhere/x.ini")));
  CHECK(missing.code == 2);
  CHECK_THAT(missing.output, Contains("--layout-file"));
}

TEST_CASE("headless: advice is counted apart from the model's problems, and not promised from `sim`", "[gui][xvfb]") {
  if (!xvfb_or_skip()) return;
  gs::test::ScratchDir dir;
  // Step 07 at its example shape: no hazard, and advice on its 4-way bank conflicts.
  const gs::test::ShellRun r = run_gui(dir.path("config"), "--no-settings --kernel simt_warptile");
  INFO(r.output);
  CHECK(r.code == 0);
  CHECK_THAT(r.output, Contains("of performance advice (the Problems view lists"));
  CHECK_THAT(r.output, !Contains("so does `gemmscope sim`"));
}
