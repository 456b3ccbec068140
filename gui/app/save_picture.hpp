// File > Save picture: the dialog that picks what to save (the whole window or one shown view),
// as what (PNG, or SVG for the layout views: gui/core/picture.hpp) and where. SVG is written
// at once from the view's data; PNG is read back from the frame after the dialog closed (so
// the dialog is not in the picture) by save_png_picture, cropped to the view's window.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "gui/app/layout.hpp"
#include "gui/core/picture.hpp"

namespace gs::gui {

struct AppState;

// A PNG to take from the back buffer: the rectangle in window coordinates (size 0: all of it).
struct PngRequest {
  std::string path;
  Rect area;
};

// The back buffer as PNG bytes (rows flipped: OpenGL's origin is bottom-left): all of it, or
// the rectangle at (x, y) from the top-left of a w x h part; empty when encoding failed.
std::string png_of_back_buffer(int fb_w, int fb_h, int x = 0, int y = 0, int w = -1, int h = -1);

// Saves `r` from the back buffer of an fb_w x fb_h framebuffer: the window, or a view's window
// cropped out of it (window coordinates scaled to the framebuffer's pixels, clamped to it).
// False, with a problem added to app, when it was not saved.
bool save_png_picture(AppState& app, const PngRequest& r, int fb_w, int fb_h);

class SavePictureDialog {
 public:
  void open() { open_requested_ = true; }
  // Draws the dialog when open. `shown`: the views on screen, `rects`: their windows.
  void draw(AppState& app, const ShownViews& shown, const ViewRects& rects);
  // Called once a frame after drawing: a PNG request made in an earlier frame, now that a frame
  // without the dialog is in the back buffer.
  std::optional<PngRequest> take_png_request();

 private:
  void reset_path(AppState& app);

  bool open_requested_ = false;
  int what_ = -1;                  // -1: the whole window; else a ViewId
  PictureFormat format_ = PictureFormat::png;
  int svg_part_ = 0;
  std::array<char, 1024> path_{};
  std::optional<PngRequest> pending_;
  bool pending_ready_ = false;     // a frame has been drawn since the request
  std::string folder_;             // where the last picture went (empty: the home folder)
};

}  // namespace gs::gui
