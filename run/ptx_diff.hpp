// "What changed" in PTX: the listings of two builds name registers and labels with counters
// (%t17, L_skip_3) that shift whenever one instruction more or less is recorded before them.
// diff_ptx aligns lines with those numbers masked and then pairs the two sides' names along
// the aligned lines, so one temporary less shows as the lines that changed, not as every later
// line renumbered.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "run/line_diff.hpp"

namespace gs::run {

// A PTX line with each numbered %register or L_label name replaced by its stem and a marker
// (kNameMark), and the names in order.
inline constexpr char kNameMark = '\x01';
struct MaskedPtxLine {
  std::string key;
  std::vector<std::string> names;
};
MaskedPtxLine mask_numbered_names(std::string_view line);

// The diff of two PTX listings: lines aligned on their masked keys; along the aligned lines
// the left side's names are paired with the right side's in order, first come first served,
// and a line whose names break that pairing (the same instruction on another register) is a
// change. So a mistake that drops one instruction shows that instruction and the lines that
// used its result, nothing else.
std::vector<DiffRow> diff_ptx(std::span<const std::string_view> left, std::span<const std::string_view> right);

}  // namespace gs::run
