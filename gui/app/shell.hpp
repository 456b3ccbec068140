// The frame around the views: main menu, one window per shown view tiled into the window
// (layout.hpp), the status bar with running jobs (progress, cancel), the help overlay and the
// global shortcuts.
//
// Placement: a window the user has not moved or resized follows the tiling, which is redone
// when the window's size or the set of shown views changes; once the user arranges windows
// (or a saved layout places them elsewhere) they stay where they are until View > Reset
// layout. Either way every view window is kept inside the work area, so none hides the menu
// bar, the status bar or lies off screen (a damaged imgui.ini, a smaller window).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gui/app/import_timeline_dialog.hpp"
#include "gui/app/layout.hpp"
#include "gui/app/save_picture.hpp"
#include "gui/app/theme.hpp"
#include "gui/core/app_state.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

std::string& last_glfw_error();

class Shell {
 public:
  Shell(AppState& app, const Fonts& fonts, float scale);
  // New fonts and scale (the atlas was rebuilt for a new window size, app.cpp).
  void set_fonts(const Fonts& fonts, float scale);
  // `only`: show just these views (empty: the settings' show flags). `fixed`: windows stay at
  // their default places every frame (headless screenshots are then reproducible).
  void set_views(const std::vector<ViewId>& only, bool fixed);
  void draw_frame();
  bool quit_requested() const { return quit_; }
  // The views on screen, which the View menu ticks.
  std::vector<std::string> shown_view_names() const;
  // The View menu's click: the views on screen, with `v` switched on or off.
  void toggle_view(ViewId v, bool on);
  float status_bar_height() const { return status_height_; }  // pixels at the bottom, last frame
  // The last frame's layout for --state-json: menu and status bar heights, the layout kind,
  // and each shown view window's rectangle [x, y, w, h].
  nlohmann::json describe_layout() const;
  // Frees the OpenGL objects the views own (the fragments view's cell picture); call while the
  // context is still current.
  void release_gl() { fragment_cells_.release(); }
  // File > Save picture's PNG, once a frame without the dialog is drawn (app.cpp reads it back).
  std::optional<PngRequest> take_png_request() { return save_picture_.take_png_request(); }
  // View `v`'s window in the last frame (size 0: not shown).
  Rect view_rect(ViewId v) const { return view_rects_[size_t(v)]; }
  // The images the views draw, each with the number of times its content changed.
  std::vector<std::pair<ImTextureID, uint64_t>> image_versions() const {
    return {{fragment_cells_.texture_id(), fragment_cells_.uploads()}};
  }

 private:
  void draw_menu_bar();
  void draw_status_bar();
  void draw_views();
  void draw_long_run_question();  // the modal that asks before a long whole-grid run
  bool shown(ViewId v) const;
  // The focus layout is on (the settings ask for it and --view named no views).
  bool focus_mode() const;
  // The loaded step's focus views (KernelInfo::focus_views) other than the lesson and ladder.
  std::vector<ViewId> focus_views() const;
  // A view shown as a tab of the "More views" window (focus layout: shown, not a focus view).
  bool tabbed(ViewId v) const;
  void draw_more_views(const Rect& rect, bool apply);
  // After the Begin of view `v`'s window: moves it inside `work` if it is not, notes whether the
  // user (or a saved layout) arranged it away from its `tile` (`applied`: placed there this
  // frame), and records where it is.
  void keep_inside(ViewId v, const Rect& tile, const Rect& work, bool applied);

  AppState& app_;
  Fonts fonts_;
  float scale_;
  ViewEnv env_;
  RasterImage fragment_cells_;
  SavePictureDialog save_picture_;
  ImportTimelineDialog import_timeline_;
  std::vector<ViewId> only_;
  bool fixed_ = false;
  bool reset_layout_ = false;
  bool show_help_ = false;
  bool quit_ = false;
  float menu_height_ = 0.0f, status_height_ = 0.0f;
  // The layout: what was last tiled (shown views and work area), whether the user arranged the
  // windows since, and each view window's rectangle in the last frame (size 0: not shown).
  ShownViews tiled_shown_{};
  Rect tiled_work_{};
  LayoutKind layout_kind_ = LayoutKind::four_columns;
  bool arranged_ = false;
  ViewRects view_rects_{};
  Rect more_rect_{};  // the "More views" window in the last frame (size 0: none)
};

}  // namespace gs::gui
