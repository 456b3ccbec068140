#include "gui/core/article_pictures.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "engine/layout/swizzle.hpp"
#include "gui/core/app_state.hpp"
#include "gui/core/svg_picture.hpp"

namespace gs::gui {

namespace {

using kernels::ConfigError;

std::string layout_names() {
  std::string names;
  for (const DrawLayout& l : draw_layouts()) names += (names.empty() ? "" : ", ") + std::string(l.name);
  return names;
}

std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < text.size()) {
    const size_t start = text.find_first_not_of(' ', i);
    if (start == std::string_view::npos) break;
    const size_t end = std::min(text.find(' ', start), text.size());
    words.emplace_back(text.substr(start, end - start));
    i = end;
  }
  return words;
}

int number_of(std::string_view text, std::string_view option, std::string_view picture) {
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    throw ConfigError(fmt::format("picture '{}': {} takes a whole number, not '{}'", picture, option, text));
  return v;
}

}  // namespace

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

const DrawLayout* find_draw_layout(std::string_view name) {
  for (const DrawLayout& l : draw_layouts())
    if (name == l.name) return &l;
  return nullptr;
}

Drawing layout_drawing(std::string_view name, const DrawOptions& o) {
  if (!find_draw_layout(name))
    throw ConfigError(fmt::format("'{}' is not a layout: valid layouts are {}", name, layout_names()));
  if (name == "swizzle") {
    const std::optional<layout::Swizzle> mode = layout::parse_swizzle(o.mode);
    if (!mode) throw ConfigError(fmt::format("--mode {} is not a swizzle mode: give none, 32B, 64B or 128B", o.mode));
    if (o.rows < 1 || o.rows > 64) throw ConfigError(fmt::format("--rows {} is not 1 to 64", o.rows));
    return swizzle_drawing(swizzle_grid(*mode, 0, uint32_t(o.rows)));
  }
  if (name == "banks") {
    const BankPattern p = o.pattern == "column"            ? BankPattern::column_unswizzled
                          : o.pattern == "row"             ? BankPattern::row_unswizzled
                          : o.pattern == "column-swizzled" ? BankPattern::column_swizzled
                          : o.pattern == "row-swizzled"    ? BankPattern::row_swizzled
                                                           : throw ConfigError(fmt::format(
                                                                 "--pattern {} is not a bank pattern: give column, "
                                                                 "row, column-swizzled or row-swizzled",
                                                                 o.pattern));
    return bank_drawing(constructed_access(p, 0));
  }
  if (o.n % 8 != 0 || o.n < 8 || o.n > 256)
    throw ConfigError(fmt::format("--n {} is not a wgmma N: give a multiple of 8 from 8 to 256", o.n));
  // The layout's name is the op traits' map id with dashes (op_traits.def); ldmatrix's
  // --trans picks the .trans row, and the one parameter comes from its option.
  FragmentViewOptions f;
  f.map = std::string(name);
  std::replace(f.map.begin(), f.map.end(), '-', '_');
  if (f.map == "ldmatrix" && o.trans) f.map = "ldmatrix_trans";
  f.param = name == "wgmma-acc" ? o.n : name == "ldmatrix" ? o.num : name == "tcgen05-32x32b" ? o.x : 0;
  f.color_by_thread = !o.by_warp;
  return fragment_drawing(fragment_grid(nullptr, f), f.color_by_thread);
}

ArticlePicture parse_article_picture(std::string_view text) {
  const std::vector<std::string> words = words_of(text);
  ArticlePicture p;
  p.text = std::string(text);
  if (words.empty()) throw ConfigError("an empty picture: give a layout (" + layout_names() + ") or a view's name");
  ViewId view{};
  if (parse_view_name(words[0], view)) {
    if (words.size() > 1)
      throw ConfigError(fmt::format("picture '{}': a view takes no options, only its name", text));
    p.view = view;
    p.title = fmt::format("the {} view of this step's run", view_title(view));
    return p;
  }
  const DrawLayout* l = find_draw_layout(words[0]);
  if (!l)
    throw ConfigError(fmt::format("picture '{}': '{}' is neither a layout ({}) nor a view", text, words[0],
                                  layout_names()));
  p.layout = l->name;
  p.title = l->what;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& opt = words[i];
    if (std::find(l->options.begin(), l->options.end(), opt) == l->options.end())
      throw ConfigError(fmt::format("picture '{}': {} does not apply to {}", text, opt, l->name));
    if (opt == "--trans") {
      p.options.trans = true;
      continue;
    }
    if (i + 1 >= words.size()) throw ConfigError(fmt::format("picture '{}': {} needs a value", text, opt));
    const std::string& v = words[++i];
    if (opt == "--n") p.options.n = number_of(v, opt, text);
    else if (opt == "--num") p.options.num = number_of(v, opt, text);
    else if (opt == "--x") p.options.x = number_of(v, opt, text);
    else if (opt == "--rows") p.options.rows = number_of(v, opt, text);
    else if (opt == "--mode") p.options.mode = v;
    else if (opt == "--pattern") p.options.pattern = v;
  }
  return p;
}

std::vector<ArticlePicture> article_pictures(const kernels::KernelInfo& info) {
  std::vector<ArticlePicture> pictures;
  for (const std::string& text : info.pictures) pictures.push_back(parse_article_picture(text));
  return pictures;
}

void show_article_picture(AppState& app, const ArticlePicture& p) {
  if (p.view) {
    app.settings.show[size_t(*p.view)] = true;
    app.raise_view = p.view;
    app.lesson_view.picture.clear();
    return;
  }
  app.lesson_view.picture = p.text;
}

}  // namespace gs::gui
