// The Timeline view's parts for a timeline recorded on a GPU (gui/views/timeline_compare.cpp).
#pragma once

#include "gui/views/views.hpp"

namespace gs::gui {

// The "GPU vs model" tab: the recorded lanes over the model's, the differences, the SMs' tiles.
void draw_timeline_compare(AppState& app, const ViewEnv& env);
// "Record on this GPU": the open kernel's timeline recorded on this machine's GPU, as a job.
void draw_record_button(AppState& app, const ViewEnv& env);

}  // namespace gs::gui
