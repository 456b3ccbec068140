// `gemmscope gui`: the Dear ImGui app, and its headless mode for screenshots, frame times and
// the data behind each view (used by the GUI tests under Xvfb).
#include <algorithm>
#include <cctype>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/cli.hpp"
#include "cli/values.hpp"
#include "kernels/registry.hpp"
#include "run/run_time.hpp"

#ifdef GEMMSCOPE_HAVE_GUI
#include "gui/app/app.hpp"
#include "gui/core/picture.hpp"
#include "gui/core/settings.hpp"
#endif

namespace gs::cli {

#ifdef GEMMSCOPE_HAVE_GUI
namespace {

gui::StepUnit parse_step_unit(const std::string& text) {
  for (auto u : {gui::StepUnit::event, gui::StepUnit::instruction, gui::StepUnit::warp_instruction,
                 gui::StepUnit::k_iteration, gui::StepUnit::barrier_phase, gui::StepUnit::stop}) {
    std::string name = gui::step_unit_name(u);
    for (char& c : name) c = c == ' ' ? '-' : char(std::tolower(c));
    if (name == text) return u;
  }
  throw kernels::ConfigError(fmt::format(
      "--step-unit '{}' is not a step unit: valid values are event, instruction, warp-instruction, k-iteration, "
      "barrier-phase, stop",
      text));
}

}  // namespace
#endif

void add_gui_command(CLI::App& app, Streams io, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("gui", "Open the app (or, with --screenshot/--state-json/--frame-stats, render headless)");
  struct Opts {
    std::string show_picture;
    std::string screenshot, picture, kernel, size = "1600x1000", state_json, import_timeline, step_unit = "instruction", theme, layout_file, resize_to;
    std::vector<std::string> views, mistakes, imports, params, open_first;
    int frames = 4, steps = 0, steps_per_frame = 0;
    uint32_t m = 0, n = 0, k = 0, select_line = 0;
    bool frame_stats = false, whole_grid = false, allow_long = false, no_settings = false, no_text_runs = false, no_damage = false;
    std::string machine, throughput_tab, compare_with;
    std::vector<std::string> sweep_params;
    std::string sweep_size, sweep_import;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--screenshot", o->screenshot, "Render headless and write a PNG to this file")
      ->type_name("FILE")
      ->check(non_empty("a file name"));
  cmd->add_option("--frames", o->frames, "Frames to render before the screenshot (default 4)")
      ->check(whole_number(1, 100000, "number of frames"));
  cmd->add_option("--kernel", o->kernel, "Kernel id to open (default: the last one used)")
      ->type_name("ID")
      ->check(non_empty("a kernel id"));
  cmd->add_option("--open-first", o->open_first,
                  "Open this kernel first, as it ships, at the same shape (repeatable, in order), then --kernel: their "
                  "predictions stay in the Throughput view, whose Why faster tab compares neighbouring steps")
      ->type_name("ID")
      ->check(non_empty("a kernel id"));
  cmd->add_option("--throughput-tab", o->throughput_tab,
                  "The Throughput view's table to show first: predicted, why (why each step is faster), variants, "
                  "published (the Blackwell steps' predictions beside the public ladders' figures)")
      ->check(one_of({"predicted", "why", "variants", "published"}, "a Throughput table"));
  cmd->add_option("--compare-with", o->compare_with,
                  "The Compare view's A, what the kernel opened (B) is compared with: ID[:NAME=V,...][+MISTAKE], e.g. "
                  "hopper_producer_consumer:stages=2 or hopper_tma_wgmma_64+missing-init-fence")
      ->type_name("VARIANT")
      ->check(non_empty("a variant"));
  add_shape_options(cmd, o->m, o->n, o->k);
  cmd->add_option("--break", o->mistakes, "Switch on one of the kernel's mistakes (repeatable)")
      ->delimiter(',')
      ->type_name("MISTAKE")
      ->check(non_empty("a mistake name"));
  add_param_option(cmd, o->params);
  cmd->add_option("--machine", o->machine,
                  fmt::format("The card predictions are for: {} (default: the GPU found here where the model knows "
                              "it, else h100; a Blackwell step is predicted on the b200)",
                              model::timing::machine_keys()))
      ->type_name("CARD");
  std::vector<std::string> views;  // gui/core/views.def's names (none in a build without the app)
#ifdef GEMMSCOPE_HAVE_GUI
  for (size_t v = 0; v < size_t(gui::ViewId::count_); ++v) views.push_back(gui::view_name(gui::ViewId(v)));
#endif
  std::string names;
  for (const std::string& v : views) names += " " + v;
  views.push_back("all");
  cmd->add_option("--view", o->views,
                  "Show only this view (repeatable):" + names +
                      ", or all (every view in a window of its own); default: the focus layout, the step's lesson, "
                      "the ladder and the views its lesson needs, the others as tabs")
      ->delimiter(',')
      ->type_name("NAME")
      ->check(one_of(views, "a view"));
  cmd->add_option("--size", o->size, "Window size (default 1600x1000)")->type_name("WxH")->check(window_size_value());
  cmd->add_flag("--frame-stats", o->frame_stats, "Print the mean and p95 frame time (headless)");
  cmd->add_option("--state-json", o->state_json, "Write the data behind every view as JSON (headless)")
      ->type_name("FILE")
      ->check(non_empty("a file name"));
  cmd->add_option("--steps", o->steps, "Step the playback this many times before rendering")
      ->check(whole_number(0, 10000000, "number of steps"));
  cmd->add_option("--steps-per-frame", o->steps_per_frame,
                  "Headless: step the playback this many times at the start of every frame (frames while playing)")
      ->check(whole_number(0, 1000000, "number of steps per frame"));
  cmd->add_option("--step-unit", o->step_unit,
                  "Unit of --steps: event, instruction (default), warp-instruction, k-iteration, barrier-phase, "
                  "stop (the step's guided stops)")
      ->check(one_of({"event", "instruction", "warp-instruction", "k-iteration", "barrier-phase", "stop"},
                     "a step unit"));
  cmd->add_option("--show-picture", o->show_picture,
                  "Show one of the step's article pictures as its lesson's button does (as `list --json` prints "
                  "them, e.g. \"wgmma-acc --n 64\" or \"schedule\")")
      ->type_name("PICTURE");
  cmd->add_option("--select-line", o->select_line, "Select this PTX line (1-based) and jump to its next execution")
      ->check(whole_number(1, 10000000, "PTX line"));
  cmd->add_option("--theme", o->theme, "dark or light (default: the saved setting)")
      ->check(one_of({"dark", "light"}, "a theme"));
  cmd->add_option("--import", o->imports,
                  "Show the results of a `gemmscope bench --json` file (repeatable); a timeline (`bench --timeline`'s "
                  "JSON) goes to the Timeline view, as --import-timeline")
      ->type_name("FILE")
      ->check(non_empty("a file name"));
  cmd->add_option("--import-timeline", o->import_timeline,
                  "Show a timeline recorded on a GPU (`gemmscope bench ID --timeline FILE`, e.g. docs/results/"
                  "2026-11-27-h100-timeline/*.timeline.json) beside the model's in the Timeline view; without "
                  "--kernel (or with the recorded one and no shape) the recorded kernel opens at its shape")
      ->type_name("FILE")
      ->check(non_empty("a file name"));
  cmd->add_flag("--whole-grid", o->whole_grid, "Run the whole grid on the model when opening (a verdict), not one CTA");
  cmd->add_flag("--allow-long", o->allow_long,
                fmt::format("With --whole-grid: run a grid expected to take more than {} without asking (headless, "
                            "such a run is refused without it; in the app a question asks)",
                            run::duration_text(run::kLongRunSeconds)));
  cmd->add_flag("--no-settings", o->no_settings, "Neither read nor write the saved settings and layout");
  cmd->add_option("--layout-file", o->layout_file,
                  "Read the window layout from this imgui.ini file and save it there, instead of the saved one "
                  "(headless too: windows are then placed as in the app)")
      ->type_name("FILE")
      ->check(non_empty("a file name"));
  cmd->add_option("--resize-to", o->resize_to, "Headless: resize the window to WxH halfway through the frames")
      ->type_name("WxH")
      ->check(window_size_value())
      ->group("");
  cmd->add_option("--save-picture", o->picture,
                  "Headless: after the last frame save VIEW's window (or the whole window) as PNG, as File > Save "
                  "picture does; a FILE ending in .svg gets the view's SVG picture at the cursor (fragments, smem, "
                  "tmem, tiling, gpu, memory; smem:swizzle-grid for the swizzle grid)")
      ->type_name("VIEW[:PART]=FILE|window=FILE")
      ->check(non_empty("a view and a file"));
  CLI::Option* sweep_param_opt = cmd->add_option("--sweep-param", o->sweep_params,
                  "The Sweep view's parameter and values, NAME=V1,V2,... (at most two; e.g. bm=64,128): the sweep runs "
                  "on the model at the start (headless: to the end, before the first frame)")
      ->type_name("NAME=V1,V2,...")
      ->check(param_values_value());
  cmd->add_option("--sweep-import", o->sweep_import,
                  "Show a sweep run elsewhere in the Sweep view: a `gemmscope sweep --json` FILE (e.g. run with --gpu "
                  "on a machine with a GPU), at --sweep-size where the file has that size")
      ->type_name("FILE")
      ->check(non_empty("a file"))
      ->excludes(sweep_param_opt);
  cmd->add_option("--sweep-size", o->sweep_size, "The Sweep view's size: N for N×N×N, or MxNxK (default 4096)")
      ->type_name("N|MxNxK")
      ->check(bench_size_value());
  cmd->add_flag("--no-text-runs", o->no_text_runs, "Draw every glyph as its own quad (same pixels, slower)")->group("");
  cmd->add_flag("--no-damage", o->no_damage, "Draw every frame in full, not only what changed (same pixels, slower)")
      ->group("");
  cmd->callback([o, io, &exit_code] {
#ifdef GEMMSCOPE_HAVE_GUI
    gui::AppOptions a;
    a.screenshot = o->screenshot;
    a.frames = o->frames;
    a.kernel_id = o->kernel;
    for (const std::string& id : o->open_first) kernels::kernel_or_throw(id);  // an unknown id: exit 2, nothing opened
    a.open_first = o->open_first;
    a.throughput_tab = o->throughput_tab;
    if (!o->compare_with.empty()) a.compare_with = gui::parse_variant(o->compare_with);  // bad: exit 2, named
    a.shape = {o->m, o->n, o->k};
    a.mistakes = {o->mistakes.begin(), o->mistakes.end()};
    a.params = parse_params(o->params);
    if (!o->machine.empty()) a.machine = machine_key(o->machine);
    for (const std::string& v : o->views) {
      if (v == "all") {
        a.views.clear();
        a.all_views = true;
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
    std::tie(a.width, a.height) = parse_window_size(o->size);
    if (!o->resize_to.empty()) std::tie(a.resize_width, a.resize_height) = parse_window_size(o->resize_to);
    a.frame_stats = o->frame_stats;
    a.text_runs = !o->no_text_runs;
    a.state_json = o->state_json;
    a.steps = o->steps;  // the options' validators checked every value (cli/values.hpp)
    a.steps_per_frame = o->steps_per_frame;
    a.damage = !o->no_damage;
    a.step_unit = parse_step_unit(o->step_unit);
    a.select_line = o->select_line;
    a.show_picture = o->show_picture;
    if (!o->theme.empty()) a.theme = o->theme == "light" ? gui::Theme::light : gui::Theme::dark;
    a.import_json = o->imports;
    a.import_timeline = o->import_timeline;
    for (const std::string& text : o->sweep_params) {
      auto [name, values] = parse_param_values(text);
      a.sweep_axes.push_back({name, values});
    }
    if (!o->sweep_size.empty()) a.sweep_shape = parse_bench_size(o->sweep_size);
    a.sweep_import = o->sweep_import;
    a.whole_grid = o->whole_grid;
    a.allow_long = o->allow_long;
    a.use_settings = !o->no_settings && o->screenshot.empty() && o->state_json.empty() && o->picture.empty();
    a.layout_file = o->layout_file;
    if (!o->picture.empty()) {
      const size_t eq = o->picture.find('=');
      const std::string target = o->picture.substr(0, eq == std::string::npos ? 0 : eq);
      const size_t colon = target.find(':');
      const std::string view = target.substr(0, colon), part = colon == std::string::npos ? "" : target.substr(colon + 1);
      gui::ViewId id;
      if (eq == std::string::npos || eq + 1 == o->picture.size() || (view != "window" && !gui::parse_view_name(view, id)))
        throw kernels::ConfigError(fmt::format(
            "--save-picture '{}' is not VIEW=FILE: VIEW is window or a --view name, FILE the PNG (or .svg) to write",
            o->picture));
      a.picture = o->picture.substr(eq + 1);
      if (view != "window") a.picture_view = id;
      const bool svg = ends_with_suffix(a.picture, ".svg");
      if (svg || !part.empty()) {
        // The view's SVG pictures, by name with '-' for ' ' ("swizzle-grid").
        std::vector<std::string> parts = view == "window" ? std::vector<std::string>{} : gui::svg_pictures_of(id);
        std::string names;
        for (std::string& p : parts) {
          std::replace(p.begin(), p.end(), ' ', '-');
          names += (names.empty() ? "" : ", ") + p;
        }
        if (parts.empty())
          throw kernels::ConfigError(fmt::format(
              "--save-picture '{}': {} saves only as PNG; SVG pictures are those of the fragments, smem and tmem "
              "views", o->picture, view == "window" ? "the window" : "the " + view + " view"));
        if (!svg)
          throw kernels::ConfigError(fmt::format("--save-picture '{}': a picture part is written as SVG: name a .svg file",
                                                 o->picture));
        const size_t index = part.empty() ? 0 : size_t(std::find(parts.begin(), parts.end(), part) - parts.begin());
        if (index == parts.size())
          throw kernels::ConfigError(fmt::format("--save-picture '{}': the {} view has no picture '{}': choose {}",
                                                 o->picture, view, part, names));
        a.picture_svg_part = index;
      }
    }
    exit_code = gui::run_app(a, io.out, io.err);
#else
    // What can be checked without the GUI is: bad input is named (exit 2) in either build.
    if (!o->machine.empty()) machine_key(o->machine);
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
