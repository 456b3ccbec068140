// `gemmscope draw`: a picture of one layout view for notes and slides, as SVG, from the same
// prepared data the app's views draw (gui/core/svg_picture.hpp). The layouts are values, so
// no kernel is built or run.
//
//   gemmscope draw wgmma-acc --n 64 -o acc.svg
//   gemmscope draw swizzle --mode 128B -o swz.svg
//   gemmscope draw ldmatrix --num 4 --trans -o ldm.svg
//
// The writers live in gui/core, which a build without the app does not compile: there `draw`
// says so and exits 1, like `gemmscope gui`.
#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/cli.hpp"
#include "cli/values.hpp"
#include "run/output_file.hpp"

#ifdef GEMMSCOPE_HAVE_GUI
#include "gui/core/svg_picture.hpp"
#endif

namespace gs::cli {

namespace {

// The layouts `draw` knows, with the options each one takes.
struct DrawLayout {
  const char* name;
  const char* what;
  std::vector<std::string> options;
};

const std::vector<DrawLayout>& draw_layouts() {
  static const std::vector<DrawLayout> layouts = {
      {"wgmma-acc", "wgmma m64nNk16 f32 accumulator (D), 128 threads", {"--n"}},
      {"wgmma-a", "wgmma register A (m64k16 bf16), 128 threads", {}},
      {"mma-a", "mma.sync m16n8k16 A, one warp", {}},
      {"mma-b", "mma.sync m16n8k16 B, one warp", {}},
      {"mma-c", "mma.sync m16n8k16 C/D, one warp", {}},
      {"ldmatrix", "ldmatrix m8n8 .x1/.x2/.x4 (.trans), one warp", {"--num", "--trans"}},
      {"tcgen05-32x32b", "tcgen05.ld 32x32b.xN (CUTLASS only, not checked on hardware)", {"--x"}},
      {"swizzle", "the swizzle grid: 16-byte chunks of shared-memory rows", {"--mode", "--rows"}},
      {"banks", "the 32 banks of one warp's 16-byte shared-memory access", {"--pattern"}},
  };
  return layouts;
}

// Every option that belongs to some layouts only; given to another, it is a mistake (exit 2),
// never silently ignored.
constexpr const char* kLayoutOptions[] = {"--n", "--num", "--trans", "--x", "--mode", "--rows", "--pattern"};

}  // namespace

void add_draw_command(CLI::App& app, Streams io, int& exit_code) {
  std::vector<std::string> names;
  std::string list;
  for (const DrawLayout& l : draw_layouts()) {
    names.push_back(l.name);
    list += fmt::format("  {:<15} {}\n", l.name, l.what);
  }
  CLI::App* cmd = app.add_subcommand("draw", "Write a picture of a layout (fragment map, swizzle grid, banks) as SVG");
  struct Opts {
    std::string layout, output, mode = "128B", pattern = "column";
    int n = 64, num = 4, x = 32, rows = 8;
    bool svg = false, png = false, trans = false, by_warp = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("LAYOUT", o->layout, "What to draw (below)")->required()->check(one_of(names, "a layout"));
  cmd->add_option("-o,--output", o->output, "The file to write (replaced only once the picture is complete)")
      ->required()
      ->type_name("FILE")
      ->check(non_empty("a file name"));
  CLI::Option* svg = cmd->add_flag("--svg", o->svg, "Write SVG (the default)");
  cmd->add_flag("--png", o->png, "Write PNG (not from the command line yet: see below)")->excludes(svg);
  cmd->add_option("--n", o->n, "wgmma-acc: the wgmma's N, 8 to 256 in steps of 8 (default 64)")
      ->check(whole_number(8, 256, "wgmma N"));
  cmd->add_option("--num", o->num, "ldmatrix: matrices per instruction, 1, 2 or 4 (default 4)")
      ->check(one_of({"1", "2", "4"}, "an ldmatrix .num"));
  cmd->add_flag("--trans", o->trans, "ldmatrix: the .trans form");
  cmd->add_option("--x", o->x, "tcgen05-32x32b: the repeat .xN, a power of two from 1 to 128 (default 32)")
      ->check(one_of({"1", "2", "4", "8", "16", "32", "64", "128"}, "a tcgen05.ld repeat"));
  cmd->add_option("--mode", o->mode, "swizzle: none, 32B, 64B or 128B (default 128B)")
      ->check(one_of({"none", "32B", "64B", "128B"}, "a swizzle mode"));
  cmd->add_option("--rows", o->rows, "swizzle: rows to draw, 1 to 64 (default 8, one repeat of 128B)")
      ->check(whole_number(1, 64, "number of rows"));
  cmd->add_option("--pattern", o->pattern,
                  "banks: column (lane l reads row l), row (lanes 8p..8p+7 read row p), column-swizzled or "
                  "row-swizzled (128B swizzle); rows of 128 B (default column)")
      ->check(one_of({"column", "row", "column-swizzled", "row-swizzled"}, "a bank pattern"));
  cmd->add_flag("--by-warp", o->by_warp, "Fragment maps: colour by warp only (default: by thread, lighter = higher lane)");
  cmd->footer("Layouts:\n" + list +
              "Colours and labels are the app's. PNG: open the view in the app and use File > Save picture, or "
              "`gemmscope gui --screenshot FILE --view fragments`; or convert the SVG (e.g. rsvg-convert).\n"
              "Exit codes: 0 written, 1 the file could not be written, 2 bad usage (nothing is written).");
  cmd->callback([o, cmd, io, &exit_code] {
    const DrawLayout& chosen =
        *std::find_if(draw_layouts().begin(), draw_layouts().end(), [&](const DrawLayout& l) { return o->layout == l.name; });
    for (const char* opt : kLayoutOptions)
      if (cmd->count(opt) > 0 && std::find(chosen.options.begin(), chosen.options.end(), opt) == chosen.options.end()) {
        std::string takes;
        for (const std::string& t : chosen.options) takes += (takes.empty() ? "" : ", ") + t;
        throw kernels::ConfigError(fmt::format("{} does not apply to {}: {} takes {}", opt, chosen.name, chosen.name,
                                               takes.empty() ? "no layout options" : takes));
      }
    if (o->n % 8 != 0)
      throw kernels::ConfigError(fmt::format("--n {} is not a wgmma N: give a multiple of 8 from 8 to 256", o->n));
    if (o->png)
      throw kernels::ConfigError(
          "--png is not available from the command line: write --svg and convert it (rsvg-convert -o out.png "
          "in.svg), or save the view from the app with File > Save picture");
#ifdef GEMMSCOPE_HAVE_GUI
    run::OutputFile out(o->output, "-o");  // checked before the work: a bad path exits 2
    const std::string name = chosen.name;
    std::string svg_text;
    if (name == "swizzle") {
      svg_text = gui::swizzle_svg(gui::swizzle_grid(*layout::parse_swizzle(o->mode), 0, uint32_t(o->rows)));
    } else if (name == "banks") {
      const gui::BankPattern p = o->pattern == "column"            ? gui::BankPattern::column_unswizzled
                                 : o->pattern == "row"             ? gui::BankPattern::row_unswizzled
                                 : o->pattern == "column-swizzled" ? gui::BankPattern::column_swizzled
                                                                   : gui::BankPattern::row_swizzled;
      svg_text = gui::bank_svg(gui::constructed_access(p, 0));
    } else {
      gui::FragmentViewOptions f;
      f.kind = name == "wgmma-acc" ? gui::FragmentMapKind::wgmma_accumulator
               : name == "wgmma-a" ? gui::FragmentMapKind::wgmma_a_register
               : name == "mma-a"   ? gui::FragmentMapKind::mma_a
               : name == "mma-b"   ? gui::FragmentMapKind::mma_b
               : name == "mma-c"   ? gui::FragmentMapKind::mma_c
               : name == "ldmatrix" ? gui::FragmentMapKind::ldmatrix
                                    : gui::FragmentMapKind::tcgen05_32x32b;
      f.wgmma_n = o->n;
      f.ldmatrix_x = o->num;
      f.ldmatrix_trans = o->trans;
      f.tcgen05_x = o->x;
      f.color_by_thread = !o->by_warp;
      svg_text = gui::fragment_svg(gui::fragment_grid(nullptr, f), f.color_by_thread);
    }
    out.write(svg_text);
    if (!out.writes_through()) io.out << fmt::format("wrote {} ({} bytes of SVG)\n", o->output, svg_text.size());
    exit_code = kExitOk;
#else
    io.err << "gemmscope: `draw` needs the app's build (gui/core draws the pictures); this build has no GUI (it needs "
              "libglfw3-dev, libgl-dev, libimgui-dev and libstb-dev; ./scripts/run installs them and rebuilds)\n";
    exit_code = kExitFailed;
#endif
  });
}

}  // namespace gs::cli
