// The Source and Diff views' data: the C++ tokenizer, execution counts per source line from
// the trace, the one selection shared with the PTX view (a source click selects the PTX line,
// a PTX click selects the source line), and the side-by-side rows of a diff.
#include <catch2/catch.hpp>

#include "gui/core/diff_data.hpp"
#include "gui/core/source_data.hpp"
#include "gui/core/view_data.hpp"
#include "kernels/sources.hpp"
#include "tests/gui/gui_fixture.hpp"

using namespace gs;
using namespace gs::gui;

namespace {

// The kind of the token covering `token` (the first place it appears) whole; plain runs merge
// neighbouring words and spaces, so the token may be part of a longer one.
CppTokenKind kind_of(std::string_view line, std::string_view token, CppLexState state = {}) {
  const size_t at = line.find(token);
  REQUIRE(at != std::string_view::npos);
  for (const CppToken& t : tokenize_cpp_line(line, state))
    if (t.begin <= at && at + token.size() <= size_t(t.begin + t.length)) return t.kind;
  FAIL("no one token covers '" << token << "' in '" << line << "'");
  return CppTokenKind::count_;
}

uint32_t first_inst(const LoadedKernel& k, ir::Op op) {
  for (uint32_t i = 0; i < k.kernel().insts.size(); ++i)
    if (k.kernel().insts[i].op == op) return i;
  return kNone;
}

}  // namespace

TEST_CASE("source: the tokenizer tells keywords, types, strings, comments, numbers and calls apart", "[gui][source]") {
  const std::string_view line = "  if (!cfg.has(\"missing-init-fence\")) b.fence_mbarrier_init();  // 0x10";
  CHECK(kind_of(line, "if") == CppTokenKind::keyword);
  CHECK(kind_of(line, "\"missing-init-fence\"") == CppTokenKind::string);
  CHECK(kind_of(line, "fence_mbarrier_init") == CppTokenKind::call);
  CHECK(kind_of(line, "// 0x10") == CppTokenKind::comment);
  CHECK(kind_of("constexpr uint32_t kBM = 64, x = 0x3FFFF;", "uint32_t") == CppTokenKind::type);
  CHECK(kind_of("constexpr uint32_t kBM = 64, x = 0x3FFFF;", "0x3FFFF") == CppTokenKind::number);
  CHECK(kind_of("constexpr uint32_t kBM = 64, x = 0x3FFFF;", "kBM") == CppTokenKind::plain);
  CHECK(kind_of("#include <fmt/format.h>", "#include <fmt/format.h>") == CppTokenKind::preprocessor);
  CHECK(kind_of("char c = '\\'';", "'\\''") == CppTokenKind::string);
  // A block comment carries over to the next line and ends there.
  CppLexState state;
  tokenize_cpp_line("int a; /* starts", state);
  CHECK(state.in_block_comment);
  CHECK(kind_of("ends */ return a;", "ends */", state) == CppTokenKind::comment);
  CHECK(kind_of("ends */ return a;", "return", state) == CppTokenKind::keyword);
}

TEST_CASE("source: every file of the Hopper kernel is tokenized end to end", "[gui][source]") {
  const auto& k = test::hopper_kernel();
  const SourcePrepared& p = source_prepared(k);
  REQUIRE(p.files.size() == k->kernel().source_files.size());
  REQUIRE(!p.files.empty());
  CHECK(p.files[k->kernel().insts.front().src.file].path == "kernels/11_hopper_tma_wgmma_64.cpp");
  for (const SourceFileData& f : p.files) {
    INFO(f.path);
    REQUIRE(!f.text.empty());
    for (size_t l = 0; l < f.text.size(); ++l) {
      size_t at = 0;
      for (const CppToken& t : f.lines[l].tokens) {
        REQUIRE(t.begin == at);
        at += t.length;
      }
      REQUIRE(at == f.text[l].size());
    }
  }
}

TEST_CASE("source: execution counts per line add up the trace's executions of its instructions", "[gui][source]") {
  const auto& k = test::hopper_kernel();
  const SourcePrepared& p = source_prepared(k);
  uint64_t by_lines = 0;
  for (const SourceFileData& f : p.files)
    for (const SourceLineInfo& l : f.lines) by_lines += l.executions;
  // Counted independently: every warp-instruction event of the trace (labels never issue).
  CHECK(by_lines == k->trace().of_kind(model::EventKind::warp_inst).size());
  // The wgmma line: 4 warps x K/64 blocks.
  const uint32_t wgmma = first_inst(*k, ir::Op::wgmma_mma_async);
  REQUIRE(wgmma != kNone);
  const ir::SourceLoc loc = k->kernel().insts[wgmma].src;
  const SourceLineInfo& line = p.files[loc.file].lines[loc.line - 1];
  CHECK(p.files[loc.file].text[loc.line - 1].find("b.wgmma_mma_async(") != std::string_view::npos);
  CHECK(line.executions == 4 * (k->request.shape.k / 64));
  CHECK(source_line_tooltip(*k, p.files[loc.file], loc.line).find("wgmma.mma_async") != std::string::npos);
}

TEST_CASE("source: one selection links a source line and its PTX line both ways", "[gui][source]") {
  AppState app = test::hopper_app();
  const LoadedKernel& k = *app.kernel;
  const uint32_t wgmma = first_inst(k, ir::Op::wgmma_mma_async);
  const ir::SourceLoc loc = k.kernel().insts[wgmma].src;
  // Clicking the wgmma's source line selects the wgmma and jumps to its first execution;
  // the PTX view then shows the wgmma's PTX line.
  select_source_line(app, loc.file, loc.line);
  CHECK(app.selection.inst == wgmma);
  CHECK(app.playback.position == k.trace().executions_of(wgmma)[0]);
  CHECK(ptx_focus(app).selected_line == k.line_of(wgmma));
  const SourceFocus f = source_focus(app);
  CHECK(f.current == SourcePlace{loc.file, loc.line});
  CHECK(f.selected == SourcePlace{loc.file, loc.line});
  CHECK(f.shown_file == loc.file);
  // Clicking the commit's PTX line moves the source selection to the commit's source line.
  const uint32_t commit = first_inst(k, ir::Op::wgmma_commit_group);
  app.select_ptx_line(k.line_of(commit));
  const ir::SourceLoc commit_loc = k.kernel().insts[commit].src;
  CHECK(source_focus(app).selected == SourcePlace{commit_loc.file, commit_loc.line});
  const nlohmann::json j = describe_source(app);
  CHECK(j["selected"]["line"] == commit_loc.line);
  CHECK(j["current_text"].get<std::string>().find("wgmma_commit_group") != std::string::npos);
  // A source line that recorded several instructions: the PTX view marks all their lines.
  const uint32_t cvt = first_inst(k, ir::Op::cvt);  // the first of a wgmma_descriptor's four
  REQUIRE(cvt != kNone);
  const ir::SourceLoc desc_loc = k.kernel().insts[cvt].src;
  select_source_line(app, desc_loc.file, desc_loc.line);
  std::vector<uint32_t> expected;
  for (uint32_t i = 0; i < k.kernel().insts.size(); ++i)
    if (k.kernel().insts[i].src == desc_loc) expected.push_back(k.line_of(i));
  CHECK(expected.size() == 4);
  CHECK(describe_ptx(app)["selected_source_lines"].get<std::vector<uint32_t>>() == expected);
  app.select_ptx_line(k.line_of(commit));
  // A line that recorded nothing (the file's first line, a comment) selects nothing.
  select_source_line(app, loc.file, 1);
  CHECK(app.selection.inst == commit);
  // A pinned file is shown whatever the cursor does.
  app.source_view.pinned_file = uint32_t(k.kernel().source_files.size() - 1);
  CHECK(source_focus(app).shown_file == app.source_view.pinned_file);
}

TEST_CASE("diff view: changes side by side, unchanged stretches folded", "[gui][diff]") {
  run::TextDiff d;
  d.left = {"a", "b", "c", "d", "e", "f", "g", "h"};
  d.right = {"a", "b", "X", "Y", "d", "e", "f", "g", "h", "Z"};
  d.rows = run::diff_lines(d.left, d.right);
  const std::vector<SideBySideRow> all = side_by_side(d, -1);
  // c -> X beside it, Y alone on the right, Z added at the end.
  REQUIRE(all.size() == 10);
  CHECK(all[2].left == 2);
  CHECK(all[2].right == 2);
  CHECK(all[3].left == -1);
  CHECK(all[3].right == 3);
  CHECK(all[9].right == 9);
  const std::vector<SideBySideRow> folded = side_by_side(d, 1);
  // a b | c/X Y | d [e f g folded] h | Z: one line kept on each side of each change (a b
  // are two lines: a fold of one line would save nothing).
  uint32_t fold_total = 0, folds = 0;
  for (const SideBySideRow& r : folded) fold_total += r.folded, folds += r.folded > 0;
  CHECK(fold_total == 3);
  CHECK(folds == 1);
  CHECK(folded.size() == all.size() - 2);

  AppState app = test::hopper_app();
  app.diff_view.against = DiffAgainst::mistake;
  CHECK(describe_diff(app)["error"] != "");  // no mistake picked yet
  app.diff_view.mistake = "missing-init-fence";
  const nlohmann::json j = describe_diff(app);
  CHECK(j["error"] == "");
  CHECK(j["ptx"]["removed"] == 1);
  CHECK(j["ptx"]["added"] == 0);
  CHECK(j["source"]["removed"] == 1);
  app.diff_view.against = DiffAgainst::previous_step;
  CHECK(describe_diff(app)["left"] == "ampere_ldmatrix");  // step 10, before step 11
}
