// Tests for gui/core/svg_picture: the pictures are well-formed XML (read by the strict reader
// of tests/support/xml_check.hpp) and show what the views show: every cell's owner, label and
// colour. Owners are computed here from the PTX ISA's formulas (facts §1.5, §3, §8), not read
// back from the code under test; colours from gui/core/colors.hpp, which the views use too.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "gui/core/colors.hpp"
#include "gui/core/fragments_data.hpp"
#include "gui/core/shared_memory_data.hpp"
#include "gui/core/svg_picture.hpp"
#include "tests/support/xml_check.hpp"

using namespace gs;
using namespace gs::gui;
using gs::test::parse_xml;
using gs::test::XmlElement;

namespace {

std::vector<const XmlElement*> cells_of(const std::vector<XmlElement>& doc) {
  std::vector<const XmlElement*> cells;
  for (const XmlElement& e : doc)
    if (e.name == "rect" && e.attr("class") == "cell") cells.push_back(&e);
  return cells;
}

std::multiset<std::string> texts_of(const std::vector<XmlElement>& doc) {
  std::multiset<std::string> t;
  for (const XmlElement& e : doc)
    if (e.name == "text") t.insert(e.text);
  return t;
}

FragmentGrid grid(const char* map, int n = 0) {
  FragmentViewOptions o;
  o.map = map;
  o.param = n;
  return fragment_grid(nullptr, o);
}

}  // namespace

TEST_CASE("svg: the XML reader accepts well-formed documents and rejects broken ones", "[svg]") {
  CHECK(parse_xml("<?xml version=\"1.0\"?>\n<a x='1'><b y=\"&lt;2&gt;\"/>t &amp; u</a>\n").size() == 2);
  CHECK(parse_xml("<a x='1'>t &amp; u</a>")[0].text == "t & u");
  CHECK_THROWS(parse_xml("<a><b></a>"));        // crossed tags
  CHECK_THROWS(parse_xml("<a><b></c></a>"));    // an end tag of another name
  CHECK_THROWS(parse_xml("<a>x & y</a>"));      // a bare ampersand
  CHECK_THROWS(parse_xml("<a x=1/>"));          // an unquoted attribute
  CHECK_THROWS(parse_xml("<a x='1' x='2'/>"));  // an attribute twice
  CHECK_THROWS(parse_xml("<a>"));               // not closed
  CHECK_THROWS(parse_xml("<a/><b/>"));          // two roots
}

TEST_CASE("svg: names with markup characters are escaped", "[svg]") {
  CHECK(xml_escape("a<b & \"c\" 'd'>") == "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
  CHECK(svg_color({255, 8, 0}) == "#ff0800");
  FragmentGrid g = grid("mma_c");
  g.name = "C <&> \"D\"";
  const auto doc = parse_xml(fragment_svg(g));
  CHECK(doc[1].name == "title");
  CHECK(doc[1].text == "C <&> \"D\"");
}

TEST_CASE("svg: the wgmma accumulator map at N=8 shows every element's thread in its colour", "[svg]") {
  const FragmentGrid g = grid("wgmma_acc", 8);
  const std::string svg = fragment_svg(g);
  const auto doc = parse_xml(svg);
  REQUIRE(doc.front().name == "svg");
  CHECK(doc.front().attr("xmlns") == "http://www.w3.org/2000/svg");
  const auto cells = cells_of(doc);
  REQUIRE(cells.size() == 64 * 8);
  // D fragment of m64nNk16 (PTX ISA, facts §1.5): thread t, value v ->
  // row 16*(t/32) + (t%32)/4 + 8*((v/2)%2), col 8*(v/4) + 2*(t%4) + v%2.
  std::map<std::pair<int, int>, int> owner;
  for (int t = 0; t < 128; ++t)
    for (int v = 0; v < 4; ++v) owner[{16 * (t / 32) + (t % 32) / 4 + 8 * ((v / 2) % 2), 2 * (t % 4) + v % 2}] = t;
  for (const XmlElement* c : cells) {
    const int row = std::stoi(c->attr("data-row")), col = std::stoi(c->attr("data-col"));
    const int t = owner.at({row, col});
    INFO("row " << row << " col " << col);
    CHECK(std::stoi(c->attr("data-thread")) == t);
    CHECK(c->attr("fill") == svg_color(lane_rgb(uint32_t(t / 32), uint32_t(t % 32))));
  }
  // The labels the view draws in a cell: the thread ("t37": 128 threads) and the value.
  const auto texts = texts_of(doc);
  for (int t = 0; t < 128; ++t) CHECK(texts.count("t" + std::to_string(t)) == 4);
  for (int v = 0; v < 4; ++v) CHECK(texts.count("v" + std::to_string(v)) == 128);
  CHECK(texts.count(g.name) == 1);

  SECTION("coloured by warp") {
    const auto by_warp = parse_xml(fragment_svg(g, false));
    for (const XmlElement* c : cells_of(by_warp))
      CHECK(c->attr("fill") == svg_color(warp_rgb(uint32_t(std::stoi(c->attr("data-thread")) / 32))));
  }
}

TEST_CASE("svg: one-warp maps are labelled by lane, the largest map is complete", "[svg]") {
  const auto doc = parse_xml(fragment_svg(grid("mma_a")));
  CHECK(cells_of(doc).size() == 16 * 16);
  const auto texts = texts_of(doc);
  CHECK(texts.count("l31") == 8);  // 8 halves of A per lane
  CHECK(texts.count("t31") == 0);
  const auto big = parse_xml(fragment_svg(grid("wgmma_acc", 256)));
  CHECK(cells_of(big).size() == 64 * 256);
}

TEST_CASE("svg: the swizzle grid puts each chunk where the 128B swizzle moves it", "[svg]") {
  const auto doc = parse_xml(swizzle_svg(swizzle_grid(layout::Swizzle::b128, 0)));
  const auto cells = cells_of(doc);
  REQUIRE(cells.size() == 64);
  for (const XmlElement* c : cells) {
    const int row = std::stoi(c->attr("data-row")), chunk = std::stoi(c->attr("data-chunk"));
    // Swizzle<3,4,3> (facts §3): chunk bits [4:6] ^= row bits [7:9].
    CHECK(std::stoi(c->attr("data-physical-chunk")) == (chunk ^ (row % 8)));
    CHECK(c->attr("fill") == svg_color(warp_rgb(uint32_t(chunk))));
  }
  // Where each chunk is drawn: left to right in a row, the physical chunks 0..7 in order.
  std::map<std::string, std::map<double, int>> by_row;
  for (const XmlElement* c : cells) by_row[c->attr("data-row")][std::stod(c->attr("x"))] = std::stoi(c->attr("data-physical-chunk"));
  for (const auto& [row, xs] : by_row) {
    int expected = 0;
    for (const auto& [x, physical] : xs) CHECK(physical == expected++);
  }
  const auto texts = texts_of(doc);
  for (int c = 0; c < 8; ++c) CHECK(texts.count("c" + std::to_string(c)) == 8);
  CHECK(texts.count("b28-31") == 1);
  CHECK(texts.count("r7") == 1);
  // No swizzle: every chunk stays.
  const auto none = parse_xml(swizzle_svg(swizzle_grid(layout::Swizzle::none, 0)));
  REQUIRE(cells_of(none).size() == 64);
  for (const XmlElement* c : cells_of(none))
    CHECK(c->attr("data-physical-chunk") == c->attr("data-chunk"));
}

TEST_CASE("svg: the bank picture of a column read shows the 8-way conflict", "[svg]") {
  const BankAccess a = constructed_access(BankPattern::column_unswizzled, 0);
  const auto doc = parse_xml(bank_svg(a));
  const auto cells = cells_of(doc);
  // 16-byte reads of rows of 128 B: lanes 8p..8p+7 are phase p, all in banks 0-3 (facts §8),
  // so 8 wavefronts per phase, each one lane over 4 banks (one box).
  REQUIRE(cells.size() == 32);
  std::set<int> lanes;
  for (const XmlElement* c : cells) {
    const int lane = std::stoi(c->attr("data-lane"));
    lanes.insert(lane);
    CHECK(c->attr("data-bank") == "0");
    CHECK(c->attr("fill") == svg_color(lane_rgb(0, uint32_t(lane))));
  }
  CHECK(lanes.size() == 32);
  const auto texts = texts_of(doc);
  CHECK(texts.count("32 wavefronts, ideal 4: 8-way conflict") == 1);
  CHECK(texts.count("wf31") == 1);
  // Swizzled, a phase's 8 lanes fill the 32 banks: one box per lane, four wavefronts.
  const auto swizzled = parse_xml(bank_svg(constructed_access(BankPattern::column_swizzled, 0)));
  CHECK(cells_of(swizzled).size() == 32);
  CHECK(texts_of(swizzled).count("4 wavefronts, ideal 4: conflict-free") == 1);
}
