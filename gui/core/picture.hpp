// File > Save picture: what the app can save (the whole window or one view as PNG; the layout
// views also as SVG), where it goes by default, and the write itself. No ImGui and no OpenGL:
// the shell asks here for the SVG of a view and for the default path, gui/app reads the
// window's pixels back for PNG, and both write through save_picture(), which never leaves a
// truncated file and puts every failure in the Problems view.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gui/core/settings.hpp"  // ViewId

namespace gs::gui {

struct AppState;

enum class PictureFormat : uint8_t { png, svg };

// The SVG pictures a view offers, by name ("fragment map"; "banks", "swizzle grid"); empty for
// views that only save as PNG.
std::vector<std::string> svg_pictures_of(ViewId v);

// The SVG of picture `index` of svg_pictures_of(v) as the view shows it now (its options, the
// kernel and the playback position). Throws std::runtime_error when there is nothing to draw
// (no kernel loaded for the shared-memory view, options out of range).
std::string view_svg(AppState& app, ViewId v, size_t index);

// "<folder>/gemmscope-<what>.<png|svg>", the folder being `folder` when set, else $HOME, else
// the working directory. `what` is a view name or "window".
std::string default_picture_path(const std::string& folder, std::string_view what, PictureFormat f);
// "~/x" -> "$HOME/x"; anything else as it is.
std::string expand_home(const std::string& path);

// Writes `bytes` to `path` (run/output_file: a temporary file renamed over the target). On
// failure: false, an error in the Problems view naming the path and the reason, and the file
// that was there untouched.
bool save_picture(AppState& app, const std::string& path, std::string_view bytes);

}  // namespace gs::gui
