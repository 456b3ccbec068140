#include "gui/app/assets.hpp"

#include <vector>

#include <GLFW/glfw3.h>
#include <fmt/format.h>
#include <stb_image.h>

namespace gs::gui {

namespace fs = std::filesystem;

std::string find_assets_dir(const fs::path& executable, const fs::path& relative, const fs::path& fallback) {
  std::vector<fs::path> candidates;
  if (!executable.empty()) candidates.push_back(executable.parent_path() / relative);
  if (!fallback.empty()) candidates.push_back(fallback);
  for (const fs::path& dir : candidates) {
    std::error_code ec;
    if (!fs::is_directory(dir / "icons", ec)) continue;
    const fs::path clean = fs::weakly_canonical(dir, ec);
    return (ec ? dir : clean).string();
  }
  return "";
}

const std::string& assets_dir() {
  static const std::string dir = [] {
    std::error_code ec;
    // The binary itself, links resolved: a symlink in /usr/local/bin to an installed tree
    // elsewhere still finds that tree's share/.
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return find_assets_dir(ec ? fs::path() : self, GEMMSCOPE_ASSETS_RELATIVE, GEMMSCOPE_ASSETS_DIR);
  }();
  return dir;
}

std::string find_font(const char* file) {
  const std::string dirs[] = {
      assets_dir().empty() ? "" : assets_dir() + "/fonts",
      "/usr/share/fonts/truetype/dejavu",
      "/usr/share/fonts/dejavu-sans-fonts",
      "/usr/share/fonts/dejavu-sans-mono-fonts",
      "/usr/share/fonts/TTF",
  };
  for (const std::string& d : dirs) {
    std::error_code ec;
    const fs::path p = fs::path(d) / file;
    if (!d.empty() && fs::is_regular_file(p, ec)) return p.string();
  }
  return "";
}

std::string set_window_icon(GLFWwindow* window, const std::string& assets) {
  if (assets.empty())
    return fmt::format("no assets folder found (looked for {} next to the gemmscope binary and for {}): "
                       "reinstall gemmscope",
                       GEMMSCOPE_ASSETS_RELATIVE, GEMMSCOPE_ASSETS_DIR);
  std::vector<GLFWimage> images;
  for (int size : kIconSizes) {
    const fs::path png = fs::path(assets) / "icons" / fmt::format("gemmscope-{}.png", size);
    int w = 0, h = 0, channels = 0;
    unsigned char* pixels = stbi_load(png.string().c_str(), &w, &h, &channels, 4);  // GLFW wants RGBA
    if (pixels) images.push_back({w, h, pixels});
  }
  if (!images.empty()) glfwSetWindowIcon(window, int(images.size()), images.data());  // GLFW copies them
  for (GLFWimage& image : images) stbi_image_free(image.pixels);
  if (images.empty()) return fmt::format("no window icon in {}/icons (gemmscope-N.png)", assets);
  return "";
}

}  // namespace gs::gui
