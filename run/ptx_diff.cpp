#include "run/ptx_diff.hpp"

#include <cctype>
#include <map>

namespace gs::run {

namespace {
bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
}  // namespace

MaskedPtxLine mask_numbered_names(std::string_view line) {
  MaskedPtxLine out;
  size_t i = 0;
  while (i < line.size()) {
    const bool reg = line[i] == '%';
    const bool label = line[i] == 'L' && (i + 1 < line.size() && line[i + 1] == '_') && (i == 0 || !name_char(line[i - 1]));
    if (!reg && !label) {
      out.key += line[i++];
      continue;
    }
    size_t end = i + 1;
    while (end < line.size() && name_char(line[end])) ++end;
    const std::string_view name = line.substr(i, end - i);
    size_t digits = name.size();
    while (digits > 1 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
    if (digits == name.size()) {
      out.key += name;  // an author's name: compared as is
    } else {
      out.key += std::string(name.substr(0, digits)) + kNameMark;
      out.names.emplace_back(name);
    }
    i = end;
  }
  return out;
}

std::vector<DiffRow> diff_ptx(std::span<const std::string_view> left, std::span<const std::string_view> right) {
  std::vector<MaskedPtxLine> l, r;
  std::vector<std::string> lk, rk;
  for (std::string_view s : left) l.push_back(mask_numbered_names(s)), lk.push_back(l.back().key);
  for (std::string_view s : right) r.push_back(mask_numbered_names(s)), rk.push_back(r.back().key);
  const std::vector<DiffRow> aligned = diff_lines(lk, rk);
  // Pair names along the aligned lines, first come first served; a line that contradicts the
  // pairing made so far is a change.
  std::map<std::string, std::string> l2r, r2l;
  std::vector<DiffRow> rows;
  rows.reserve(aligned.size());
  for (const DiffRow& row : aligned) {
    if (row.kind != DiffKind::same) {
      rows.push_back(row);
      continue;
    }
    const std::vector<std::string>& ln = l[size_t(row.left)].names;
    const std::vector<std::string>& rn = r[size_t(row.right)].names;
    bool consistent = ln.size() == rn.size();
    for (size_t i = 0; consistent && i < ln.size(); ++i) {
      auto a = l2r.find(ln[i]);
      auto b = r2l.find(rn[i]);
      consistent = (a == l2r.end() || a->second == rn[i]) && (b == r2l.end() || b->second == ln[i]);
    }
    if (!consistent) {
      rows.push_back({DiffKind::removed, row.left, -1});
      rows.push_back({DiffKind::added, -1, row.right});
      continue;
    }
    for (size_t i = 0; i < ln.size(); ++i) {
      l2r.emplace(ln[i], rn[i]);
      r2l.emplace(rn[i], ln[i]);
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace gs::run
