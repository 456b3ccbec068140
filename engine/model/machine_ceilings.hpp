// The roofline ceilings of the machines the timing model predicts on (timing::Machine), as
// data with their source: a figure drawn for a kernel uses the ceilings of the machine that
// runs it (timing::machine_for).
#pragma once

#include <string>
#include <string_view>

#include "engine/model/timing.hpp"

namespace gs::model::timing {

struct MachineCeilings {
  const Machine* machine;
  double tensor_tflops;  // dense bf16 on the tensor cores
  double fp32_tflops;    // fp32 FMA on the SIMT lanes
  double memory_tbps;    // DRAM peak
  const char* source;
};

// H100 SXM5: 132 SMs x 4096 FLOP/cycle x 1.83 GHz = NVIDIA's 989 TFLOP/s; fp32 128 lanes x 2 x
// 132 x 1.98 GHz = 67; HBM3 2619 MHz x 2 x 5120 bit = 3.35 TB/s ([DEV], facts §10).
inline constexpr MachineCeilings kH100Ceilings{&kH100, 989.0, 67.0, 3.35,
                                               "NVIDIA's rated figures: 132 SMs at the 1.83 GHz boost clock"};
// H200 SXM: the H100's SMs and clocks (989 and 67 TFLOP/s); HBM3e 3201 MHz x 2 x 6016 bit = 4.8 TB/s
// ([DEV]: bench's device record on the H200, 2026-11-28; NVIDIA's datasheet: 4.8 TB/s).
inline constexpr MachineCeilings kH200Ceilings{&kH200, 989.0, 67.0, 4.8,
                                               "NVIDIA's rated figures: 132 SMs at the 1.83 GHz boost clock, "
                                               "HBM3e 4.8 TB/s"};
// B200: 2.25 PFLOP/s dense bf16 (148 SMs x 8192 FLOP/cycle x 1.86 GHz); fp32 148 SMs x 128 lanes
// x 2 x 1.86 GHz = 70 TFLOP/s (Hopper's lanes per SM assumed); HBM3e 8 TB/s. NVIDIA's figures,
// UNCONFIRMED (facts table: b200_machine, tensor_rate): no B200 was measured here.
inline constexpr MachineCeilings kB200Ceilings{&kB200, 2250.0, 70.0, 8.0,
                                               "NVIDIA's B200 figures, unconfirmed: 148 SMs at about 1.86 GHz, "
                                               "HBM3e 8 TB/s"};

constexpr const MachineCeilings& ceilings_of(const Machine& m) {
  return &m == &kB200 ? kB200Ceilings : &m == &kH200 ? kH200Ceilings : kH100Ceilings;
}

// The SM clock each rated compute ceiling is at, as the figures above are made: the tensor
// ceiling at the datasheet's boost clock (clock_rated_mhz: 1.83 GHz on the Hopper cards), the
// fp32 one at the highest clock the driver reports (clock_max_mhz: 1.98 GHz). A ceiling at
// another clock is the same SMs and FLOP per cycle at that clock.
constexpr double tensor_ceiling_mhz(const Machine& m) { return m.desc->clock_rated_mhz.value; }
constexpr double fp32_ceiling_mhz(const Machine& m) { return m.desc->clock_max_mhz.value; }

// The machine a device or figure name belongs to ("NVIDIA H100 80GB HBM3", "model (B200)",
// "H100 SXM5 (reference)"), or nullptr when it names none of them.
constexpr const Machine* machine_named_in(std::string_view name) {
  for (const Machine* m : kMachines)
    if (name.find(m->name) != std::string_view::npos) return m;
  return nullptr;
}

// The card a device name belongs to when it runs code built for `arch`, or nullptr: the card a
// prediction is for where the GPU is known (the app's GPU, the probes' model column).
constexpr const Machine* card_named_in(std::string_view name, ir::Arch arch) {
  const Machine* m = machine_named_in(name);
  return m && machine_runs(*m, arch) ? m : nullptr;
}

// "h100, h200" or "b200": the keys of the cards that run code built for `arch`, for a message.
std::string machine_keys_for(ir::Arch arch);

}  // namespace gs::model::timing
