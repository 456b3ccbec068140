// The wgmma descriptor probes (`gemmscope probe wgmma-desc`): their inputs, the formula they
// are judged by, and the checks of their outputs. probe_run.cpp dispatches here for
// ProbeKind::wgmma_descriptor.
//
// The region (buffer A of the probe) is self-describing: the bf16 at region byte offset o
// (o even) has the bit pattern kWgmmaDescCodeBase + o/2, a distinct finite positive value. The
// identity operand passes it through the tensor core unchanged (x·1 plus fifteen exact zeros),
// so each f32 accumulator's top half names the region byte the tensor core read for one
// element, and its bottom half is 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "run/probe_run.hpp"

namespace gs::run {

inline constexpr uint16_t kWgmmaDescCodeBase = 0x3800;  // 2^-15: codes up to 0x57FF stay finite

// The byte offset in the region that the facts' formula says the tensor core reads for element
// (row, k) of the operand under test (row: M for A, N for B; k 0..15). Written from the PTX
// ISA's canonical layouts and the facts sheet §1.4/§3, not from engine/layout, whose function
// the model uses: the probe judges the model by something independent of it.
uint32_t wgmma_desc_formula_offset(const kernels::WgmmaDescProbe& probe, uint32_t row, uint32_t k);

// The region offset an accumulator names, or nullopt when it holds no code (0, NaN, poison).
std::optional<uint32_t> wgmma_desc_decode(float accumulator);

ProbeCheck check_wgmma_desc_output(const ProbeCase& probe, const std::vector<uint8_t>& c, std::string_view who);
ProbeCheck compare_wgmma_desc_outputs(const ProbeCase& probe, const std::vector<uint8_t>& gpu,
                                      const std::vector<uint8_t>& model);

}  // namespace gs::run
