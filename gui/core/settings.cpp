#include "gui/core/settings.hpp"

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include <sys/stat.h>

#include <fmt/format.h>

#include "kernels/registry.hpp"
#include "run/input_file.hpp"
#include "run/output_file.hpp"

namespace gs::gui {

namespace {
// settings.json is a few hundred bytes, three levels deep.
constexpr size_t kMaxSettingsBytes = size_t(1) << 20;
constexpr int kMaxSettingsDepth = 8;
constexpr size_t kMaxKernelIdLength = 64;
constexpr double kMinPlaySpeed = 0.1, kMaxPlaySpeed = 10000.0;
// The UI scales a settings file may ask for (0 is automatic): smaller fonts cannot be built.
constexpr double kMinFontScale = 0.5, kMaxFontScale = 4.0;
constexpr int kMaxBenchReps = 1000;

struct ViewNames {
  const char* name;
  const char* title;
};
constexpr ViewNames kViews[] = {
#define VIEW(id, cli_name, title, ...) {cli_name, title},
#include "gui/core/views.def"
#undef VIEW
};
static_assert(std::size(kViews) == size_t(ViewId::count_));
}  // namespace

const char* view_name(ViewId v) { return v < ViewId::count_ ? kViews[size_t(v)].name : "?"; }
const char* view_title(ViewId v) { return v < ViewId::count_ ? kViews[size_t(v)].title : "?"; }

bool parse_view_name(const std::string& name, ViewId& out) {
  for (size_t i = 0; i < size_t(ViewId::count_); ++i)
    if (name == kViews[i].name) {
      out = ViewId(i);
      return true;
    }
  return false;
}

Settings Settings::defaults() {
  Settings s;
  s.show.fill(true);
  // The Diff view is a question a learner asks now and then (View menu): closed at first, so
  // the default layout keeps its room for the views that follow the cursor.
  s.show[size_t(ViewId::diff)] = false;
  // The Compare view runs the model for two variants when it shows: opened from the View menu.
  s.show[size_t(ViewId::compare)] = false;
  s.show[size_t(ViewId::sass)] = false;  // the View menu opens it; the program column is full
  // The machine's pictures (GPU, Memory, Tiling) are reference a learner opens from the View
  // menu: closed at first, so the default layout keeps its room for the views of the cursor.
  s.show[size_t(ViewId::gpu)] = false;
  s.show[size_t(ViewId::memory)] = false;
  s.show[size_t(ViewId::tiling)] = false;
  // A sweep is a question asked now and then too, and it runs the model many times when asked.
  s.show[size_t(ViewId::sweep)] = false;
  return s;
}

nlohmann::json Settings::to_json() const {
  nlohmann::json views = nlohmann::json::object();
  for (size_t i = 0; i < show.size(); ++i) views[kViews[i].name] = show[i];
  return {{"theme", theme == Theme::dark ? "dark" : "light"},
          {"font_scale", font_scale},
          {"views", views},
          {"focus_layout", focus_layout},
          {"last_kernel", last_kernel},
          {"last_shape", {last_m, last_n, last_k}},
          {"play_speed", play_speed},
          {"bench_reps", bench_reps}};
}

Settings Settings::from_json(const nlohmann::json& j, std::string* warnings) {
  Settings s = defaults();
  auto warn = [&](const std::string& key, const char* expected) {
    if (warnings) *warnings += "settings: '" + key + "' should be " + expected + "; using the default\n";
  };
  if (!j.is_object()) {
    warn("(file)", "a JSON object");
    return s;
  }
  if (j.contains("theme")) {
    const auto& t = j["theme"];
    if (t == "dark") s.theme = Theme::dark;
    else if (t == "light") s.theme = Theme::light;
    else warn("theme", "\"dark\" or \"light\"");
  }
  // Numbers: a value outside its range (or of another type) keeps the default. nlohmann reads
  // 1e-30 as a number and 4294967297 as an integer that would wrap in an int: every bound is
  // checked on the value as read, before any narrowing.
  const auto number_in = [&](const char* key, double lo, double hi, bool integer, auto& field, const char* expected) {
    if (!j.contains(key)) return;
    const nlohmann::json& v = j[key];
    const bool ok = integer ? (v.is_number_integer() && v.get<double>() >= lo && v.get<double>() <= hi)
                            : (v.is_number() && v.get<double>() >= lo && v.get<double>() <= hi);
    if (ok) field = static_cast<std::decay_t<decltype(field)>>(v.get<double>());
    else warn(key, expected);
  };
  if (j.contains("font_scale")) {
    // 0 is "automatic"; a scale smaller than kMinFontScale makes fonts ImGui cannot build.
    const nlohmann::json& v = j["font_scale"];
    if (v.is_number() && v.get<double>() == 0.0) s.font_scale = 0.0f;
    else number_in("font_scale", kMinFontScale, kMaxFontScale, false, s.font_scale,
                   "0 (automatic) or a number from 0.5 to 4");
  }
  if (j.contains("views")) {
    if (j["views"].is_object()) {
      for (size_t i = 0; i < s.show.size(); ++i) {
        auto it = j["views"].find(kViews[i].name);
        if (it == j["views"].end()) continue;
        if (it->is_boolean()) s.show[i] = it->get<bool>();
        else warn(std::string("views.") + kViews[i].name, "true or false");
      }
    } else warn("views", "an object of true/false per view");
  }
  if (j.contains("focus_layout")) {
    if (j["focus_layout"].is_boolean()) s.focus_layout = j["focus_layout"].get<bool>();
    else warn("focus_layout", "true or false");
  }
  if (j.contains("last_kernel")) {
    if (j["last_kernel"].is_string() && j["last_kernel"].get_ref<const std::string&>().size() <= kMaxKernelIdLength)
      s.last_kernel = j["last_kernel"].get<std::string>();
    else warn("last_kernel", "a kernel id");
  }
  if (j.contains("last_shape")) {
    const auto& sh = j["last_shape"];
    const auto dimension = [](const nlohmann::json& v) {
      return v.is_number_unsigned() && v.get<uint64_t>() <= kernels::kMaxGemmDimension;
    };
    if (sh.is_array() && sh.size() == 3 && dimension(sh[0]) && dimension(sh[1]) && dimension(sh[2])) {
      s.last_m = sh[0].get<uint32_t>();
      s.last_n = sh[1].get<uint32_t>();
      s.last_k = sh[2].get<uint32_t>();
    } else warn("last_shape", fmt::format("[M, N, K] of integers from 0 (the example shape) to {}", kernels::kMaxGemmDimension).c_str());
  }
  number_in("play_speed", kMinPlaySpeed, kMaxPlaySpeed, false, s.play_speed,
            "a number of steps per second from 0.1 to 10000");
  number_in("bench_reps", 1, kMaxBenchReps, true, s.bench_reps, "an integer from 1 to 1000");
  return s;
}

std::string config_directory() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) return std::string(xdg) + "/gemmscope";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.config/gemmscope";
  return "";
}

Settings load_settings(const std::string& dir, std::string* warnings) {
  if (dir.empty()) return Settings::defaults();
  const std::string path = dir + "/settings.json";
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 && errno == ENOENT) return Settings::defaults();  // first start: nothing to warn about
  // The file is read like any outside data: a regular file of bounded size and nesting.
  nlohmann::json j;
  try {
    j = run::parse_json_bounded(run::read_input_file(path, kMaxSettingsBytes, run::InputKinds::regular_only),
                                kMaxSettingsDepth);
  } catch (const std::exception& e) {
    if (warnings) *warnings += "settings: " + std::string(e.what()) + "; using the defaults (it will be rewritten)\n";
    return Settings::defaults();
  }
  return Settings::from_json(j, warnings);
}

bool save_settings(const Settings& s, const std::string& dir, std::string* error) {
  if (dir.empty()) {
    if (error) *error = "no config directory (HOME and XDG_CONFIG_HOME are unset)";
    return false;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  // Through the one output writer: a temporary file renamed over settings.json, following a
  // symbolic link (dotfiles kept elsewhere stay linked).
  try {
    run::write_output_file(dir + "/settings.json", s.to_json().dump(2) + "\n", "settings");
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
  return true;
}

}  // namespace gs::gui
