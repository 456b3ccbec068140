// Builds the two sides of a "what changed" diff and diffs their source and PTX.
#include "run/kernel_diff.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "engine/ptx/emit.hpp"
#include "kernels/sources.hpp"
#include "run/ptx_diff.hpp"

namespace gs::run {

namespace {

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view l : kernels::source_lines(text)) out.emplace_back(l);
  return out;
}

// The kernel's source lines in the order they recorded instructions, runs of one line merged.
std::vector<std::string> recorded_lines(const ir::Kernel& k) {
  std::vector<std::string> out;
  ir::SourceLoc last;
  for (const ir::Inst& inst : k.insts) {
    if (!inst.src.known() || inst.src == last) continue;
    last = inst.src;
    out.push_back(kernels::describe_source(k, inst.src));
  }
  return out;
}

TextDiff make_diff(std::string left_title, std::vector<std::string> left, std::string right_title,
                   std::vector<std::string> right) {
  TextDiff d{std::move(left_title), std::move(right_title), std::move(left), std::move(right), {}};
  d.rows = diff_lines(d.left, d.right);
  return d;
}

TextDiff make_ptx_diff(const std::string& left_name, const std::string& ptx_left, const std::string& right_name,
                       const std::string& ptx_right) {
  TextDiff d{"PTX of " + left_name, "PTX of " + right_name, lines_of(ptx_left), lines_of(ptx_right), {}};
  const auto views = [](const std::vector<std::string>& lines) {
    return std::vector<std::string_view>(lines.begin(), lines.end());
  };
  const std::vector<std::string_view> lv = views(d.left), rv = views(d.right);
  d.rows = diff_ptx(lv, rv);
  return d;
}

std::string step_file_text(const kernels::KernelInfo& info, std::string& path) {
  const kernels::SourceFile* f = kernels::step_source(info.id);
  path = f ? std::string(f->path) : info.id + " (source not built in)";
  return f ? std::string(f->text) : std::string();
}

ir::Kernel build(const kernels::KernelInfo& info, const kernels::GemmShape& shape, const KernelVariant& v) {
  kernels::GemmConfig cfg;
  cfg.shape = info.resolve(shape);
  cfg.mistakes = v.mistakes;
  cfg.params = v.params;
  return kernels::build_kernel(info, cfg);
}

const std::string& mistake_description(const kernels::KernelInfo& info, const std::string& name) {
  for (const kernels::Mistake& m : info.mistakes)
    if (m.name == name) return m.description;
  return name;
}

// What differs between two builds besides their steps: each parameter whose value differs
// ("stages 2 -> 4"), each mistake switched on in right only (its description), each switched off.
std::string build_changes(const kernels::KernelInfo& left_info, const KernelVariant& left,
                          const kernels::KernelInfo& right_info, const KernelVariant& right) {
  std::vector<std::string> parts;
  if (left.id == right.id) {
    const kernels::ParamValues l = kernels::resolve_params(left_info, left.params);
    const kernels::ParamValues r = kernels::resolve_params(right_info, right.params);
    for (const auto& [name, value] : r)
      if (auto it = l.find(name); it != l.end() && it->second != value)
        parts.push_back(fmt::format("{} {} -> {}", name, it->second, value));
  } else {
    for (const auto* v : {&left, &right}) {
      const std::string p = kernels::non_default_params_text(v == &left ? left_info : right_info, v->params);
      if (!p.empty()) parts.push_back(fmt::format("{} built with {}", v->id, p));
    }
  }
  for (const std::string& m : right.mistakes)
    if (!left.mistakes.count(m) || left.id != right.id) parts.push_back(mistake_description(right_info, m));
  for (const std::string& m : left.mistakes) {
    if (left.id != right.id) parts.push_back(fmt::format("{} with {}", left.id, m));
    else if (!right.mistakes.count(m)) parts.push_back(fmt::format("{} switched off", m));
  }
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

const kernels::KernelInfo& step_before(const kernels::KernelInfo& info) {
  const auto all = kernels::all_kernels();
  for (size_t i = 1; i < all.size(); ++i)
    if (all[i].id == info.id) return all[i - 1];
  throw kernels::ConfigError(fmt::format("{} is the first step of the ladder: there is no step before it to diff "
                                         "against (name one: gemmscope diff {} OTHER_ID)",
                                         info.id, info.id));
}

// What changed from `left` to `right`: the delta sentence of every step after left up to right
// (one sentence for neighbours); going down the ladder, the steps undone.
std::string deltas_between(const kernels::KernelInfo& left, const kernels::KernelInfo& right) {
  const int lo = std::min(left.step, right.step), hi = std::max(left.step, right.step);
  std::string out = left.step > right.step ? "undoes " : "";
  for (const kernels::KernelInfo& k : kernels::all_kernels())
    if (k.step > lo && k.step <= hi) out += (out.empty() || out == "undoes " ? "" : "; then ") + k.delta;
  return out.empty() ? "the same step" : out;
}

}  // namespace

std::string variant_name(const KernelVariant& v) {
  std::string out = v.id;
  if (const kernels::KernelInfo* info = kernels::find_kernel(v.id)) {
    const std::string p = kernels::non_default_params_text(*info, v.params);
    if (!p.empty()) out += " " + p;
  }
  for (const std::string& m : v.mistakes) out += " + " + m;
  return out;
}

KernelDiff diff_variants(const KernelVariant& left, const KernelVariant& right, const kernels::GemmShape& shape) {
  const kernels::KernelInfo& left_info = kernels::kernel_or_throw(left.id);
  const kernels::KernelInfo& right_info = kernels::kernel_or_throw(right.id);
  kernels::require_mistakes(left_info, left.mistakes);
  kernels::require_mistakes(right_info, right.mistakes);
  const ir::Kernel left_kernel = build(left_info, shape, left);
  const ir::Kernel right_kernel = build(right_info, shape, right);
  KernelDiff out;
  out.left_name = variant_name(left);
  out.right_name = variant_name(right);
  const std::string changes = build_changes(left_info, left, right_info, right);
  if (left.id == right.id) {
    // One file: what differs is which of its lines run, in what order.
    out.summary = changes.empty() ? "the same build" : changes;
    out.source = make_diff("source lines run by " + out.left_name, recorded_lines(left_kernel),
                           "source lines run by " + out.right_name, recorded_lines(right_kernel));
  } else {
    out.summary = fmt::format("step {:02} -> {:02}: {}{}", left_info.step, right_info.step,
                              deltas_between(left_info, right_info), changes.empty() ? "" : "; " + changes);
    std::string left_path, right_path;
    std::string left_text = step_file_text(left_info, left_path), right_text = step_file_text(right_info, right_path);
    out.source = make_diff(left_path, lines_of(left_text), right_path, lines_of(right_text));
  }
  out.ptx = make_ptx_diff(out.left_name, ptx::emit(left_kernel).text, out.right_name, ptx::emit(right_kernel).text);
  return out;
}

KernelDiff diff_kernels(const KernelDiffRequest& request) {
  const kernels::KernelInfo& right = kernels::kernel_or_throw(request.id);
  if (!request.mistake.empty()) {
    if (!request.against.empty() && request.against != request.id)
      throw kernels::ConfigError(fmt::format("--mistake compares {} with itself: leave out the second id ({})",
                                             request.id, request.against));
    kernels::require_mistakes(right, {request.mistake});
    return diff_variants({right.id, {}, {}}, {right.id, {}, {request.mistake}}, request.shape);
  }
  const kernels::KernelInfo& left = request.against.empty() ? step_before(right) : kernels::kernel_or_throw(request.against);
  return diff_variants({left.id, {}, {}}, {right.id, {}, {}}, request.shape);
}

std::string format_text_diff(const TextDiff& d, int context) {
  const DiffCount c = count_changes(d.rows);
  std::string out = fmt::format("--- {}\n+++ {}\n({} removed, {} added)\n", d.left_title, d.right_title, c.removed,
                                c.added);
  // Distance of each row to the nearest change, to keep `context` unchanged rows around each.
  const size_t n = d.rows.size();
  std::vector<size_t> near(n, n + 1);
  for (size_t i = 0, last = n + 1; i < n; ++i) {
    if (d.rows[i].kind != DiffKind::same) last = i;
    if (last <= n) near[i] = i - last;
  }
  for (size_t i = n, next = n + 1; i-- > 0;) {
    if (d.rows[i].kind != DiffKind::same) next = i;
    if (next <= n) near[i] = std::min(near[i], next - i);
  }
  bool skipping = false;
  for (size_t i = 0; i < n; ++i) {
    const DiffRow& r = d.rows[i];
    if (context >= 0 && near[i] > size_t(context)) {
      if (!skipping) out += "...\n";
      skipping = true;
      continue;
    }
    skipping = false;
    switch (r.kind) {
      case DiffKind::same: out += "  " + d.left[size_t(r.left)] + "\n"; break;
      case DiffKind::removed: out += "- " + d.left[size_t(r.left)] + "\n"; break;
      case DiffKind::added: out += "+ " + d.right[size_t(r.right)] + "\n"; break;
    }
  }
  return out;
}

}  // namespace gs::run
