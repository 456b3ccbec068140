// A line diff of our own (Myers' O(ND) shortest edit script), for "what changed": the source
// or the PTX of one kernel against another, or of one kernel against itself with a mistake
// switched on. PTX names registers and labels with counters that shift between builds, so
// PTX lines are compared through ptx_compare_keys (numbers renamed in order of appearance).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gs::run {

enum class DiffKind : uint8_t { same, removed, added };

// One row of a diff: a line of the left side (removed), of the right (added), or of both.
struct DiffRow {
  DiffKind kind = DiffKind::same;
  int32_t left = -1;   // 0-based line of the left side, -1 for an added line
  int32_t right = -1;  // 0-based line of the right side, -1 for a removed line
};

// The shortest edit script turning `left` into `right`, as rows in the order of both sides.
// Lines compare equal when their strings are equal.
std::vector<DiffRow> diff_lines(std::span<const std::string> left, std::span<const std::string> right);

// The key each PTX line is compared by: every %register and L_label name that ends in a
// number has that number replaced by its order of first appearance among names of the same
// stem in the file (%t17 -> %t#0 for the first temporary), so that two builds which name the
// same registers differently still compare equal where their instructions are the same.
std::vector<std::string> ptx_compare_keys(std::span<const std::string_view> lines);

struct DiffCount {
  uint32_t removed = 0, added = 0;
};
DiffCount count_changes(std::span<const DiffRow> rows);

}  // namespace gs::run
