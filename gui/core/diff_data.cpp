#include "gui/core/diff_data.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/view_data.hpp"

namespace gs::gui {

const char* diff_against_name(DiffAgainst a) {
  switch (a) {
    case DiffAgainst::previous_step: return "previous step";
    case DiffAgainst::other_kernel: return "other kernel";
    case DiffAgainst::mistake: return "mistake";
  }
  return "?";
}

namespace {

// The request for the kernel on screen and the options; empty id when nothing is open.
run::KernelDiffRequest request_of(const AppState& app) {
  run::KernelDiffRequest r;
  if (!app.kernel) return r;
  r.id = app.kernel->request.kernel_id;
  r.shape = app.kernel->request.shape;
  if (app.diff_view.against == DiffAgainst::other_kernel) r.against = app.diff_view.other;
  if (app.diff_view.against == DiffAgainst::mistake) r.mistake = app.diff_view.mistake;
  return r;
}

}  // namespace

const DiffPrepared& diff_prepared(AppState& app) {
  const run::KernelDiffRequest r = request_of(app);
  const std::string key = fmt::format("{}|{}|{}|{}x{}x{}|{}", r.id, r.against, r.mistake, r.shape.m, r.shape.n,
                                      r.shape.k, diff_against_name(app.diff_view.against));
  if (app.view_caches.diff && app.view_caches.diff->key == key) return *app.view_caches.diff;
  auto d = std::make_shared<DiffPrepared>();
  d->key = key;
  if (r.id.empty()) {
    d->error = "no kernel open";
  } else if (app.diff_view.against == DiffAgainst::other_kernel && r.against.empty()) {
    d->error = "pick a kernel to compare with";
  } else if (app.diff_view.against == DiffAgainst::mistake && r.mistake.empty()) {
    d->error = "pick one of the kernel's mistakes";
  } else {
    try {
      d->diff = run::diff_kernels(r);
    } catch (const std::exception& e) {
      d->error = e.what();
    }
  }
  app.view_caches.diff = d;
  return *d;
}

std::vector<SideBySideRow> side_by_side(const run::TextDiff& d, int context) {
  std::vector<SideBySideRow> out;
  const auto& rows = d.rows;
  size_t i = 0;
  while (i < rows.size()) {
    if (rows[i].kind == run::DiffKind::same) {
      size_t j = i;
      while (j < rows.size() && rows[j].kind == run::DiffKind::same) ++j;
      // Keep `context` lines after the change before the run and before the one after it.
      const size_t keep_head = i == 0 ? 0 : size_t(std::max(context, 0));
      const size_t keep_tail = j == rows.size() ? 0 : size_t(std::max(context, 0));
      const size_t len = j - i;
      if (context < 0 || len <= keep_head + keep_tail + 1) {
        for (size_t r = i; r < j; ++r) out.push_back({run::DiffKind::same, rows[r].left, rows[r].right, 0});
      } else {
        for (size_t r = i; r < i + keep_head; ++r) out.push_back({run::DiffKind::same, rows[r].left, rows[r].right, 0});
        out.push_back({run::DiffKind::same, -1, -1, uint32_t(len - keep_head - keep_tail)});
        for (size_t r = j - keep_tail; r < j; ++r) out.push_back({run::DiffKind::same, rows[r].left, rows[r].right, 0});
      }
      i = j;
      continue;
    }
    // A change: its removed lines on the left, its added lines on the right, side by side.
    std::vector<int32_t> removed, added;
    while (i < rows.size() && rows[i].kind != run::DiffKind::same) {
      if (rows[i].kind == run::DiffKind::removed) removed.push_back(rows[i].left);
      else added.push_back(rows[i].right);
      ++i;
    }
    for (size_t r = 0; r < std::max(removed.size(), added.size()); ++r)
      out.push_back({r < removed.size() ? run::DiffKind::removed : run::DiffKind::added,
                     r < removed.size() ? removed[r] : -1, r < added.size() ? added[r] : -1, 0});
  }
  return out;
}

nlohmann::json describe_diff(AppState& app) {
  const DiffPrepared& d = diff_prepared(app);
  nlohmann::json j = {{"against", diff_against_name(app.diff_view.against)},
                      {"other", app.diff_view.other},
                      {"mistake", app.diff_view.mistake},
                      {"show_ptx", app.diff_view.show_ptx},
                      {"error", d.error}};
  if (!d.error.empty()) return j;
  j["left"] = d.diff.left_name;
  j["right"] = d.diff.right_name;
  j["summary"] = d.diff.summary;
  j["source"] = diff_counts_json(d.diff.source);
  j["ptx"] = diff_counts_json(d.diff.ptx);
  return j;
}

nlohmann::json diff_counts_json(const run::TextDiff& t) {
  const run::DiffCount c = run::count_changes(t.rows);
  return {{"left", t.left_title}, {"right", t.right_title}, {"removed", c.removed}, {"added", c.added}};
}

}  // namespace gs::gui
