#include "gui/app/shell.hpp"

#include <algorithm>
#include <cmath>

#include <GLFW/glfw3.h>
#include <fmt/format.h>

#include "gui/core/view_use.hpp"
#include "run/build_info.hpp"
#include "run/run_time.hpp"

namespace gs::gui {

namespace {
using DrawFn = void (*)(AppState&, const ViewEnv&);
constexpr DrawFn kDraw[] = {
#define VIEW(id, cli_name, title, ...) draw_##id,
#include "gui/core/views.def"
#undef VIEW
};
static_assert(std::size(kDraw) == size_t(ViewId::count_));
}  // namespace

Shell::Shell(AppState& app, const Fonts& fonts, float scale) : app_(app) {
  env_.fragment_cells = &fragment_cells_;
  env_.dark = app.settings.theme == Theme::dark;
  set_fonts(fonts, scale);
}

void Shell::set_fonts(const Fonts& fonts, float scale) {
  fonts_ = fonts;
  scale_ = scale;
  env_.mono = fonts.mono;
  env_.bold = fonts.bold;
  env_.mono_small = fonts.mono_small;
  env_.scale = scale;
}

void Shell::set_views(const std::vector<ViewId>& only, bool fixed) {
  only_ = only;
  fixed_ = fixed;
}

bool Shell::focus_mode() const { return only_.empty() && app_.settings.focus_layout; }

std::vector<ViewId> Shell::focus_views() const {
  const std::string id = app_.kernel ? app_.kernel->request.kernel_id : app_.request.kernel_id;
  std::vector<ViewId> out;
  if (const kernels::KernelInfo* info = kernels::find_kernel(id))
    for (const std::string& name : info->focus_views) {
      ViewId v;
      if (parse_view_name(name, v) && v != ViewId::ladder && v != ViewId::lesson &&
          std::find(out.begin(), out.end(), v) == out.end())
        out.push_back(v);
    }
  return out;
}

bool Shell::shown(ViewId v) const {
  if (!only_.empty()) return std::find(only_.begin(), only_.end(), v) != only_.end();
  if (focus_mode()) {
    if (v == ViewId::ladder || v == ViewId::lesson) return true;
    const std::vector<ViewId> focus = focus_views();
    return std::find(focus.begin(), focus.end(), v) != focus.end();
  }
  return app_.settings.show[size_t(v)];
}

bool Shell::tabbed(ViewId v) const { return focus_mode() && !shown(v) && app_.settings.show[size_t(v)]; }

void Shell::toggle_view(ViewId v, bool on) {
  // The views on screen become the saved choice, then the one clicked changes: a click never
  // brings back the views --view left out.
  for (size_t i = 0; i < size_t(ViewId::count_); ++i) app_.settings.show[i] = shown(ViewId(i));
  app_.settings.show[size_t(v)] = on;
  app_.settings.focus_layout = false;  // a hand-picked set of windows
  only_.clear();
}

std::vector<std::string> Shell::shown_view_names() const {
  std::vector<std::string> names;
  for (size_t i = 0; i < size_t(ViewId::count_); ++i)
    if (shown(ViewId(i))) names.push_back(view_name(ViewId(i)));
  return names;
}

void Shell::draw_frame() {
  env_.dark = app_.settings.theme == Theme::dark;
  const ImGuiIO& io = ImGui::GetIO();
  if (io.KeyCtrl && !io.WantTextInput && ImGui::IsKeyPressed(GLFW_KEY_Q, false)) quit_ = true;
  handle_shortcuts(app_, env_, show_help_);
  app_.fits.clear();  // the views record this frame's (views.hpp: note_fit)
  draw_menu_bar();
  draw_status_bar();
  draw_views();
  draw_long_run_question();
  ShownViews shown_now{};
  for (size_t i = 0; i < size_t(ViewId::count_); ++i) shown_now[i] = shown(ViewId(i));
  save_picture_.draw(app_, shown_now, view_rects_);
  import_timeline_.draw(app_);
  if (show_help_) draw_help_overlay(app_, env_, show_help_);
}

void Shell::draw_menu_bar() {
  if (!ImGui::BeginMainMenuBar()) return;
  menu_height_ = ImGui::GetWindowSize().y;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Reopen kernel", nullptr, false, !app_.busy())) app_.request_open(app_.request);
    if (ImGui::MenuItem("Run whole grid on the model", nullptr, false, !app_.busy())) app_.request_model_run();
    if (ImGui::MenuItem("Cancel running jobs", nullptr, false, app_.busy())) app_.cancel_jobs();
    ImGui::Separator();
    if (ImGui::MenuItem("Import timeline...")) import_timeline_.open();
    ImGui::Separator();
    if (ImGui::MenuItem("Save picture...")) save_picture_.open();
    if (ImGui::MenuItem("Save settings")) {
      std::string error;
      if (!save_settings(app_.settings, app_.config_dir, &error))
        app_.add_problem({Severity::error, "settings", "settings", "settings not saved", error});
    }
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) quit_ = true;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    for (size_t i = 0; i < size_t(ViewId::count_); ++i) {
      bool on = shown(ViewId(i));  // ticked as on screen, --view's choice included
      if (ImGui::MenuItem(view_title(ViewId(i)), nullptr, &on)) toggle_view(ViewId(i), on);
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Focus on the step", nullptr, focus_mode())) {
      // The step's lesson, the ladder and its focus views large, every other view a tab.
      if (focus_mode()) {
        app_.settings.focus_layout = false;
      } else {
        app_.settings.focus_layout = true;
        app_.settings.show.fill(true);
        only_.clear();
      }
    }
    if (ImGui::MenuItem("All views")) {
      app_.settings.show.fill(true);
      app_.settings.focus_layout = false;
      only_.clear();
    }
    if (ImGui::MenuItem("Reset layout")) reset_layout_ = true;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Theme")) {
    if (ImGui::MenuItem("Dark", nullptr, app_.settings.theme == Theme::dark)) {
      app_.settings.theme = Theme::dark;
      apply_theme(Theme::dark, scale_);
    }
    if (ImGui::MenuItem("Light", nullptr, app_.settings.theme == Theme::light)) {
      app_.settings.theme = Theme::light;
      apply_theme(Theme::light, scale_);
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    if (ImGui::MenuItem("Keyboard shortcuts", "F1")) show_help_ = true;
    ImGui::TextDisabled("gemmscope %s, Dear ImGui %s", version_string().c_str(), IMGUI_VERSION);
    ImGui::EndMenu();
  }
  // The kernel on screen, right-aligned in the menu bar.
  if (app_.kernel) {
    const auto& r = app_.kernel->request;
    const std::string text = fmt::format("{}  {}x{}x{}  CTA ({},{})", r.kernel_id, r.shape.m, r.shape.n, r.shape.k,
                                         r.cta[0], r.cta[1]);
    const float w = ImGui::CalcTextSize(text.c_str()).x;
    ImGui::SameLine(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowWidth() - w - 12.0f * scale_));
    ImGui::TextUnformatted(text.c_str());
  }
  ImGui::EndMainMenuBar();
}

void Shell::draw_status_bar() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  status_height_ = std::ceil(ImGui::GetFrameHeightWithSpacing() + 6.0f * scale_);  // whole pixels: views tile above
  ImGui::SetNextWindowPos(ImVec2(vp->Pos.x, vp->Pos.y + vp->Size.y - status_height_));
  ImGui::SetNextWindowSize(ImVec2(vp->Size.x, status_height_));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus;
  if (ImGui::Begin("##status", nullptr, flags)) {
    bool any = false;
    for (auto& job : app_.jobs) {
      if (job->finished()) continue;
      any = true;
      const double f = job->fraction();
      const double left = job->seconds_left();
      const std::string label = (job->status().empty() ? job->name() : job->name() + ": " + job->status()) +
                                (left < 0.0 ? "" : ", about " + run::duration_text(left) + " left");
      ImGui::ProgressBar(f < 0.0 ? 0.0f : float(f), ImVec2(220.0f * scale_, 0), f < 0.0 ? "…" : nullptr);
      ImGui::SameLine();
      ImGui::TextUnformatted(label.c_str());
      ImGui::SameLine();
      ImGui::PushID(job.get());
      if (ImGui::SmallButton(job->cancel_requested() ? "cancelling…" : "Cancel")) job->request_cancel();
      ImGui::PopID();
      ImGui::SameLine();
    }
    if (!any) ImGui::TextUnformatted(app_.status.empty() ? "ready" : app_.status.c_str());
    const size_t errors = std::count_if(app_.problems.begin(), app_.problems.end(),
                                        [](const Problem& p) { return p.severity == Severity::error; });
    const std::string right = fmt::format("{} problem(s)  ·  F1 shortcuts", app_.problems.size());
    ImGui::SameLine(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowWidth() - ImGui::CalcTextSize(right.c_str()).x -
                                                         12.0f * scale_));
    ImGui::PushStyleColor(ImGuiCol_Text, errors ? error_color(env_) : muted_color(env_));
    ImGui::TextUnformatted(right.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::End();
}

void Shell::draw_long_run_question() {
  constexpr const char* kTitle = "Run the whole grid?###long-run";
  if (!app_.long_run_question) return;
  if (!ImGui::IsPopupOpen(kTitle)) ImGui::OpenPopup(kTitle);
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->GetCenter(), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(std::min(vp->Size.x * 0.9f, 560.0f * scale_), 0.0f));
  if (!ImGui::BeginPopupModal(kTitle, nullptr, ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoResize)) return;
  ImGui::TextWrapped("%s", app_.long_run_question->text().c_str());
  ImGui::Spacing();
  const bool run = ImGui::Button("Run");
  ImGui::SameLine();
  const bool cancel = ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false);
  if (run || cancel) {
    app_.answer_long_run(run);
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

namespace {

// Apart by more than half a pixel: ImGui keeps window positions in floats, the layout whole.
bool differs(const Rect& a, const Rect& b) {
  return std::abs(a.pos.x - b.pos.x) > 0.5f || std::abs(a.pos.y - b.pos.y) > 0.5f ||
         std::abs(a.size.x - b.size.x) > 0.5f || std::abs(a.size.y - b.size.y) > 0.5f;
}

}  // namespace

void Shell::draw_views() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  // The work area from the menu bar drawn in this frame: ImGui's WorkPos counts the menu bar
  // only from the next frame on, which put a fresh layout's windows under the menu bar, where
  // imgui.ini then kept them.
  const float menu = std::ceil(menu_height_);
  const Rect work{ImVec2(vp->Pos.x, vp->Pos.y + menu), ImVec2(vp->Size.x, std::max(0.0f, vp->Size.y - menu - status_height_))};
  ShownViews shown_now{};
  for (size_t i = 0; i < shown_now.size(); ++i) shown_now[i] = shown(ViewId(i));
  const bool alone = std::count(shown_now.begin(), shown_now.end(), true) == 1;
  layout_kind_ = choose_layout(work.size, scale_);
  ViewRects tiles{};
  bool more = false;
  FocusRects focus_rects;
  if (focus_mode()) {
    for (size_t i = 0; i < shown_now.size(); ++i) more = more || tabbed(ViewId(i));
    const std::vector<ViewId> focus = focus_views();
    // The lesson as tall as its whole text needs (the Lesson view's measure in the last frame,
    // lesson.cpp), within kLessonShare: the focus views under it keep room to draw in.
    float lesson_share = kDefaultLessonShare;
    if (const auto full = app_.drawn.find("lesson.full"); full != app_.drawn.end() && work.size.y > 0.0f)
      lesson_share =
          std::clamp((std::ceil(full->second[3]) + 2.0f) / work.size.y, kLessonShare[0], kLessonShare[1]);
    focus_rects = tile_focus(focus.size(), more, work, layout_kind_, lesson_share);
    tiles[size_t(ViewId::ladder)] = focus_rects.ladder;
    tiles[size_t(ViewId::lesson)] = focus_rects.lesson;
    for (size_t i = 0; i < focus.size(); ++i) tiles[size_t(focus[i])] = focus_rects.focus[i];
    // The most room the lesson can get: it folds what would not fit there (lesson.cpp).
    const Rect& l = focus_rects.lesson;
    app_.drawn["lesson.room"] = {l.pos.x, l.pos.y, l.size.x, std::floor(work.size.y * kLessonShare[1])};
  } else {
    app_.drawn.erase("lesson.room");
    tiles = tile_views(shown_now, work, layout_kind_);
  }
  const bool first = tiled_work_.size.x == 0.0f;
  // The lesson's height follows its text: a new step re-tiles as a new window size does.
  const Rect& lesson_now = view_rects_[size_t(ViewId::lesson)];
  const bool lesson_resized = focus_mode() && lesson_now.size.y > 0.0f &&
                              std::abs(lesson_now.size.y - tiles[size_t(ViewId::lesson)].size.y) > 0.5f;
  const bool changed = shown_now != tiled_shown_ || differs(work, tiled_work_) || lesson_resized;
  if (reset_layout_) arranged_ = false;
  // Tile now: headless screenshots every frame; otherwise after Reset layout, and when the
  // window or the shown views change while the user has not arranged the windows. On the first
  // frame a saved layout (FirstUseEver) takes precedence.
  const bool apply = fixed_ || reset_layout_ || (changed && !arranged_ && !first);
  // The view a lesson's picture button asked for; one asked for while this frame's windows are
  // drawn is brought forward in the next.
  const std::optional<ViewId> raise = app_.raise_view;
  for (size_t i = 0; i < size_t(ViewId::count_); ++i) {
    const ViewId v = ViewId(i);
    if (!shown_now[i]) {
      view_rects_[i] = Rect{};
      continue;
    }
    const ImGuiCond cond = apply || alone ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
    ImGui::SetNextWindowPos(tiles[i].pos, cond);
    ImGui::SetNextWindowSize(tiles[i].size, cond);
    bool open = true;
    if (raise == v) ImGui::SetNextWindowFocus();  // a lesson's picture drawn by this view
    const ImGuiWindowFlags flags = alone ? ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize : 0;
    // "Title###id": the id stays stable whatever the title says.
    const std::string title = fmt::format("{}###{}", view_title(v), view_name(v));
    const bool visible = ImGui::Begin(title.c_str(), only_.empty() ? &open : nullptr, flags);
    keep_inside(v, tiles[i], work, apply || alone || first);
    if (visible) kDraw[i](app_, env_);
    ImGui::End();
    if (!open) app_.settings.show[i] = false;
  }
  if (more) draw_more_views(focus_rects.more, apply || changed);
  else more_rect_ = Rect{};
  if (app_.raise_view == raise) app_.raise_view.reset();
  tiled_shown_ = shown_now;
  tiled_work_ = work;
  reset_layout_ = false;
}

void Shell::draw_more_views(const Rect& rect, bool apply) {
  // The views the step's lesson does not need, one tab each: a click away, not a window each.
  ImGui::SetNextWindowPos(rect.pos, apply ? ImGuiCond_Always : ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(rect.size, apply ? ImGuiCond_Always : ImGuiCond_FirstUseEver);
  if (ImGui::Begin("More views###more", nullptr, ImGuiWindowFlags_None) &&
      ImGui::BeginTabBar("##more", ImGuiTabBarFlags_FittingPolicyScroll)) {
    // The views the kernel uses first; those it does not (no TMEM on Hopper) last, dimmed.
    std::vector<std::pair<size_t, std::string>> tabs;
    for (size_t i = 0; i < size_t(ViewId::count_); ++i)
      if (tabbed(ViewId(i))) tabs.push_back({i, app_.kernel ? view_not_used(ViewId(i), app_.kernel->kernel()) : ""});
    std::stable_partition(tabs.begin(), tabs.end(), [](const auto& t) { return t.second.empty(); });
    for (const auto& [i, not_used] : tabs) {
      const std::string label = fmt::format("{}###tab-{}", view_title(ViewId(i)), view_name(ViewId(i)));
      if (!not_used.empty()) ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env_));
      // A lesson's picture drawn by this view selects its tab and brings the window forward.
      const bool raise = app_.raise_view == ViewId(i);
      if (raise) ImGui::SetWindowFocus();
      const bool open = ImGui::BeginTabItem(label.c_str(), nullptr, raise ? ImGuiTabItemFlags_SetSelected : 0);
      if (!not_used.empty()) ImGui::PopStyleColor();
      if (!not_used.empty() && ImGui::IsItemHovered())
        ImGui::SetTooltip("not used by this kernel: %s", not_used.c_str());
      if (open) {
        ImGui::BeginChild(view_name(ViewId(i)));
        kDraw[i](app_, env_);
        ImGui::EndChild();
        ImGui::EndTabItem();
      }
    }
    ImGui::EndTabBar();
  }
  more_rect_ = Rect{ImGui::GetWindowPos(), ImGui::GetWindowSize()};
  ImGui::End();
}

void Shell::keep_inside(ViewId v, const Rect& tile, const Rect& work, bool applied) {
  const Rect actual{ImGui::GetWindowPos(), ImGui::GetWindowSize()};
  const Rect inside = clamp_into(actual, work);
  // Moving the window being drawn shows from the next frame on; only a saved layout, a smaller
  // window or a drag under the menu bar get here.
  if (differs(inside, actual)) {
    ImGui::SetWindowPos(inside.pos);
    ImGui::SetWindowSize(inside.size);
  }
  // Arranged: a saved layout that is not the tiling, or the user moved or resized a window.
  const Rect& before = view_rects_[size_t(v)];
  if (applied ? differs(actual, tile) && before.size.x == 0.0f : differs(actual, before)) arranged_ = true;
  // Where the window is now, as ImGui has it (SetWindowPos/Size apply at once).
  view_rects_[size_t(v)] = Rect{ImGui::GetWindowPos(), ImGui::GetWindowSize()};
}

nlohmann::json Shell::describe_layout() const {
  nlohmann::json views = nlohmann::json::object();
  for (size_t i = 0; i < view_rects_.size(); ++i) {
    const Rect& r = view_rects_[i];
    if (r.size.x > 0.0f) views[view_name(ViewId(i))] = {r.pos.x, r.pos.y, r.size.x, r.size.y};
  }
  nlohmann::json tabs = nlohmann::json::array();
  for (size_t i = 0; i < size_t(ViewId::count_); ++i)
    if (tabbed(ViewId(i))) tabs.push_back(view_name(ViewId(i)));
  nlohmann::json focus = nlohmann::json::array();
  for (ViewId v : focus_views()) focus.push_back(view_name(v));
  nlohmann::json not_used = nlohmann::json::object();
  if (app_.kernel)
    for (size_t i = 0; i < size_t(ViewId::count_); ++i)
      if (const std::string why = view_not_used(ViewId(i), app_.kernel->kernel()); !why.empty())
        not_used[view_name(ViewId(i))] = why;
  return {{"menu_bar_height", menu_height_},
          {"status_bar_height", status_height_},
          {"kind", layout_kind_name(layout_kind_)},
          {"focus", focus_mode()},
          {"focus_views", focus},
          {"tabs", tabs},
          {"not_used", not_used},
          {"more", more_rect_.size.x > 0.0f ? nlohmann::json{more_rect_.pos.x, more_rect_.pos.y, more_rect_.size.x,
                                                             more_rect_.size.y}
                                            : nlohmann::json(nullptr)},
          {"arranged", arranged_},
          {"views", views}};
}

}  // namespace gs::gui
