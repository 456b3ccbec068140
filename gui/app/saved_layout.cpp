#include "gui/app/saved_layout.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>
#include <imgui.h>

#include "run/input_file.hpp"
#include "run/output_file.hpp"

namespace gs::gui {

namespace {

// Whether `path` is a regular file that is not an ImGui layout: neither blank nor beginning
// with a section header such as "[Window][PTX###ptx]". Only its first bytes are read (a layout
// too large to load is still a layout, and is replaced by the one on screen). Anything that is
// not a regular file is left to the reader's and the writer's own refusals.
bool is_other_file(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  std::ifstream f(path, std::ios::binary);
  std::string head(4096, '\0');
  f.read(head.data(), std::streamsize(head.size()));
  head.resize(size_t(f.gcount()));
  const size_t start = head.find_first_not_of(" \t\r\n");
  if (start == std::string::npos) return head.size() != size_t(st.st_size);  // blank, if all of it was read
  const std::string line = head.substr(start, head.find('\n', start) - start);
  return !(line.size() >= 4 && line.front() == '[' && line.find("][") != std::string::npos &&
           line.find('\0') == std::string::npos);
}

}  // namespace

bool layout_file_replaceable(const std::string& path) { return !is_other_file(path); }

LayoutFile read_layout_file(const std::string& path) {
  LayoutFile out;
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(path, ec)) return out;  // a first start
  const auto ignored = [&](const std::string& why) {
    out.text.clear();
    out.notice = fmt::format("{}: the window layout was ignored and the default layout is used (the file is replaced "
                             "when the layout is saved)",
                             why);
    return out;
  };
  if (is_other_file(path)) {
    out.replaceable = false;
    out.notice = fmt::format("'{}' is not a window layout (it does not begin with a section such as [Window][...]): "
                             "the default layout is used and the file is left as it is",
                             path);
    return out;
  }
  try {
    // Refused from its size before anything is read (run/input_file.hpp).
    out.text = run::read_input_file(path, kMaxLayoutFileBytes, run::InputKinds::regular_only);
  } catch (const std::exception& e) {
    return ignored(e.what());
  }
  if (std::find(out.text.begin(), out.text.end(), '\0') != out.text.end())
    return ignored(fmt::format("'{}' is not a text file", path));
  return out;
}

bool save_layout_file(const std::string& path, std::string& error) {
  if (is_other_file(path)) {
    error = fmt::format("'{}' is not a window layout file: it was left as it is", path);
    return false;
  }
  size_t size = 0;
  const char* text = ImGui::SaveIniSettingsToMemory(&size);
  // Through the one output writer: a temporary file renamed over the layout (links followed).
  try {
    run::write_output_file(path, std::string_view(text, size), "window layout");
  } catch (const std::exception& e) {
    error = e.what();
    return false;
  }
  return true;
}

}  // namespace gs::gui
