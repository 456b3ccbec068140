// The window the app draws in (run_app, app.cpp): a GLFW window with an OpenGL 3.3 core
// context, Dear ImGui on it with the saved window layout, the fonts at the UI scale and the
// OpenGL renderer. Opened once per run and torn down in the reverse order; the frame loop asks
// it for the scale the window wants and rebuilds the fonts between frames when that changes.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>

#include "gui/app/app.hpp"
#include "gui/app/renderer.hpp"
#include "gui/app/theme.hpp"

struct GLFWwindow;

namespace gs::gui {

class Shell;

class AppWindow {
 public:
  ~AppWindow();
  AppWindow(const AppWindow&) = delete;
  AppWindow& operator=(const AppWindow&) = delete;

  // The window for `o`, or nullptr after saying why on err (no display, no driver for the
  // profile, no OpenGL drawing). Problems that do not stop the app (a missing icon or font, a
  // layout file reset) go to app's problems.
  static std::unique_ptr<AppWindow> open(const AppOptions& o, bool headless, AppState& app, std::ostream& err);

  GLFWwindow* glfw() const { return window_; }
  Renderer& gl() { return gl_; }
  const Fonts& fonts() const { return fonts_; }
  float scale() const { return scale_; }
  const std::string& renderer_name() const { return renderer_; }
  const std::string& icon_warning() const { return icon_warning_; }
  // Where the window layout is read from and written to ("" for none).
  const std::string& layout_path() const { return layout_path_; }
  bool should_close() const;
  // The framebuffer's size in pixels.
  void framebuffer_size(int& width, int& height) const;

  // Between frames, where ImGui allows the atlas to change: when the UI scale the window wants
  // (layout.hpp) is not the current one, reloads the fonts and the theme at it and hands them
  // to the shell. False, after saying why on err, when the fonts cannot be uploaded.
  bool follow_scale(const Settings& settings, Shell& shell, std::ostream& err);

 private:
  AppWindow() = default;
  float wanted_scale(const Settings& settings) const;

  GLFWwindow* window_ = nullptr;
  bool imgui_ = false, imgui_glfw_ = false, gl_ready_ = false;
  std::string renderer_, icon_warning_, layout_path_;
  float scale_ = 1.0f;
  Fonts fonts_;
  Renderer gl_;
};

}  // namespace gs::gui
