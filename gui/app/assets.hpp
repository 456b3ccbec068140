// Where the app's own files are, found at run time so that an installed copy works under any
// prefix, and still after its whole tree is moved: <prefix>/bin/gemmscope looks in
// <prefix>/share/gemmscope. A binary run from its build directory finds nothing there and uses
// the source tree's assets/ instead.
//
// What the app reads from there: icons/gemmscope-N.png, its window icon. Its fonts come from
// fonts-dejavu-core (a declared dependency); fonts/ in the assets folder, when a packager puts
// DejaVu there, is looked in first (theme.cpp).
#pragma once

#include <filesystem>
#include <string>

struct GLFWwindow;

namespace gs::gui {

// The first folder holding icons/ of: `executable`'s folder joined with `relative`, then
// `fallback`. Empty when neither does.
std::string find_assets_dir(const std::filesystem::path& executable, const std::filesystem::path& relative,
                            const std::filesystem::path& fallback);

// find_assets_dir for this process: /proc/self/exe, and the relative path from the installed
// bin/ to share/gemmscope and the source tree's assets/ that CMake compiled in. Found once.
const std::string& assets_dir();

// The path of the font file `file` ("DejaVuSansMono.ttf"): <assets>/fonts first (a packager may
// ship DejaVu there), then where distributions put DejaVu: Debian/Ubuntu (fonts-dejavu-core,
// the .deb's dependency), Fedora, Arch. Empty when none has it.
std::string find_font(const char* file);

// The icon sizes shipped in assets/icons, smallest first.
inline constexpr int kIconSizes[] = {16, 32, 48, 64, 128, 256};

// Gives `window` the icon from <assets>/icons (every size found, so the window manager picks the
// closest one). Returns "" when set, else a warning naming what is missing.
std::string set_window_icon(GLFWwindow* window, const std::string& assets);

}  // namespace gs::gui
