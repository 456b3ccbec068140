// `gemmscope draw`: a picture of one layout view for notes and slides, as SVG or PNG, from the
// same prepared data the app's views draw (gui/core/svg_picture.hpp lays it out as a Drawing;
// drawing.hpp writes the SVG, raster_picture.hpp the pixels, on the CPU: no display needed).
// The layouts are values, so no kernel is built or run.
//
//   gemmscope draw wgmma-acc --n 64 -o acc.svg
//   gemmscope draw swizzle --mode 128B -o swz.png          (the format from the name, or --png)
//   gemmscope draw ldmatrix --num 4 --trans --png --scale 3 -o ldm.png
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
#include "gui/app/assets.hpp"
#include "gui/core/article_pictures.hpp"
#include "gui/core/raster_picture.hpp"
#include "gui/core/svg_picture.hpp"
#endif

namespace gs::cli {

namespace {

#ifdef GEMMSCOPE_HAVE_GUI
// The layouts `draw` knows, with the options each one takes: the app's list (a step's lesson
// offers the same pictures, gui/core/article_pictures.hpp).
using gui::draw_layouts;
using gui::DrawLayout;
#else
// Without the app there is nothing to draw with: `draw` takes any name and says so.
struct DrawLayout {
  const char* name;
  const char* what;
  std::vector<std::string> options;
};
const std::vector<DrawLayout>& draw_layouts() {
  static const std::vector<DrawLayout> none;
  return none;
}
#endif

// The longest side of a PNG at the default scale, in pixels: the largest maps get a smaller
// scale rather than a picture no slide or viewer wants.
constexpr double kDefaultLongestSide = 8192;

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
  CLI::App* cmd =
      app.add_subcommand("draw", "Write a picture of a layout (fragment map, swizzle grid, banks) as SVG or PNG");
  struct Opts {
    std::string layout, output, mode = "128B", pattern = "column";
    int n = 64, num = 4, x = 32, rows = 8;
    double scale = 2.0;
    bool svg = false, png = false, trans = false, by_warp = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::Option* layout = cmd->add_option("LAYOUT", o->layout, "What to draw (below)")->required();
  if (!names.empty()) layout->check(one_of(names, "a layout"));
  cmd->add_option("-o,--output", o->output, "The file to write (replaced only once the picture is complete)")
      ->required()
      ->type_name("FILE")
      ->check(non_empty("a file name"));
  CLI::Option* svg = cmd->add_flag("--svg", o->svg, "Write SVG (the default, unless FILE ends in .png)");
  cmd->add_flag("--png", o->png, "Write PNG (the default when FILE ends in .png)")->excludes(svg);
  cmd->add_option("--scale", o->scale,
                  "PNG: pixels per picture unit, 0.25 to 8 (default 2, lowered for the largest maps so the longest "
                  "side stays within 8192 pixels)")
      ->check(number_in(0.25, 8.0, "a picture scale"));
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
              "Colours and labels are the app's; the PNG is the SVG's picture in pixels, drawn without a display "
              "(the font is DejaVu Sans Mono, from fonts-dejavu-core). A view of a running kernel: File > Save "
              "picture in the app.\n"
              "Exit codes: 0 written, 1 writing failed part way (a full disk) or no font for PNG, 2 bad usage or an -o "
              "path that cannot be written (a missing folder; nothing is written).");
  cmd->callback([o, cmd, io, &exit_code] {
#ifdef GEMMSCOPE_HAVE_GUI
    const DrawLayout& chosen =
        *std::find_if(draw_layouts().begin(), draw_layouts().end(), [&](const DrawLayout& l) { return o->layout == l.name; });
    for (const char* opt : kLayoutOptions)
      if (cmd->count(opt) > 0 && std::find(chosen.options.begin(), chosen.options.end(), opt) == chosen.options.end()) {
        std::string takes;
        for (const std::string& t : chosen.options) takes += (takes.empty() ? "" : ", ") + t;
        throw kernels::ConfigError(fmt::format("{} does not apply to {}: {} takes {}", opt, chosen.name, chosen.name,
                                               takes.empty() ? "no layout options" : takes));
      }
    // PNG when asked for, or when the file's name ends in .png and SVG was not asked for.
    const bool want_png = o->png || (ends_with_suffix(o->output, ".png") && !o->svg);
    if (cmd->count("--scale") > 0 && !want_png)
      throw kernels::ConfigError(fmt::format(
          "--scale {:g} applies to PNG pictures only: give --png (or a file name ending in .png), or leave it out", o->scale));
    gui::DrawOptions options;
    options.mode = o->mode;
    options.pattern = o->pattern;
    options.n = o->n;
    options.num = o->num;
    options.x = o->x;
    options.rows = o->rows;
    options.trans = o->trans;
    options.by_warp = o->by_warp;
    const gui::Drawing picture = gui::layout_drawing(chosen.name, options);
    if (!want_png) {
      run::OutputFile out(o->output, "-o");  // a bad path exits 2
      const std::string svg_text = gui::to_svg(picture);
      out.write(svg_text);
      if (!out.writes_through()) io.out << fmt::format("wrote {} ({} bytes of SVG)\n", o->output, svg_text.size());
      exit_code = kExitOk;
      return;
    }
    // The default scale gives way for the largest maps (wgmma-acc at N=256 is 8758 units wide);
    // a scale asked for is kept, or refused when the picture would be too large.
    double scale = o->scale;
    if (cmd->count("--scale") == 0) scale = std::min(scale, gui::largest_scale(picture, kDefaultLongestSide));
    const int width = gui::pixels_of(picture.width, scale), height = gui::pixels_of(picture.height, scale);
    if (std::max(width, height) > gui::kMaxPictureSide)
      throw kernels::ConfigError(fmt::format(
          "--scale {:g} makes this picture {}x{} pixels, more than {} on a side: give --scale {:.2f} or less, or write --svg",
          scale, width, height, gui::kMaxPictureSide, gui::largest_scale(picture, gui::kMaxPictureSide)));
    run::OutputFile out(o->output, "-o");  // a bad path exits 2, before the work
    const std::string font_path = gui::find_font("DejaVuSansMono.ttf");
    if (font_path.empty()) {
      io.err << "gemmscope: a PNG picture needs the font DejaVu Sans Mono (DejaVuSansMono.ttf), which is not installed: "
                "install fonts-dejavu-core, or write --svg\n";
      exit_code = kExitFailed;
      return;
    }
    const gui::RgbaImage image = gui::rasterize(picture, scale, gui::RasterFont(font_path));
    const std::string bytes = gui::png_bytes(image);
    out.write(bytes);
    if (!out.writes_through())
      io.out << fmt::format("wrote {} ({}x{} pixels at scale {:g}, {} bytes of PNG)\n", o->output, image.width,
                            image.height, scale, bytes.size());
    exit_code = kExitOk;
#else
    io.err << "gemmscope: `draw` needs the app's build (gui/core draws the pictures); this build has no GUI (it needs "
              "libglfw3-dev, libgl-dev, libimgui-dev and libstb-dev; ./scripts/run installs them and rebuilds)\n";
    exit_code = kExitFailed;
#endif
  });
}

}  // namespace gs::cli
