// The article's pictures a step's lesson offers (gui/core/article_pictures.hpp): every step's
// declarations read as a `gemmscope draw` layout with its options or a view, every layout one
// draws, and `list --json` prints them with the step's stops.
#include <catch2/catch.hpp>

#include <algorithm>
#include <variant>

#include "gui/core/article_pictures.hpp"
#include "kernels/registry_json.hpp"

using namespace gs::gui;

TEST_CASE("article pictures: every step declares pictures that read and draw", "[gui][lesson][pictures]") {
  size_t layouts = 0, views = 0;
  for (const gs::kernels::KernelInfo& info : gs::kernels::all_kernels()) {
    INFO(info.id);
    CHECK_FALSE(info.pictures.empty());
    for (const std::string& text : info.pictures) {
      INFO(text);
      const ArticlePicture p = parse_article_picture(text);
      CHECK(p.text == text);
      CHECK_FALSE(p.title.empty());
      REQUIRE(p.view.has_value() != !p.layout.empty());
      if (p.view) {
        ++views;
        CHECK(*p.view != ViewId::lesson);
        continue;
      }
      ++layouts;
      const Drawing d = layout_drawing(p.layout, p.options);
      CHECK(d.width > 0);
      CHECK(d.height > 0);
      // A picture of cells: many filled rectangles, not a blank page.
      const auto cells = std::count_if(d.shapes.begin(), d.shapes.end(), [](const Drawing::Shape& s) {
        const auto* r = std::get_if<Drawing::Rect>(&s);
        return r && r->fill;
      });
      CHECK(cells >= 32);
    }
  }
  CHECK(layouts >= 10);
  CHECK(views >= 10);
}

TEST_CASE("article pictures: a declaration's options reach the picture", "[gui][lesson][pictures]") {
  const ArticlePicture acc = parse_article_picture("wgmma-acc --n 128");
  CHECK(acc.layout == "wgmma-acc");
  CHECK(acc.options.n == 128);
  // N = 128 has twice the columns of N = 64: a wider picture.
  const Drawing wide = layout_drawing("wgmma-acc", acc.options);
  const Drawing narrow = layout_drawing("wgmma-acc", parse_article_picture("wgmma-acc --n 64").options);
  CHECK(wide.width > 1.5 * narrow.width);
  const ArticlePicture banks = parse_article_picture("banks --pattern row-swizzled");
  CHECK(banks.options.pattern == "row-swizzled");
  const ArticlePicture ldm = parse_article_picture("ldmatrix --num 2 --trans");
  CHECK(ldm.options.num == 2);
  CHECK(ldm.options.trans);
  const ArticlePicture view = parse_article_picture("schedule");
  REQUIRE(view.view);
  CHECK(*view.view == ViewId::schedule);
}

TEST_CASE("article pictures: a bad declaration says what is wrong and what is valid", "[gui][lesson][pictures]") {
  using Catch::Contains;
  CHECK_THROWS_WITH(parse_article_picture("nope"), Contains("'nope' is neither a layout") && Contains("wgmma-acc"));
  CHECK_THROWS_WITH(parse_article_picture("swizzle --n 64"), Contains("--n does not apply to swizzle"));
  CHECK_THROWS_WITH(parse_article_picture("wgmma-acc --n"), Contains("--n needs a value"));
  CHECK_THROWS_WITH(parse_article_picture("wgmma-acc --n big"), Contains("whole number, not 'big'"));
  CHECK_THROWS_WITH(parse_article_picture("schedule --n 8"), Contains("a view takes no options"));
  CHECK_THROWS_WITH(layout_drawing("wgmma-acc", DrawOptions{.n = 12}), Contains("--n 12 is not a wgmma N"));
  CHECK_THROWS_WITH(layout_drawing("banks", DrawOptions{.pattern = "diagonal"}), Contains("not a bank pattern"));
  CHECK_THROWS_AS(parse_article_picture(""), gs::kernels::ConfigError);
}

TEST_CASE("list --json: each step's stops and pictures as it declares them", "[gui][lesson][pictures][stops]") {
  const nlohmann::json all = gs::kernels::registry_json();
  const auto steps = gs::kernels::all_kernels();
  REQUIRE(all.size() == steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    INFO(steps[i].id);
    CHECK(all[i]["pictures"] == nlohmann::json(steps[i].pictures));
    REQUIRE(all[i]["stops"].size() == steps[i].stops.size());
    CHECK_FALSE(steps[i].stops.empty());
    for (size_t s = 0; s < steps[i].stops.size(); ++s) {
      const auto& kind = gs::kernels::stop_kind_info(steps[i].stops[s].kind);
      CHECK(all[i]["stops"][s]["name"] == std::string(kind.name));
      CHECK(all[i]["stops"][s]["sentence"] == std::string(kind.sentence));
      CHECK(all[i]["stops"][s]["mistake"] == steps[i].stops[s].mistake);
    }
  }
}
