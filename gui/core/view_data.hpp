// The data behind each view as JSON: what the headless `gemmscope gui --state-json FILE` writes
// and what the GUI tests check (playback position, the selected instruction and its PTX line,
// the bank view of the current access, ...). Each describe_<view> sits next to the prepared
// data its view draws from, so the JSON and the pixels come from the same numbers.
#pragma once

#include <nlohmann/json.hpp>

namespace gs::gui {

struct AppState;

nlohmann::json describe_views(AppState& app);  // {"ladder": ..., "ptx": ..., ...}

// One per row of views.def, each defined in gui/core/<id>_data.cpp.
#define VIEW(id, cli_name, title, ...) nlohmann::json describe_##id(AppState& app);
#include "gui/core/views.def"
#undef VIEW

}  // namespace gs::gui
