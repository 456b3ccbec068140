// `gemmscope gui`: the Dear ImGui app, and its headless mode for screenshots, frame times and
// the data behind each view (used by the GUI tests under Xvfb).
#include <charconv>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/cli.hpp"
#include "kernels/registry.hpp"

#ifdef GEMMSCOPE_HAVE_GUI
#include "gui/app/app.hpp"
#endif

namespace gs::cli {

#ifdef GEMMSCOPE_HAVE_GUI
namespace {

// "WxH" with positive integers.
std::pair<int, int> parse_size(const std::string& text) {
  const auto fail = [&] { return kernels::ConfigError(fmt::format("--size takes WxH (e.g. 1600x1000), got '{}'", text)); };
  const size_t x = text.find('x');
  if (x == std::string::npos) throw fail();
  int w = 0, h = 0;
  auto [p1, e1] = std::from_chars(text.data(), text.data() + x, w);
  auto [p2, e2] = std::from_chars(text.data() + x + 1, text.data() + text.size(), h);
  if (e1 != std::errc() || e2 != std::errc() || p1 != text.data() + x || p2 != text.data() + text.size() || w <= 0 ||
      h <= 0)
    throw fail();
  return {w, h};
}

gui::StepUnit parse_step_unit(const std::string& text) {
  for (auto u : {gui::StepUnit::event, gui::StepUnit::instruction, gui::StepUnit::warp_instruction,
                 gui::StepUnit::k_iteration, gui::StepUnit::barrier_phase}) {
    std::string name = gui::step_unit_name(u);
    for (char& c : name) c = c == ' ' ? '-' : char(std::tolower(c));
    if (name == text) return u;
  }
  throw kernels::ConfigError(fmt::format(
      "--step-unit '{}' is not a step unit: valid values are event, instruction, warp-instruction, k-iteration, "
      "barrier-phase",
      text));
}

}  // namespace
#endif

void add_gui_command(CLI::App& app, Streams io, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("gui", "Open the app (or, with --screenshot/--state-json/--frame-stats, render headless)");
  struct Opts {
    std::string screenshot, kernel, size = "1600x1000", state_json, step_unit = "instruction", theme;
    std::vector<std::string> views, mistakes, imports;
    int frames = 4, steps = 0, steps_per_frame = 0;
    uint32_t m = 0, n = 0, k = 0, select_line = 0;
    bool frame_stats = false, whole_grid = false, no_settings = false, no_text_runs = false, no_damage = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--screenshot", o->screenshot, "Render headless and write a PNG to this file")->type_name("FILE");
  cmd->add_option("--frames", o->frames, "Frames to render before the screenshot (default 4)");
  cmd->add_option("--kernel", o->kernel, "Kernel id to open (default: the last one used)")->type_name("ID");
  cmd->add_option("--m", o->m, "Rows of A and C (default: the kernel's example shape)");
  cmd->add_option("--n", o->n, "Columns of B and C");
  cmd->add_option("--k", o->k, "The reduction dimension");
  cmd->add_option("--break", o->mistakes, "Switch on one of the kernel's mistakes (repeatable)")
      ->delimiter(',')
      ->type_name("MISTAKE");
  cmd->add_option("--view", o->views,
                  "Show only this view (repeatable): ladder ptx transport warps smem tma fragments throughput "
                  "problems, or all (default)")
      ->delimiter(',')
      ->type_name("NAME");
  cmd->add_option("--size", o->size, "Window size (default 1600x1000)")->type_name("WxH");
  cmd->add_flag("--frame-stats", o->frame_stats, "Print the mean and p95 frame time (headless)");
  cmd->add_option("--state-json", o->state_json, "Write the data behind every view as JSON (headless)")->type_name("FILE");
  cmd->add_option("--steps", o->steps, "Step the playback this many times before rendering");
  cmd->add_option("--steps-per-frame", o->steps_per_frame,
                  "Headless: step the playback this many times at the start of every frame (frames while playing)");
  cmd->add_option("--step-unit", o->step_unit,
                  "Unit of --steps: event, instruction (default), warp-instruction, k-iteration, barrier-phase");
  cmd->add_option("--select-line", o->select_line, "Select this PTX line (1-based) and jump to its next execution");
  cmd->add_option("--theme", o->theme, "dark or light (default: the saved setting)");
  cmd->add_option("--import", o->imports, "Show the results of a `gemmscope bench --json` file (repeatable)")
      ->type_name("FILE");
  cmd->add_flag("--whole-grid", o->whole_grid, "Run the whole grid on the model when opening (a verdict), not one CTA");
  cmd->add_flag("--no-settings", o->no_settings, "Neither read nor write the saved settings and layout");
  cmd->add_flag("--no-text-runs", o->no_text_runs, "Draw every glyph as its own quad (same pixels, slower)")->group("");
  cmd->add_flag("--no-damage", o->no_damage, "Draw every frame in full, not only what changed (same pixels, slower)")
      ->group("");
  cmd->callback([o, io, &exit_code] {
#ifdef GEMMSCOPE_HAVE_GUI
    gui::AppOptions a;
    a.screenshot = o->screenshot;
    a.frames = o->frames;
    a.kernel_id = o->kernel;
    a.shape = {o->m, o->n, o->k};
    a.mistakes = {o->mistakes.begin(), o->mistakes.end()};
    for (const std::string& v : o->views) {
      if (v == "all") {
        a.views.clear();
        break;
      }
      gui::ViewId id;
      if (!gui::parse_view_name(v, id))
        throw kernels::ConfigError(fmt::format(
            "--view '{}' is not a view: valid names are ladder, ptx, transport, warps, smem, tma, fragments, "
            "throughput, problems, all",
            v));
      a.views.push_back(id);
    }
    std::tie(a.width, a.height) = parse_size(o->size);
    a.frame_stats = o->frame_stats;
    a.text_runs = !o->no_text_runs;
    a.state_json = o->state_json;
    if (o->steps < 0) throw kernels::ConfigError(fmt::format("--steps {} is negative: use 0 or more", o->steps));
    a.steps = o->steps;
    if (o->steps_per_frame < 0)
      throw kernels::ConfigError(fmt::format("--steps-per-frame {} is negative: use 0 or more", o->steps_per_frame));
    a.steps_per_frame = o->steps_per_frame;
    a.damage = !o->no_damage;
    a.step_unit = parse_step_unit(o->step_unit);
    a.select_line = o->select_line;
    if (!o->theme.empty()) {
      if (o->theme == "dark") a.theme = gui::Theme::dark;
      else if (o->theme == "light") a.theme = gui::Theme::light;
      else throw kernels::ConfigError(fmt::format("--theme '{}' is not a theme: use dark or light", o->theme));
    }
    a.import_json = o->imports;
    a.whole_grid = o->whole_grid;
    a.use_settings = !o->no_settings && o->screenshot.empty() && o->state_json.empty();
    exit_code = gui::run_app(a, io.out, io.err);
#else
    io.err << "gemmscope: this build has no GUI (it needs libglfw3-dev, libgl-dev, libimgui-dev and libstb-dev; "
              "./scripts/run installs them and rebuilds)\n";
    exit_code = kExitFailed;
#endif
  });
}

bool gui_available() {
#ifdef GEMMSCOPE_HAVE_GUI
  return gui::display_available();
#else
  return false;
#endif
}

int open_app_default(Streams io) {
#ifdef GEMMSCOPE_HAVE_GUI
  gui::AppOptions a;
  return gui::run_app(a, io.out, io.err);
#else
  (void)io;
  return kExitFailed;
#endif
}

}  // namespace gs::cli
