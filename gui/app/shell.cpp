#include "gui/app/shell.hpp"

#include <algorithm>

#include <GLFW/glfw3.h>
#include <fmt/format.h>

#include "gui/app/layout.hpp"
#include "run/build_info.hpp"

namespace gs::gui {

namespace {
using DrawFn = void (*)(AppState&, const ViewEnv&);
constexpr DrawFn kDraw[] = {
#define VIEW(id, cli_name, title) draw_##id,
#include "gui/core/views.def"
#undef VIEW
};
static_assert(std::size(kDraw) == size_t(ViewId::count_));
}  // namespace

Shell::Shell(AppState& app, const Fonts& fonts, float scale) : app_(app), fonts_(fonts), scale_(scale) {
  env_.mono = fonts.mono;
  env_.bold = fonts.bold;
  env_.mono_small = fonts.mono_small;
  env_.scale = scale;
  env_.fragment_cells = &fragment_cells_;
  env_.dark = app.settings.theme == Theme::dark;
}

void Shell::set_views(const std::vector<ViewId>& only, bool fixed) {
  only_ = only;
  fixed_ = fixed;
}

bool Shell::shown(ViewId v) const {
  if (!only_.empty()) return std::find(only_.begin(), only_.end(), v) != only_.end();
  return app_.settings.show[size_t(v)];
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
  draw_menu_bar();
  draw_status_bar();
  draw_views();
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
      bool on = app_.settings.show[i];
      if (ImGui::MenuItem(view_title(ViewId(i)), nullptr, &on)) {
        app_.settings.show[i] = on;
        only_.clear();
      }
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Show all")) {
      app_.settings.show.fill(true);
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
  status_height_ = ImGui::GetFrameHeightWithSpacing() + 6.0f * scale_;
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x, vp->WorkPos.y + vp->WorkSize.y - status_height_));
  ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x, status_height_));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus;
  if (ImGui::Begin("##status", nullptr, flags)) {
    bool any = false;
    for (auto& job : app_.jobs) {
      if (job->finished()) continue;
      any = true;
      const double f = job->fraction();
      const std::string label = job->status().empty() ? job->name() : job->name() + ": " + job->status();
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

void Shell::draw_views() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const ImVec2 work_pos = vp->WorkPos;
  const ImVec2 work_size(vp->WorkSize.x, vp->WorkSize.y - status_height_);
  const std::vector<std::string> names = shown_view_names();
  const bool alone = names.size() == 1;
  const ImGuiCond cond = fixed_ || reset_layout_ ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
  for (size_t i = 0; i < size_t(ViewId::count_); ++i) {
    const ViewId v = ViewId(i);
    if (!shown(v)) continue;
    const Rect r = default_view_rect(v, work_pos, work_size, alone);
    ImGui::SetNextWindowPos(r.pos, alone ? ImGuiCond_Always : cond);
    ImGui::SetNextWindowSize(r.size, alone ? ImGuiCond_Always : cond);
    bool open = true;
    const ImGuiWindowFlags flags = alone ? ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize : 0;
    // "Title###id": the id stays stable whatever the title says.
    const std::string title = fmt::format("{}###{}", view_title(v), view_name(v));
    if (ImGui::Begin(title.c_str(), only_.empty() ? &open : nullptr, flags)) kDraw[i](app_, env_);
    ImGui::End();
    if (!open) app_.settings.show[i] = false;
  }
  reset_layout_ = false;
}

}  // namespace gs::gui
