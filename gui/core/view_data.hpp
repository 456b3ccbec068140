// The data behind each view as JSON: what the headless `gemmscope gui --state-json FILE` writes
// and what the GUI tests check (playback position, the selected instruction and its PTX line,
// the bank view of the current access, ...). Each describe_<view> sits next to the prepared
// data its view draws from, so the JSON and the pixels come from the same numbers.
#pragma once

#include <nlohmann/json.hpp>

namespace gs::gui {

struct AppState;

nlohmann::json describe_views(AppState& app);  // {"ladder": ..., "ptx": ..., ...}

nlohmann::json describe_ladder(AppState& app);
nlohmann::json describe_ptx(AppState& app);
nlohmann::json describe_transport(AppState& app);
nlohmann::json describe_warps(AppState& app);
nlohmann::json describe_shared_memory(AppState& app);
nlohmann::json describe_tma_pipeline(AppState& app);
nlohmann::json describe_fragments(AppState& app);
nlohmann::json describe_throughput(AppState& app);
nlohmann::json describe_problems(AppState& app);

}  // namespace gs::gui
