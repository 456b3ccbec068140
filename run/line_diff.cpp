// Myers' diff (E. Myers, "An O(ND) Difference Algorithm and Its Variations", 1986): the
// furthest-reaching path on each diagonal k = x - y for growing edit counts d, keeping each
// d's frontier to walk the path back. Memory is O(D^2) in the number of differences D, which
// stays small for the files we compare (a few thousand lines, a few hundred differences).
#include "run/line_diff.hpp"
#include "run/ptx_diff.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

namespace gs::run {

std::vector<DiffRow> diff_lines(std::span<const std::string> a, std::span<const std::string> b) {
  const int n = int(a.size()), m = int(b.size());
  const int max = n + m;
  const int offset = max + 1;
  std::vector<int> v(size_t(2 * max + 3), 0);
  // frontiers[d]: diagonals -d-1 .. d+1 of v before step d (all that step d reads).
  std::vector<std::vector<int>> frontiers;
  int found_d = -1;
  for (int d = 0; d <= max && found_d < 0; ++d) {
    frontiers.emplace_back(v.begin() + (offset - d - 1), v.begin() + (offset + d + 2));
    for (int k = -d; k <= d; k += 2) {
      // Step down (an addition) from k+1 or right (a removal) from k-1, whichever got further.
      int x = (k == -d || (k != d && v[size_t(offset + k - 1)] < v[size_t(offset + k + 1)])) ? v[size_t(offset + k + 1)]
                                                                                             : v[size_t(offset + k - 1)] + 1;
      int y = x - k;
      while (x < n && y < m && a[size_t(x)] == b[size_t(y)]) ++x, ++y;
      v[size_t(offset + k)] = x;
      if (x >= n && y >= m) {
        found_d = d;
        break;
      }
    }
  }
  // Walk back from (n, m), collecting rows in reverse.
  std::vector<DiffRow> rows;
  int x = n, y = m;
  for (int d = found_d; d > 0; --d) {
    const std::vector<int>& frontier = frontiers[size_t(d)];
    auto pv = [&](int k) { return frontier[size_t(k + d + 1)]; };
    const int k = x - y;
    const bool down = k == -d || (k != d && pv(k - 1) < pv(k + 1));
    const int prev_k = down ? k + 1 : k - 1;
    const int prev_x = pv(prev_k);
    const int prev_y = prev_x - prev_k;
    const int start_x = down ? prev_x : prev_x + 1;
    const int start_y = start_x - k;
    while (x > start_x && y > start_y) rows.push_back({DiffKind::same, --x, --y});
    if (down)
      rows.push_back({DiffKind::added, -1, --y});
    else
      rows.push_back({DiffKind::removed, --x, -1});
    x = prev_x, y = prev_y;
  }
  while (x > 0 && y > 0) rows.push_back({DiffKind::same, --x, --y});
  std::reverse(rows.begin(), rows.end());
  return rows;
}

std::vector<std::string> ptx_compare_keys(std::span<const std::string_view> lines) {
  std::map<std::string, std::map<std::string, uint32_t>> order;  // stem -> number -> its rank
  std::vector<std::string> keys;
  keys.reserve(lines.size());
  for (std::string_view line : lines) {
    // The masked key has "stem#" where each numbered name was; put the name's rank after it.
    const MaskedPtxLine m = mask_numbered_names(line);
    std::string key;
    size_t name = 0;
    for (size_t i = 0; i < m.key.size(); ++i) {
      if (m.key[i] != kNameMark) key += m.key[i];
      if (m.key[i] != kNameMark || name >= m.names.size()) continue;
      const std::string& full = m.names[name++];
      size_t digits = full.size();
      while (digits > 1 && std::isdigit(static_cast<unsigned char>(full[digits - 1]))) --digits;
      auto& ranks = order[full.substr(0, digits)];
      key += "#" + std::to_string(ranks.try_emplace(full.substr(digits), uint32_t(ranks.size())).first->second);
    }
    keys.push_back(std::move(key));
  }
  return keys;
}

DiffCount count_changes(std::span<const DiffRow> rows) {
  DiffCount c;
  for (const DiffRow& r : rows) {
    if (r.kind == DiffKind::removed) ++c.removed;
    if (r.kind == DiffKind::added) ++c.added;
  }
  return c;
}

}  // namespace gs::run
