#include "gui/core/view_data.hpp"

#include "gui/core/app_state.hpp"

namespace gs::gui {

nlohmann::json describe_views(AppState& app) {
  nlohmann::json j = nlohmann::json::object();
#define VIEW(id, cli_name, title, ...) j[cli_name] = describe_##id(app);
#include "gui/core/views.def"
#undef VIEW
  return j;
}

}  // namespace gs::gui
