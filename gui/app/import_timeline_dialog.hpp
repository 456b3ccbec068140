// File > Import timeline...: the dialog that opens a timeline recorded on a GPU (`gemmscope bench
// ID --timeline FILE`) in the Timeline view, beside the model's. It lists the recordings that
// come with the source tree (docs/results/<date>/*.timeline.json) and takes any other path.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace gs::gui {

struct AppState;

class ImportTimelineDialog {
 public:
  void open() { open_requested_ = true; }
  void draw(AppState& app);

 private:
  bool open_requested_ = false;
  std::array<char, 1024> path_{};
  std::vector<std::string> bundled_;  // found when the dialog opens
};

}  // namespace gs::gui
