#include "gui/app/save_picture.hpp"

#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <imgui.h>

#include "gui/core/app_state.hpp"

namespace gs::gui {

void SavePictureDialog::reset_path(AppState& app) {
  const std::vector<std::string> parts = what_ < 0 ? std::vector<std::string>{} : svg_pictures_of(ViewId(what_));
  std::string what = what_ < 0 ? "window" : view_name(ViewId(what_));
  if (format_ == PictureFormat::svg && svg_part_ < int(parts.size()) && parts.size() > 1) {
    what += "-" + parts[size_t(svg_part_)];
    for (char& c : what) c = c == ' ' ? '-' : c;
  }
  const std::string path = default_picture_path(folder_, what, format_);
  std::snprintf(path_.data(), path_.size(), "%s", path.c_str());
}

void SavePictureDialog::draw(AppState& app, const ShownViews& shown, const ViewRects& rects) {
  if (pending_) pending_ready_ = true;  // the frame after the request: the dialog is closed
  if (open_requested_) {
    open_requested_ = false;
    if (what_ >= 0 && !shown[size_t(what_)]) what_ = -1;
    if (format_ == PictureFormat::svg && (what_ < 0 || svg_pictures_of(ViewId(what_)).empty())) format_ = PictureFormat::png;
    reset_path(app);
    ImGui::OpenPopup("Save picture");
  }
  if (!ImGui::BeginPopupModal("Save picture", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  bool changed = false;
  const char* what_label = what_ < 0 ? "the whole window" : view_title(ViewId(what_));
  ImGui::SetNextItemWidth(220.0f);
  if (ImGui::BeginCombo("what", what_label)) {
    if (ImGui::Selectable("the whole window", what_ < 0)) what_ = -1, changed = true;
    for (size_t v = 0; v < size_t(ViewId::count_); ++v)
      if (shown[v] && ImGui::Selectable(view_title(ViewId(v)), what_ == int(v))) what_ = int(v), changed = true;
    ImGui::EndCombo();
  }
  const std::vector<std::string> parts = what_ < 0 ? std::vector<std::string>{} : svg_pictures_of(ViewId(what_));
  if (parts.empty() && format_ == PictureFormat::svg) format_ = PictureFormat::png, changed = true;
  if (ImGui::RadioButton("PNG", format_ == PictureFormat::png)) format_ = PictureFormat::png, changed = true;
  if (!parts.empty()) {
    ImGui::SameLine();
    if (ImGui::RadioButton("SVG (vector)", format_ == PictureFormat::svg)) format_ = PictureFormat::svg, changed = true;
    if (format_ == PictureFormat::svg && parts.size() > 1)
      for (size_t i = 0; i < parts.size(); ++i) {
        ImGui::SameLine();
        if (ImGui::RadioButton(parts[i].c_str(), svg_part_ == int(i))) svg_part_ = int(i), changed = true;
      }
  } else {
    ImGui::SameLine();
    ImGui::TextDisabled("(SVG: the fragments and shared-memory views)");
  }
  if (svg_part_ >= int(parts.size())) svg_part_ = 0;
  if (changed) reset_path(app);
  ImGui::SetNextItemWidth(480.0f);
  ImGui::InputText("file", path_.data(), path_.size());
  if (ImGui::Button("Save")) {
    const std::string path(path_.data());
    folder_ = std::filesystem::path(expand_home(path)).parent_path().string();
    if (path.empty()) {
      app.add_problem({Severity::error, "app", "picture", "picture not saved", "give a file name to save the picture to"});
    } else if (format_ == PictureFormat::svg) {
      try {
        save_picture(app, path, view_svg(app, ViewId(what_), size_t(svg_part_)));
      } catch (const std::exception& e) {
        app.add_problem({Severity::error, "app", "picture", "picture not saved", e.what()});
      }
    } else {
      pending_ = PngRequest{path, what_ < 0 ? Rect{} : rects[size_t(what_)]};
      pending_ready_ = false;
    }
    ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

std::optional<PngRequest> SavePictureDialog::take_png_request() {
  if (!pending_ || !pending_ready_) return std::nullopt;
  std::optional<PngRequest> r = std::move(pending_);
  pending_.reset();
  pending_ready_ = false;
  return r;
}

}  // namespace gs::gui
