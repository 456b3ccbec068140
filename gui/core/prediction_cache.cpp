#include "gui/core/prediction_cache.hpp"

#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "run/build_info.hpp"
#include "run/input_file.hpp"
#include "run/output_file.hpp"

namespace gs::gui {

namespace {

constexpr size_t kMaxCacheBytes = 1 << 20;  // 22 steps x 3 cards take about 10 KB
constexpr int kMaxCacheDepth = 4;
constexpr size_t kMaxEntries = 4096;
const char* const kFile = "speed-ladder.json";

}  // namespace

std::string cache_directory() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/gemmscope";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/gemmscope";
  return "";
}

std::string program_identity() {
  struct stat st {};
  if (stat("/proc/self/exe", &st) != 0) return "";  // no way to tell a rebuild: no cache
  return fmt::format("gemmscope {}; executable {} bytes, modified {}.{:09d}", gs::version_string(),
                     uint64_t(st.st_size), int64_t(st.st_mtim.tv_sec), int64_t(st.st_mtim.tv_nsec));
}

std::map<std::string, SpeedPrediction> load_prediction_cache(const std::string& dir, const std::string& identity,
                                                             std::string* why) {
  std::map<std::string, SpeedPrediction> out;
  const auto fail = [&](const std::string& reason) {
    if (why) *why = reason;
    return std::map<std::string, SpeedPrediction>{};
  };
  if (dir.empty() || identity.empty()) return fail("no cache folder or no program identity");
  const std::string path = dir + "/" + kFile;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return fail("no cache file yet");
  nlohmann::json j;
  try {
    j = run::parse_json_bounded(run::read_input_file(path, kMaxCacheBytes, run::InputKinds::regular_only),
                                kMaxCacheDepth);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  if (!j.is_object() || !j.contains("program") || !j["program"].is_string() || !j.contains("predictions") ||
      !j["predictions"].is_object())
    return fail(path + ": not a prediction cache");
  if (j["program"].get<std::string>() != identity) return fail(path + ": made by another build");
  if (j["predictions"].size() > kMaxEntries) return fail(path + ": too many entries");
  for (const auto& [key, v] : j["predictions"].items()) {
    if (!v.is_object()) return fail(path + ": entry '" + key + "' is not an object");
    SpeedPrediction p;
    p.done = true;
    const auto tflops = v.find("tflops");
    const auto machine = v.find("machine");
    const auto confirmed = v.find("confirmed");
    const auto error = v.find("error");
    if (tflops == v.end() || !tflops->is_number() || machine == v.end() || !machine->is_string() ||
        confirmed == v.end() || !confirmed->is_boolean() || error == v.end() || !error->is_string())
      return fail(path + ": entry '" + key + "' lacks tflops, machine, confirmed or error");
    p.tflops = tflops->get<double>();
    if (!std::isfinite(p.tflops) || p.tflops < 0.0) return fail(path + ": entry '" + key + "' has a bad figure");
    p.machine = machine->get<std::string>();
    p.confirmed = confirmed->get<bool>();
    p.error = error->get<std::string>();
    out.emplace(key, std::move(p));
  }
  return out;
}

bool save_prediction_cache(const std::string& dir, const std::string& identity,
                           const std::map<std::string, SpeedPrediction>& predictions, std::string* why) {
  if (dir.empty() || identity.empty()) {
    if (why) *why = "no cache folder or no program identity";
    return false;
  }
  nlohmann::json entries = nlohmann::json::object();
  // Only figures: an error may be the moment's (a cancelled job, memory) rather than the model's.
  for (const auto& [key, p] : predictions)
    if (p.done && p.error.empty() && p.tflops > 0.0)
      entries[key] = {{"tflops", p.tflops}, {"machine", p.machine}, {"confirmed", p.confirmed}, {"error", p.error}};
  const nlohmann::json j{{"program", identity}, {"predictions", entries}};
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  try {
    run::write_output_file(dir + "/" + kFile, j.dump(1) + "\n", "the prediction cache");
  } catch (const std::exception& e) {
    if (why) *why = e.what();
    return false;
  }
  return true;
}

}  // namespace gs::gui
