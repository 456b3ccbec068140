// The article's pictures a step's lesson offers (KernelInfo::pictures). A picture is declared
// as `gemmscope draw` takes it — a layout and its options, "wgmma-acc --n 64", "banks --pattern
// row-swizzled" — or as the `--view` name of a view that draws the step's own run ("schedule",
// "smem"). The layouts are values (no kernel runs), laid out here as Drawings from the same
// prepared data the views draw (svg_picture.hpp), so `gemmscope draw`, the lesson's picture
// window and a saved SVG are one picture. No ImGui.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gui/core/drawing.hpp"
#include "gui/core/settings.hpp"
#include "kernels/registry.hpp"

namespace gs::gui {

struct AppState;

// A layout `gemmscope draw` knows, with the options it takes.
struct DrawLayout {
  const char* name;  // "wgmma-acc"
  const char* what;  // "wgmma m64nNk16 f32 accumulator (D), 128 threads"
  std::vector<std::string> options;  // "--n"
};
const std::vector<DrawLayout>& draw_layouts();
const DrawLayout* find_draw_layout(std::string_view name);

// The layout options `draw` takes, with its defaults.
struct DrawOptions {
  std::string mode = "128B", pattern = "column";
  int n = 64, num = 4, x = 32, rows = 8;
  bool trans = false, by_warp = false;
};

// The picture of `layout` (a draw_layouts() name) with `o`. Throws kernels::ConfigError for a
// value the layout cannot take.
Drawing layout_drawing(std::string_view layout, const DrawOptions& o);

// One picture a step declares, read.
struct ArticlePicture {
  std::string text;             // as declared: "wgmma-acc --n 64"
  std::string layout;           // a draw layout, or "" for a view
  DrawOptions options;          // the layout's
  std::optional<ViewId> view;   // the view that draws it from the step's run
  std::string title;            // "wgmma m64nNk16 f32 accumulator (D), 128 threads" or the view's title
};

// Reads a declaration. Throws kernels::ConfigError naming the text and what is valid: an
// unknown layout or view, an option the layout does not take, a value that is not a number.
ArticlePicture parse_article_picture(std::string_view text);
// The step's pictures, read (its declarations are checked by the tests, so none throws).
std::vector<ArticlePicture> article_pictures(const kernels::KernelInfo& info);

// What the lesson's button for `p` does: a layout opens in the lesson's picture window
// (AppState::lesson_view), a view is brought to the front (AppState::raise_view), shown as a
// tab of More views when it was hidden.
void show_article_picture(AppState& app, const ArticlePicture& p);

}  // namespace gs::gui
