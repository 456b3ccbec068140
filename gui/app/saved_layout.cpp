#include "gui/app/saved_layout.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>
#include <imgui.h>

#include "run/input_file.hpp"
#include "run/output_file.hpp"

namespace gs::gui {

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
