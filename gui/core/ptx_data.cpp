#include "gui/core/ptx_data.hpp"

#include "gui/core/kernel_cache.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/view_data.hpp"

namespace gs::gui {

const char* ptx_token_kind_name(PtxTokenKind k) {
  switch (k) {
    case PtxTokenKind::plain: return "plain";
    case PtxTokenKind::directive: return "directive";
    case PtxTokenKind::label: return "label";
    case PtxTokenKind::predicate: return "predicate";
    case PtxTokenKind::op_alu: return "alu";
    case PtxTokenKind::op_memory: return "memory";
    case PtxTokenKind::op_tma: return "tma";
    case PtxTokenKind::op_mbarrier: return "mbarrier";
    case PtxTokenKind::op_mma: return "mma";
    case PtxTokenKind::op_control: return "control";
    case PtxTokenKind::op_sync: return "sync";
    case PtxTokenKind::reg: return "register";
    case PtxTokenKind::immediate: return "immediate";
    case PtxTokenKind::comment: return "comment";
    case PtxTokenKind::count_: break;
  }
  return "?";
}

PtxTokenKind kind_of_family(ir::Family f) {
  switch (f) {
    case ir::Family::alu:
    case ir::Family::convert: return PtxTokenKind::op_alu;
    case ir::Family::memory:
    case ir::Family::ldmatrix:
    case ir::Family::cp_async: return PtxTokenKind::op_memory;
    case ir::Family::tma: return PtxTokenKind::op_tma;
    case ir::Family::mbarrier: return PtxTokenKind::op_mbarrier;
    case ir::Family::wgmma:
    case ir::Family::mma:
    case ir::Family::tcgen05: return PtxTokenKind::op_mma;
    case ir::Family::control: return PtxTokenKind::op_control;
    case ir::Family::barrier:
    case ir::Family::fence:
    case ir::Family::cluster:
    case ir::Family::misc: return PtxTokenKind::op_sync;
  }
  return PtxTokenKind::op_alu;
}

namespace {

// A spelling's fixed part: up to the first "{n}" placeholder (which then matches anything).
struct SpellingPrefix {
  std::string_view prefix;
  bool open = false;  // the spelling continued with a placeholder
  PtxTokenKind kind;
};

const std::vector<SpellingPrefix>& spelling_prefixes() {
  static const std::vector<SpellingPrefix> table = [] {
    std::vector<SpellingPrefix> t;
    for (const ir::OpInfo& op : ir::all_ops()) {
      if (op.spelling.empty()) continue;
      const size_t brace = op.spelling.find('{');
      t.push_back({op.spelling.substr(0, brace), brace != std::string_view::npos, kind_of_family(op.family)});
    }
    return t;
  }();
  return table;
}

bool is_word_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == '$'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word_char(char c) { return is_word_start(c) || is_digit(c) || c == '.' || c == ':'; }

}  // namespace

PtxTokenKind opcode_kind(std::string_view mnemonic) {
  size_t best = 0;
  PtxTokenKind kind = PtxTokenKind::op_alu;
  for (const SpellingPrefix& s : spelling_prefixes()) {
    if (s.prefix.size() <= best || mnemonic.substr(0, s.prefix.size()) != s.prefix) continue;
    // "cvt" must not claim "cvta.param": a fixed spelling ends at a '.' or the end.
    const bool boundary = s.open || mnemonic.size() == s.prefix.size() || mnemonic[s.prefix.size()] == '.';
    if (!boundary) continue;
    best = s.prefix.size();
    kind = s.kind;
  }
  return kind;
}

std::vector<PtxToken> tokenize_ptx_line(std::string_view line) {
  std::vector<PtxToken> out;
  // Lines longer than a token offset can address are shown as one plain run.
  if (line.size() > 0xFFFF) return {{0, 0xFFFF, PtxTokenKind::plain}};
  auto push = [&](size_t begin, size_t end, PtxTokenKind k) {
    if (end <= begin) return;
    if (!out.empty() && out.back().kind == k && k == PtxTokenKind::plain && out.back().begin + out.back().length == begin) {
      out.back().length = uint16_t(end - out.back().begin);
      return;
    }
    out.push_back({uint16_t(begin), uint16_t(end - begin), k});
  };
  bool expect_opcode = true;   // the first word of a statement is its opcode
  bool expect_label = false;   // the operand of a branch is a label
  bool seen_token = false;     // anything but whitespace so far
  size_t i = 0;
  const size_t n = line.size();
  while (i < n) {
    const char c = line[i];
    if (c == ' ' || c == '\t') {
      size_t j = i;
      while (j < n && (line[j] == ' ' || line[j] == '\t')) ++j;
      push(i, j, PtxTokenKind::plain);
      i = j;
      continue;
    }
    if (c == '/' && i + 1 < n && line[i + 1] == '/') {
      push(i, n, PtxTokenKind::comment);
      break;
    }
    size_t j = i + 1;
    if (c == '.' && i + 1 < n && is_word_start(line[i + 1])) {
      while (j < n && is_word_char(line[j])) ++j;
      push(i, j, PtxTokenKind::directive);
      expect_opcode = false;
    } else if (c == '@') {
      if (j < n && line[j] == '!') ++j;
      if (j < n && line[j] == '%') ++j;
      while (j < n && (is_word_char(line[j]) && line[j] != ':')) ++j;
      push(i, j, PtxTokenKind::predicate);
    } else if (c == '%') {
      while (j < n && is_word_char(line[j]) && line[j] != ':') ++j;
      push(i, j, PtxTokenKind::reg);
    } else if (is_digit(c) || (c == '-' && j < n && is_digit(line[j]))) {
      while (j < n && (is_digit(line[j]) || is_word_start(line[j]) || line[j] == '.')) ++j;
      push(i, j, PtxTokenKind::immediate);
    } else if (is_word_start(c)) {
      while (j < n && is_word_char(line[j])) ++j;
      const std::string_view word = line.substr(i, j - i);
      if (!seen_token && word.size() > 1 && word.back() == ':' && word[word.size() - 2] != ':') {
        push(i, j, PtxTokenKind::label);  // "L_kb:"
      } else if (expect_opcode) {
        const PtxTokenKind k = opcode_kind(word);
        push(i, j, k);
        expect_opcode = false;
        expect_label = k == PtxTokenKind::op_control && word.substr(0, 3) == "bra";
      } else if (expect_label) {
        push(i, j, PtxTokenKind::label);
        expect_label = false;
      } else {
        push(i, j, PtxTokenKind::plain);
      }
    } else {
      if (c == ';') expect_opcode = true;  // a second statement on the line
      push(i, j, PtxTokenKind::plain);
    }
    seen_token = true;
    i = j;
  }
  return out;
}

PtxPrepared prepare_ptx(const LoadedKernel& k) {
  PtxPrepared p;
  p.lines.resize(k.ptx_lines.size());
  const model::Trace& t = k.trace();
  for (uint32_t l = 0; l < k.ptx_lines.size(); ++l) {
    PtxLineInfo& info = p.lines[l];
    info.tokens = tokenize_ptx_line(k.ptx_lines[l]);
    p.max_line_chars = std::max<uint32_t>(p.max_line_chars, uint32_t(k.ptx_lines[l].size()));
    const uint32_t inst = k.inst_of_line(l + 1);
    if (inst == kNone || inst >= k.kernel().insts.size()) continue;
    info.inst = inst;
    if (k.kernel().insts[inst].op == ir::Op::label) continue;  // a label is not executed
    info.executions = uint32_t(t.executions_of(inst).size());
    ++p.instruction_lines;
    if (info.executions > 0) ++p.executed_lines;
  }
  return p;
}

const PtxPrepared& ptx_prepared(const std::shared_ptr<const LoadedKernel>& k) {
  return cached_for_kernel<PtxPrepared>(k, prepare_ptx);
}

PtxFocus ptx_focus(AppState& app) {
  PtxFocus f;
  if (!app.kernel) return f;
  const LoadedKernel& k = *app.kernel;
  const model::Trace& t = k.trace();
  if (app.playback.position < t.events.size()) {
    const uint32_t inst = t.events[app.playback.position].inst;
    if (inst < k.kernel().insts.size()) {
      f.current_inst = inst;
      f.current_line = k.line_of(inst);
    }
  }
  if (app.selection.inst < k.kernel().insts.size()) {
    f.selected_inst = app.selection.inst;
    f.selected_line = k.line_of(app.selection.inst);
  }
  return f;
}

std::string ptx_line_tooltip(const LoadedKernel& k, const PtxPrepared& p, uint32_t line) {
  if (line == 0 || line > p.lines.size()) return {};
  const PtxLineInfo& l = p.lines[line - 1];
  if (l.inst == kNone) return {};
  const ir::Inst& inst = k.kernel().insts[l.inst];
  const ir::OpInfo& op = inst.info();
  if (inst.op == ir::Op::label) return fmt::format("label (instruction {}): {}", l.inst, op.summary);
  std::string s = fmt::format("{} ({} family, instruction {})\n{}", op.id, ir::family_name(op.family), l.inst, op.summary);
  s += l.executions == 0 ? std::string("\nnever executed by the traced CTA")
                         : fmt::format("\nexecuted {} time{} (warp-instructions of the traced CTA)", l.executions,
                                       l.executions == 1 ? "" : "s");
  if (!inst.comment.empty()) s += "\n// " + inst.comment;
  s += "\nclick: jump to its next execution";
  return s;
}

nlohmann::json describe_ptx(AppState& app) {
  if (!app.kernel) return {{"line_count", 0}, {"follow", app.ptx_view.follow}};
  const PtxPrepared& p = ptx_prepared(app.kernel);
  const PtxFocus f = ptx_focus(app);
  std::vector<uint32_t> highlighted;
  if (f.current_line) highlighted.push_back(f.current_line);
  if (f.selected_line && f.selected_line != f.current_line) highlighted.push_back(f.selected_line);
  std::sort(highlighted.begin(), highlighted.end());
  auto opt = [](uint32_t v) { return v == kNone ? nlohmann::json(nullptr) : nlohmann::json(v); };
  // The PTX lines of the selected instruction's source line (the view marks them).
  std::vector<uint32_t> same_source;
  const auto& insts = app.kernel->kernel().insts;
  if (f.selected_inst != kNone && insts[f.selected_inst].src.known())
    for (uint32_t i = 0; i < insts.size(); ++i)
      if (insts[i].src == insts[f.selected_inst].src && insts[i].op != ir::Op::label)
        same_source.push_back(app.kernel->line_of(i));
  return {{"line_count", p.lines.size()},
          {"instruction_lines", p.instruction_lines},
          {"executed_lines_count", p.executed_lines},
          {"current_inst", opt(f.current_inst)},
          {"current_line", f.current_line},
          {"current_text", f.current_inst == kNone ? "" : app.kernel->inst_text[f.current_inst]},
          {"selected_inst", opt(f.selected_inst)},
          {"selected_line", f.selected_line},
          {"highlighted_lines", highlighted},
          {"selected_source_lines", same_source},
          {"follow", app.ptx_view.follow}};
}

}  // namespace gs::gui
