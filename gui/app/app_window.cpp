#include "gui/app/app_window.hpp"

#include <cstdlib>
#include <cstring>
#include <ostream>
#include <vector>

#include <dlfcn.h>
#include <link.h>

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <imgui_internal.h>  // the tables' pool, to reset their column widths on a new scale
#include <fmt/format.h>

#include "gui/app/assets.hpp"
#include "gui/app/layout.hpp"
#include "gui/app/saved_layout.hpp"
#include "gui/app/shell.hpp"

namespace gs::gui {

bool display_available() {
  const char* x = std::getenv("DISPLAY");
  const char* w = std::getenv("WAYLAND_DISPLAY");
  return (x && *x) || (w && *w);
}

std::string& last_glfw_error() {
  static std::string e;
  return e;
}

namespace {

void glfw_error(int code, const char* text) { last_glfw_error() = fmt::format("GLFW error {}: {}", code, text); }

// Under AddressSanitizer only: keeps the OpenGL driver (Mesa's *_dri.so, libgallium) loaded to
// the end. Mesa dlcloses it when GLFW closes the display; buffers the driver still points to
// from its globals then look leaked to LeakSanitizer at exit (240 bytes under Xvfb, "from
// <unknown module>") on every GUI run. A suppressions file cannot name them: suppressions
// match module and function names, and an unmapped module has neither. Kept mapped, the
// buffers stay reachable, as they are, and any other leak still reports.
void keep_gl_driver_loaded_for_lsan() {
#if defined(__SANITIZE_ADDRESS__)
  std::vector<std::string> drivers;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) -> int {
        const char* name = info->dlpi_name;
        if (name && (std::strstr(name, "_dri.so") || std::strstr(name, "libgallium")))
          static_cast<std::vector<std::string>*>(out)->push_back(name);
        return 0;
      },
      &drivers);
  // Outside the iteration, which holds the loader's lock: one more reference, never dropped.
  for (const std::string& d : drivers) dlopen(d.c_str(), RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
#endif
}

// A window with an OpenGL 3.3 core context, or nullptr after saying why on err (no display, no
// driver for the profile).
GLFWwindow* open_glfw_window(const AppOptions& o, std::ostream& err) {
  glfwSetErrorCallback(glfw_error);
  if (!display_available() || !glfwInit()) {
    err << "gemmscope gui: cannot open a window: no display"
        << (last_glfw_error().empty() ? "" : " (" + last_glfw_error() + ")")
        << ". Run it on a desktop, or headless under Xvfb: xvfb-run -a gemmscope gui --screenshot out.png\n";
    return nullptr;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  // The UI is painted in order and never tests depth; without a depth or stencil buffer
  // llvmpipe shades tiles of rectangles with its 8-bit span code (renderer.hpp).
  glfwWindowHint(GLFW_DEPTH_BITS, 0);
  glfwWindowHint(GLFW_STENCIL_BITS, 0);
  GLFWwindow* window = glfwCreateWindow(o.width, o.height, "gemmscope", nullptr, nullptr);
  if (!window) {
    err << "gemmscope gui: cannot create an OpenGL 3.3 window (" << last_glfw_error()
        << "). Check the graphics driver (glxinfo | grep 'core profile').\n";
    glfwTerminate();
    return nullptr;
  }
  return window;
}

}  // namespace

std::unique_ptr<AppWindow> AppWindow::open(const AppOptions& o, bool headless, AppState& app, std::ostream& err) {
  GLFWwindow* window = open_glfw_window(o, err);
  if (!window) return nullptr;
  std::unique_ptr<AppWindow> w(new AppWindow());
  w->window_ = window;
  w->icon_warning_ = set_window_icon(window, assets_dir());
  if (!w->icon_warning_.empty())
    app.add_problem({Severity::warning, "app", "icon", "the window icon is missing", w->icon_warning_});
  glfwMakeContextCurrent(window);
  keep_gl_driver_loaded_for_lsan();
  const char* gl_renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  w->renderer_ = gl_renderer ? gl_renderer : "unknown renderer";
  glfwSwapInterval(headless ? 0 : 1);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  w->imgui_ = true;
  // The window layout is read and written here, not by ImGui (saved_layout.hpp). Headless runs
  // are reproducible: no saved layout unless --layout-file names one.
  w->layout_path_ =
      !o.layout_file.empty() ? o.layout_file : headless || app.config_dir.empty() ? "" : app.config_dir + "/imgui.ini";
  ImGui::GetIO().IniFilename = nullptr;
  if (!w->layout_path_.empty()) {
    const LayoutFile layout = read_layout_file(w->layout_path_);
    if (!layout.notice.empty()) app.add_problem({Severity::warning, "app", "layout", "window layout reset", layout.notice});
    if (!layout.text.empty()) ImGui::LoadIniSettingsFromMemory(layout.text.data(), layout.text.size());
    if (!layout.replaceable) w->layout_path_.clear();  // not a layout: never written over
  }
  // No keyboard navigation: Space and the arrows belong to the transport (views.hpp).

  w->scale_ = w->wanted_scale(app.settings);
  w->fonts_ = load_fonts(w->scale_);
  if (!w->fonts_.warning.empty()) app.add_problem({Severity::warning, "app", "font", "a font is missing", w->fonts_.warning});
  apply_theme(app.settings.theme, w->scale_);
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  w->imgui_glfw_ = true;
  w->gl_.set_text_runs(o.text_runs);
  w->gl_.set_damage_tracking(o.damage);
  if (!w->gl_.init()) {
    err << "gemmscope gui: cannot set up OpenGL drawing on " << w->renderer_ << ": " << w->gl_.error() << "\n";
    return nullptr;
  }
  w->gl_ready_ = true;
  return w;
}

AppWindow::~AppWindow() {
  if (gl_ready_) gl_.shutdown();
  if (imgui_glfw_) ImGui_ImplGlfw_Shutdown();
  if (imgui_) ImGui::DestroyContext();
  glfwDestroyWindow(window_);
  glfwTerminate();
}

bool AppWindow::should_close() const { return glfwWindowShouldClose(window_); }

void AppWindow::framebuffer_size(int& width, int& height) const { glfwGetFramebufferSize(window_, &width, &height); }

// The UI scale: the saved one if set, else from the window's size and the monitor's content
// scale, again whenever the window is resized (layout.hpp).
float AppWindow::wanted_scale(const Settings& settings) const {
  if (settings.font_scale > 0.0f) return settings.font_scale;
  int ww = 0, wh = 0;
  float xscale = 1.0f, yscale = 1.0f;
  glfwGetFramebufferSize(window_, &ww, &wh);  // pixels on X11 and Wayland alike
  if (ww <= 0 || wh <= 0) return scale_;      // minimised: keep the fonts
  glfwGetWindowContentScale(window_, &xscale, &yscale);
  return choose_ui_scale(ww, wh, xscale);
}

bool AppWindow::follow_scale(const Settings& settings, Shell& shell, std::ostream& err) {
  const float want = wanted_scale(settings);
  if (want == scale_) return true;
  scale_ = want;
  ImGui::GetIO().Fonts->Clear();
  fonts_ = load_fonts(scale_);
  apply_theme(settings.theme, scale_);
  shell.set_fonts(fonts_, scale_);
  // Table columns keep the widths measured in the old font: let every table size them again.
  ImGuiContext& g = *ImGui::GetCurrentContext();
  for (int i = 0; i < g.Tables.GetMapSize(); ++i)
    if (ImGuiTable* table = g.Tables.TryGetMapData(i)) table->IsResetAllRequest = true;
  if (!gl_.reload_fonts()) {
    err << "gemmscope gui: cannot upload the fonts on " << renderer_ << ": " << gl_.error() << "\n";
    return false;
  }
  return true;
}

}  // namespace gs::gui
