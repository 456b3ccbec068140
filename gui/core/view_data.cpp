#include "gui/core/view_data.hpp"

#include "gui/core/app_state.hpp"

namespace gs::gui {

nlohmann::json describe_views(AppState& app) {
  return {{"ladder", describe_ladder(app)},
          {"ptx", describe_ptx(app)},
          {"transport", describe_transport(app)},
          {"warps", describe_warps(app)},
          {"smem", describe_shared_memory(app)},
          {"tma", describe_tma_pipeline(app)},
          {"fragments", describe_fragments(app)},
          {"throughput", describe_throughput(app)},
          {"problems", describe_problems(app)}};
}

}  // namespace gs::gui
