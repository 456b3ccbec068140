// The window layout file (imgui.ini), read and written by the app rather than by ImGui, so
// that what is read is bounded: ImGui reads any file whole and looks each window up by a linear
// search, so a damaged 10 MB file stalled the start for seconds. A file too large or not text
// is ignored with a notice (and replaced by the layout on screen when the app saves it, unless
// it is not a layout at all: a file that does not begin like one is never overwritten); the
// windows it places are clamped into the screen by the shell (layout.hpp).
#pragma once

#include <cstddef>
#include <string>

namespace gs::gui {

// Far more than the layout of every view with its tables (about 2 KB).
constexpr size_t kMaxLayoutFileBytes = 64 * 1024;

struct LayoutFile {
  std::string text;    // what to hand to ImGui::LoadIniSettingsFromMemory (empty: nothing)
  std::string notice;  // why the file was ignored (empty: read, or not there yet)
  // False when the file is not a window layout (a picture, junk, some text): it is never
  // replaced, and save_layout_file refuses it too.
  bool replaceable = true;
};

// False when `path` is a regular file that is not a window layout (read as nothing, never
// written). Reads at most its first 4 KiB; changes nothing.
bool layout_file_replaceable(const std::string& path);

// Reads the layout at `path`. A missing file is a first start: no text, no notice.
LayoutFile read_layout_file(const std::string& path);

// ImGui's current layout (SaveIniSettingsToMemory) to `path`, atomically. Needs an ImGui
// context. Returns false and fills error when it cannot be written.
bool save_layout_file(const std::string& path, std::string& error);

}  // namespace gs::gui
