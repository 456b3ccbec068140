#include "gui/app/save_picture.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <vector>

#include <GLFW/glfw3.h>
#include <stb_image_write.h>

#include <fmt/format.h>
#include <imgui.h>

#include "gui/core/app_state.hpp"

namespace gs::gui {

std::string png_of_back_buffer(int fb_w, int fb_h, int x, int y, int w, int h) {
  if (w < 0) w = fb_w;
  if (h < 0) h = fb_h;
  std::vector<unsigned char> pixels(size_t(w) * size_t(h) * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(x, fb_h - y - h, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  for (size_t i = 3; i < pixels.size(); i += 4) pixels[i] = 255;  // opaque, whatever the framebuffer's alpha
  std::string png;
  stbi_flip_vertically_on_write(1);
  const auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), size_t(size));
  };
  if (!stbi_write_png_to_func(append, &png, w, h, 4, pixels.data(), w * 4)) png.clear();
  return png;
}

bool save_png_picture(AppState& app, const PngRequest& r, int fb_w, int fb_h) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const float sx = display.x > 0 ? float(fb_w) / display.x : 1.0f, sy = display.y > 0 ? float(fb_h) / display.y : 1.0f;
  int x = 0, y = 0, w = fb_w, h = fb_h;
  if (r.area.size.x > 0 && r.area.size.y > 0) {
    x = std::clamp(int(std::lround(r.area.pos.x * sx)), 0, fb_w - 1);
    y = std::clamp(int(std::lround(r.area.pos.y * sy)), 0, fb_h - 1);
    w = std::clamp(int(std::lround(r.area.size.x * sx)), 1, fb_w - x);
    h = std::clamp(int(std::lround(r.area.size.y * sy)), 1, fb_h - y);
  }
  const std::string png = png_of_back_buffer(fb_w, fb_h, x, y, w, h);
  if (!png.empty()) return save_picture(app, r.path, png);
  app.add_problem({Severity::error, "app", "picture", "picture not saved", fmt::format("cannot encode {}x{} pixels as PNG", w, h)});
  return false;
}

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
