// The app's options, persisted as a small JSON file in the user's config directory
// ($XDG_CONFIG_HOME/gemmscope/settings.json, else ~/.config/gemmscope/settings.json) next to
// ImGui's window layout (imgui.ini). A damaged file is reported and replaced by defaults; it
// never stops the app.
#pragma once

#include <array>
#include <string>

#include <nlohmann/json.hpp>

namespace gs::gui {

enum class Theme : uint8_t { dark, light };

// One show flag per view, in the order of the View menu.
// The views, from views.def (one row per view).
enum class ViewId : uint8_t {
#define VIEW(id, cli_name, title, ...) id,
#include "gui/core/views.def"
#undef VIEW
  count_,
};
const char* view_name(ViewId v);        // "ladder", "ptx", ... (the --view names)
const char* view_title(ViewId v);       // "Ladder", "PTX", ...
bool parse_view_name(const std::string& name, ViewId& out);

struct Settings {
  Theme theme = Theme::dark;
  float font_scale = 0.0f;  // 0: from the window size and the monitor's content scale (gui/app/layout.hpp)
  std::array<bool, size_t(ViewId::count_)> show{};  // all true by default (see defaults())
  // The focus layout: the step's lesson, the ladder and the views its KernelInfo::focus_views
  // names in windows, the other shown views as tabs of one window (gui/app/layout.hpp). false:
  // every shown view in a window of its own (View > All views).
  bool focus_layout = true;
  std::string last_kernel;  // empty (or no longer a step): the ladder's first step
  uint32_t last_m = 0, last_n = 0, last_k = 0;  // 0: the example shape
  float play_speed = 30.0f;  // steps per second while playing
  int bench_reps = 20;

  static Settings defaults();
  nlohmann::json to_json() const;
  // Unknown keys are ignored; a key of the wrong type keeps its default and adds a warning.
  static Settings from_json(const nlohmann::json& j, std::string* warnings = nullptr);
};

// The directory settings and imgui.ini live in (created on save). Empty when HOME is unset.
std::string config_directory();
// Loads settings from the config directory; defaults (and a warning) if missing or damaged.
Settings load_settings(const std::string& dir, std::string* warnings = nullptr);
// Writes atomically (temp file + rename). Returns false and fills error on failure.
bool save_settings(const Settings& s, const std::string& dir, std::string* error = nullptr);

}  // namespace gs::gui
