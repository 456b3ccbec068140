#include "gui/app/import_timeline_dialog.hpp"

#include <algorithm>
#include <filesystem>

#include <imgui.h>

#include "gui/app/assets.hpp"
#include "gui/core/app_state.hpp"

namespace gs::gui {

namespace {

// Imports `path`, opens the recorded kernel at its shape (so the playback cursor runs through
// the recording) and shows the Timeline view's comparison.
void import_and_open(AppState& app, const std::string& path) {
  if (!import_timeline(app, path)) return;
  if (!is_recorded_run(app.kernel.get(), *app.recorded_timeline)) app.request_open(recorded_request(*app.recorded_timeline));
}

}  // namespace

void ImportTimelineDialog::draw(AppState& app) {
  if (open_requested_) {
    open_requested_ = false;
    bundled_ = bundled_timeline_files(assets_dir());
    ImGui::OpenPopup("Import timeline");
  }
  if (!ImGui::BeginPopupModal("Import timeline", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  ImGui::TextUnformatted("A timeline recorded on a GPU (gemmscope bench ID --timeline FILE), shown beside the model's.");
  if (!bundled_.empty()) {
    ImGui::TextDisabled("Recorded on our H100 (docs/results):");
    for (const std::string& f : bundled_) {
      const std::string name = std::filesystem::path(f).filename().string();
      if (ImGui::Selectable(name.c_str(), path_.data() == f)) {
        const size_t n = std::min(f.size(), path_.size() - 1);
        std::copy_n(f.data(), n, path_.data());
        path_[n] = '\0';
      }
    }
  }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 36);
  ImGui::InputTextWithHint("file", "path to a .timeline.json", path_.data(), path_.size());
  if (ImGui::Button("Import") && path_[0]) {
    import_and_open(app, path_.data());
    ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

}  // namespace gs::gui
