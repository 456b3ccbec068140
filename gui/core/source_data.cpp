#include "gui/core/source_data.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/kernel_cache.hpp"
#include "gui/core/view_data.hpp"
#include "kernels/sources.hpp"

namespace gs::gui {

const char* cpp_token_kind_name(CppTokenKind k) {
  switch (k) {
    case CppTokenKind::plain: return "plain";
    case CppTokenKind::keyword: return "keyword";
    case CppTokenKind::type: return "type";
    case CppTokenKind::string: return "string";
    case CppTokenKind::comment: return "comment";
    case CppTokenKind::number: return "number";
    case CppTokenKind::preprocessor: return "preprocessor";
    case CppTokenKind::call: return "call";
    case CppTokenKind::count_: break;
  }
  return "?";
}

namespace {

// The keywords a kernel file uses, and the words that name types.
constexpr std::string_view kKeywords[] = {
    "alignas",  "auto",      "bool",     "break",   "case",      "catch",     "char",   "class",  "const",
    "constexpr", "continue", "default",  "delete",  "do",        "double",    "else",   "enum",   "explicit",
    "false",    "float",     "for",      "if",      "inline",    "int",       "long",   "namespace", "new",
    "nullptr",  "operator",  "private",  "public",  "return",    "short",     "signed", "sizeof", "static",
    "static_cast", "struct", "switch",   "template", "this",     "throw",     "true",   "try",    "using"};
constexpr std::string_view kTypes[] = {"Addr",   "Builder", "GemmConfig", "KernelInfo", "Label",  "Reg",
                                                     "Smem",   "Src",     "Type",       "size_t",     "std",    "void"};

bool is_ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident(char c) { return is_ident_start(c) || is_digit(c); }

CppTokenKind word_kind(std::string_view w, std::string_view rest) {
  if (std::find(std::begin(kKeywords), std::end(kKeywords), w) != std::end(kKeywords)) return CppTokenKind::keyword;
  if (std::find(std::begin(kTypes), std::end(kTypes), w) != std::end(kTypes) || w.ends_with("_t")) return CppTokenKind::type;
  const size_t next = rest.find_first_not_of(' ');
  if (next != std::string_view::npos && rest[next] == '(') return CppTokenKind::call;
  return CppTokenKind::plain;
}

}  // namespace

std::vector<CppToken> tokenize_cpp_line(std::string_view line, CppLexState& state) {
  std::vector<CppToken> out;
  if (line.size() > 0xFFFF) return {{0, 0xFFFF, CppTokenKind::plain}};
  auto push = [&](size_t begin, size_t end, CppTokenKind k) {
    if (end <= begin) return;
    if (!out.empty() && out.back().kind == k && out.back().begin + out.back().length == begin) {
      out.back().length = uint16_t(end - out.back().begin);
      return;
    }
    out.push_back({uint16_t(begin), uint16_t(end - begin), k});
  };
  const size_t n = line.size();
  size_t i = 0;
  if (state.in_block_comment) {
    const size_t close = line.find("*/");
    if (close == std::string_view::npos) {
      push(0, n, CppTokenKind::comment);
      return out;
    }
    push(0, close + 2, CppTokenKind::comment);
    state.in_block_comment = false;
    i = close + 2;
  }
  const size_t first = line.find_first_not_of(" \t");
  if (first != std::string_view::npos && first >= i && line[first] == '#') {
    push(i, n, CppTokenKind::preprocessor);
    return out;
  }
  while (i < n) {
    const char c = line[i];
    size_t j = i + 1;
    if (c == '/' && j < n && line[j] == '/') {
      push(i, n, CppTokenKind::comment);
      break;
    }
    if (c == '/' && j < n && line[j] == '*') {
      const size_t close = line.find("*/", i + 2);
      if (close == std::string_view::npos) {
        push(i, n, CppTokenKind::comment);
        state.in_block_comment = true;
        break;
      }
      push(i, close + 2, CppTokenKind::comment);
      i = close + 2;
      continue;
    }
    if (c == '"' || c == '\'') {
      while (j < n && line[j] != c) j += line[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, n);
      push(i, j, CppTokenKind::string);
    } else if (is_digit(c) || (c == '.' && j < n && is_digit(line[j]))) {
      while (j < n && (is_ident(line[j]) || line[j] == '.' || line[j] == '\'')) ++j;
      push(i, j, CppTokenKind::number);
    } else if (is_ident_start(c)) {
      while (j < n && is_ident(line[j])) ++j;
      push(i, j, word_kind(line.substr(i, j - i), line.substr(j)));
    } else {
      push(i, j, CppTokenKind::plain);
    }
    i = j;
  }
  return out;
}

SourcePrepared prepare_source(const LoadedKernel& lk) {
  const ir::Kernel& k = lk.kernel();
  const model::Trace& t = lk.trace();
  SourcePrepared p;
  p.files.resize(k.source_files.size());
  for (size_t f = 0; f < k.source_files.size(); ++f) {
    SourceFileData& d = p.files[f];
    d.path = k.source_files[f];
    if (const kernels::SourceFile* file = kernels::find_kernel_source(d.path)) d.text = kernels::source_lines(file->text);
    d.lines.resize(d.text.size());
    CppLexState lex;
    for (size_t l = 0; l < d.text.size(); ++l) {
      d.lines[l].tokens = tokenize_cpp_line(d.text[l], lex);
      d.max_line_chars = std::max<uint32_t>(d.max_line_chars, uint32_t(d.text[l].size()));
    }
  }
  for (uint32_t i = 0; i < k.insts.size(); ++i) {
    const ir::SourceLoc& loc = k.insts[i].src;
    if (!loc.known() || loc.file >= p.files.size() || loc.line > p.files[loc.file].lines.size()) continue;
    SourceLineInfo& line = p.files[loc.file].lines[loc.line - 1];
    line.insts.push_back(i);
    if (k.insts[i].op != ir::Op::label) line.executions += uint32_t(t.executions_of(i).size());
  }
  for (SourceFileData& d : p.files)
    for (const SourceLineInfo& l : d.lines) {
      if (l.insts.empty()) continue;
      ++d.recording_lines;
      if (l.executions > 0) ++d.executed_lines;
    }
  return p;
}

const SourcePrepared& source_prepared(const std::shared_ptr<const LoadedKernel>& k) {
  return cached_for_kernel<SourcePrepared>(k, prepare_source);
}

namespace {
SourcePlace place_of(const ir::Kernel& k, uint32_t inst) {
  if (inst >= k.insts.size() || !k.insts[inst].src.known()) return {};
  return {k.insts[inst].src.file, k.insts[inst].src.line};
}
}  // namespace

SourceFocus source_focus(AppState& app) {
  SourceFocus f;
  if (!app.kernel) return f;
  const LoadedKernel& lk = *app.kernel;
  const ir::Kernel& k = lk.kernel();
  const model::Trace& t = lk.trace();
  if (app.playback.position < t.events.size()) {
    const uint32_t inst = t.events[app.playback.position].inst;
    if (inst < k.insts.size()) {
      f.current_inst = inst;
      f.current = place_of(k, inst);
    }
  }
  if (app.selection.inst < k.insts.size()) {
    f.selected_inst = app.selection.inst;
    f.selected = place_of(k, app.selection.inst);
  }
  const uint32_t files = uint32_t(k.source_files.size());
  if (app.source_view.pinned_file < files) f.shown_file = app.source_view.pinned_file;
  else if (f.current.file < files) f.shown_file = f.current.file;
  else if (f.selected.file < files) f.shown_file = f.selected.file;
  else if (files > 0) f.shown_file = 0;
  return f;
}

void select_source_line(AppState& app, uint32_t file, uint32_t line) {
  if (!app.kernel) return;
  const SourcePrepared& p = source_prepared(app.kernel);
  if (file >= p.files.size() || line == 0 || line > p.files[file].lines.size()) return;
  const std::vector<uint32_t>& insts = p.files[file].lines[line - 1].insts;
  if (insts.empty()) return;
  // The instruction of this line that runs soonest after the cursor (else the earliest one).
  const model::Trace& t = app.kernel->trace();
  const uint32_t pos = app.playback.position;
  uint32_t best = insts.front();
  uint64_t best_key = UINT64_MAX;
  for (uint32_t inst : insts) {
    for (uint32_t e : t.executions_of(inst)) {
      const uint64_t key = e > pos ? e : uint64_t(e) + (uint64_t(1) << 32);  // after the cursor first
      if (key < best_key) best_key = key, best = inst;
      if (e > pos) break;
    }
  }
  app.select_inst(best, best_key != UINT64_MAX);
}

std::string source_line_tooltip(const LoadedKernel& lk, const SourceFileData& f, uint32_t line) {
  if (line == 0 || line > f.lines.size()) return {};
  const SourceLineInfo& l = f.lines[line - 1];
  if (l.insts.empty()) return "records no instruction";
  std::string s = fmt::format("{}:{} records {} instruction{}:", f.path, line, l.insts.size(),
                              l.insts.size() == 1 ? "" : "s");
  const size_t shown = std::min<size_t>(l.insts.size(), 8);
  for (size_t i = 0; i < shown; ++i) s += "\n  " + lk.inst_text[l.insts[i]];
  if (shown < l.insts.size()) s += fmt::format("\n  ... and {} more", l.insts.size() - shown);
  s += l.executions == 0 ? std::string("\nnever executed by the traced CTA")
                         : fmt::format("\nexecuted {} time{} (warp-instructions of the traced CTA)", l.executions,
                                       l.executions == 1 ? "" : "s");
  s += "\nclick: select it and jump to its next execution";
  return s;
}

nlohmann::json describe_source(AppState& app) {
  if (!app.kernel) return {{"files", nlohmann::json::array()}, {"follow", app.source_view.follow}};
  const SourcePrepared& p = source_prepared(app.kernel);
  const SourceFocus f = source_focus(app);
  nlohmann::json files = nlohmann::json::array();
  for (const SourceFileData& d : p.files)
    files.push_back({{"path", d.path},
                     {"line_count", d.text.size()},
                     {"recording_lines", d.recording_lines},
                     {"executed_lines", d.executed_lines}});
  auto place = [&](const SourcePlace& s) -> nlohmann::json {
    if (s.file >= p.files.size()) return nullptr;
    return {{"file", p.files[s.file].path}, {"line", s.line}};
  };
  auto text_at = [&](const SourcePlace& s) -> std::string {
    if (s.file >= p.files.size() || s.line == 0 || s.line > p.files[s.file].text.size()) return "";
    return std::string(p.files[s.file].text[s.line - 1]);
  };
  return {{"files", files},
          {"shown_file", f.shown_file < p.files.size() ? nlohmann::json(p.files[f.shown_file].path) : nlohmann::json()},
          {"current", place(f.current)},
          {"current_text", text_at(f.current)},
          {"selected", place(f.selected)},
          {"follow", app.source_view.follow}};
}

}  // namespace gs::gui
