// The frame around the views: main menu, one window per shown view at its default place, the
// status bar with running jobs (progress, cancel), the help overlay and the global shortcuts.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gui/app/theme.hpp"
#include "gui/core/app_state.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

std::string& last_glfw_error();

class Shell {
 public:
  Shell(AppState& app, const Fonts& fonts, float scale);
  // `only`: show just these views (empty: the settings' show flags). `fixed`: windows stay at
  // their default places every frame (headless screenshots are then reproducible).
  void set_views(const std::vector<ViewId>& only, bool fixed);
  void draw_frame();
  bool quit_requested() const { return quit_; }
  std::vector<std::string> shown_view_names() const;
  float status_bar_height() const { return status_height_; }  // pixels at the bottom, last frame
  // Frees the OpenGL objects the views own (the fragments view's cell picture); call while the
  // context is still current.
  void release_gl() { fragment_cells_.release(); }
  // The images the views draw, each with the number of times its content changed.
  std::vector<std::pair<ImTextureID, uint64_t>> image_versions() const {
    return {{fragment_cells_.texture_id(), fragment_cells_.uploads()}};
  }

 private:
  void draw_menu_bar();
  void draw_status_bar();
  void draw_views();
  bool shown(ViewId v) const;

  AppState& app_;
  Fonts fonts_;
  float scale_;
  ViewEnv env_;
  RasterImage fragment_cells_;
  std::vector<ViewId> only_;
  bool fixed_ = false;
  bool reset_layout_ = false;
  bool show_help_ = false;
  bool quit_ = false;
  float menu_height_ = 0.0f, status_height_ = 0.0f;
};

}  // namespace gs::gui
