// The Memory view's data: the hierarchy registers -> shared memory / L1 -> (DSMEM) -> L2 -> HBM
// of the card the run is predicted on, each level with its capacity, latency and bandwidth from
// the machine description (engine/model/machines.hpp), and the traffic the model's prediction
// puts through it (timing::Prediction's Breakdown: L1 data-path cycles, bytes a wave through L2,
// from HBM, C stored) with the share of that level's bandwidth the step uses at its predicted
// speed: a part's cycles over the wave's cycles (the bound's is 1), so a learner sees which
// level binds. The step before on the ladder stands beside it when the model has predicted it at
// the same shape (the Throughput view's model points: Measurements); otherwise the view says how
// to get it. No ImGui.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/model/timing.hpp"
#include "gui/core/session.hpp"

namespace gs::gui {

struct AppState;

// What one part of the prediction moves through a level.
struct MemoryTraffic {
  std::string part;    // the breakdown's name: "L1 data path", "L1 tag stage", "L2", "HBM", "stores"
  std::string what;    // "bytes through L2 a wave"
  double amount = 0;   // in `unit`, per wave
  std::string unit;    // "B", "cycles per SM"
  double gbs = 0;      // bytes a second it needs at the predicted speed (0: not bytes)
  double cycles = 0;   // the part's cycles per wave were it the only limit
  double share = 0;    // cycles / cycles per wave: the share of the level's bandwidth used
  bool bound = false;  // this part is the prediction's bound
};

struct MemoryLevel {
  std::string name;           // "registers", "shared memory / L1", "DSMEM", "L2", "HBM"
  double capacity_bytes = 0;  // 0: no figure
  std::string scope;          // "per SM", "per chip", "per cluster"
  double latency_cycles = 0;  // load to use; 0: no figure
  std::string bandwidth;      // "128 B/cycle per SM (32.3 TB/s chip)", or why there is none
  std::vector<MemoryTraffic> traffic;
};

// One step's column: the levels of its card with its prediction's traffic.
struct MemoryColumn {
  std::string kernel_id;
  int step = 0;
  std::string card;  // "H100"
  double tflops = 0;
  double cycles_per_wave = 0, clock_hz = 0;
  uint64_t waves = 0;
  std::string bound;  // the prediction's bound part
  std::vector<MemoryLevel> levels;
};

struct MemoryData {
  bool available = false;
  std::string note;                    // why not
  MemoryColumn open;                   // the kernel on screen
  std::optional<MemoryColumn> before;  // the ladder's step before, same shape, when predicted
  std::string before_note;             // why it is missing, or where it comes from
};

// "50 MiB", "80 GB", "" for no figure: a level's capacity as the view and its picture write it.
std::string capacity_text(double bytes);
// "12.34 MB (3.21 TB/s)", "1.5e+05 cycles per SM": a traffic's amount a wave, with its rate.
std::string amount_text(const MemoryTraffic& t);

// The column of a prediction on `card` (levels from card.desc, traffic from p).
MemoryColumn memory_column(const model::timing::Prediction& p, const model::timing::Machine& card);
MemoryData memory_data(const AppState& app);
nlohmann::json describe_memory(AppState& app);

}  // namespace gs::gui
