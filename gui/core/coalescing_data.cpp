#include "gui/core/coalescing_data.hpp"

#include <algorithm>
#include <bit>
#include <map>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/warps_data.hpp"
#include "gui/core/view_data.hpp"

namespace gs::gui {

namespace {

constexpr size_t kMaxLines = 64;  // a warp touches at most 32 (64 for a 16-byte access that straddles)

// The distinct bytes of the lanes' [addr, addr + bytes) ranges: lanes reading the same word
// (a broadcast) need it once.
uint32_t distinct_bytes(const CoalescingAccess& a) {
  std::vector<uint64_t> starts;
  for (uint32_t m = a.mask; m; m &= m - 1) starts.push_back(a.addr[std::countr_zero(m)]);
  std::sort(starts.begin(), starts.end());
  uint64_t total = 0, covered_to = 0;
  for (uint64_t s : starts) {
    const uint64_t lo = std::max(s, covered_to), hi = s + a.lane_bytes;
    if (hi > lo) total += hi - lo;
    covered_to = std::max(covered_to, hi);
  }
  return uint32_t(total);
}

std::string verdict_of(const CoalescingAccess& a) {
  const std::string what = fmt::format("{} sector{} ({} B moved) for {} B needed", a.sectors, a.sectors == 1 ? "" : "s",
                                       uint64_t(a.sectors) * kSectorBytes, a.bytes_needed);
  if (a.sectors <= a.ideal_sectors) return what + ": coalesced";
  return fmt::format("{}: {:.3g}× the ideal {}", what, double(a.sectors) / std::max(1u, a.ideal_sectors),
                     a.ideal_sectors);
}

}  // namespace

CoalescingAccess coalescing_of(const model::GlobalAccess& g) {
  CoalescingAccess a;
  a.valid = true;
  a.store = g.store;
  a.lane_bytes = g.bytes;
  a.mask = g.mask;
  a.active_lanes = uint32_t(std::popcount(g.mask));
  a.first_addr = g.first_addr;
  a.sectors = g.sectors;
  if (a.active_lanes == 0) {
    a.note = "no lane accessed global memory (a zero-size copy or every lane's guard false)";
    return a;
  }
  std::map<uint64_t, CoalescingLine> lines;  // by line address
  for (uint32_t m = g.mask; m; m &= m - 1) {
    const uint32_t l = uint32_t(std::countr_zero(m));
    if (g.offset[l] == model::GlobalAccess::kFar) {
      a.far_lanes = true;
      continue;
    }
    const uint64_t at = g.first_addr + g.offset[l];
    a.addr[l] = at;
    CoalescingLine& line = lines[at / kLineBytes * kLineBytes];
    line.addr = at / kLineBytes * kLineBytes;
    line.sector_mask |= uint8_t(1u << (at % kLineBytes / kSectorBytes));
    line.lanes++;
    // The words the lane's bytes cover inside this line (an aligned access never leaves it).
    for (uint64_t w = at / 4; w * 4 < at + a.lane_bytes && w * 4 < line.addr + kLineBytes; ++w) {
      uint8_t& owner = line.words[w % 32];
      if (owner == 0) owner = uint8_t(l + 1);
    }
  }
  a.lines = uint32_t(lines.size());
  for (auto& [addr, line] : lines) {
    if (a.line_list.size() == kMaxLines) break;
    a.line_list.push_back(line);
  }
  a.bytes_needed = distinct_bytes(a);
  a.ideal_sectors = (a.bytes_needed + kSectorBytes - 1) / kSectorBytes;
  a.ideal_lines = (a.bytes_needed + kLineBytes - 1) / kLineBytes;
  a.efficiency = a.sectors ? double(a.bytes_needed) / (double(a.sectors) * kSectorBytes) : 0.0;
  a.verdict = verdict_of(a);
  if (a.far_lanes) a.note = "some lanes are 4 GiB or more above the lowest address: only the others are drawn";
  return a;
}

CoalescingAccess coalescing_at(const LoadedKernel& k, uint32_t position, uint16_t warp) {
  const model::Trace& t = k.trace();
  const model::Table<uint32_t>& events = t.of_kind(model::EventKind::global_access);
  // The last global access at or before the cursor (of the warp, when one is asked for).
  const auto* first = events.data();
  const auto* it = std::upper_bound(first, first + events.size(), position);
  while (it != first && warp != kNoWarp && t.events[*(it - 1)].warp != warp) --it;
  if (it == first) {
    CoalescingAccess none;
    // A TMA kernel moves its tiles without any lane address: say how much, and where to look.
    const model::Table<uint32_t>& issues = t.of_kind(model::EventKind::tma_issue);
    const auto* tma_end = std::upper_bound(issues.data(), issues.data() + issues.size(), position);
    for (const auto* i = issues.data(); i != tma_end; ++i) {
      const model::Event& e = t.events[*i];
      if (e.payload < t.tma.size() && !t.tma[e.payload].store) {
        ++none.tma_loads;
        none.tma_bytes += t.tma[e.payload].bytes;
      }
    }
    const std::string who = warp != kNoWarp ? "warp " + warp_label(t, warp) : std::string("the CTA");
    if (none.tma_loads)
      none.note = fmt::format(
          "{} has made no ld/st.global or cp.async yet: this kernel's loads are TMA copies of whole boxes ({} so far, "
          "{} B), which have no lane addresses to coalesce: the TMA pipeline view shows them",
          who, none.tma_loads, none.tma_bytes);
    else
      none.note = events.size() == 0 ? "this kernel makes no ld/st.global or cp.async of its own (TMA copies whole "
                                       "boxes: see the TMA pipeline view)"
                  : warp != kNoWarp ? fmt::format("{} has made no global access yet", who)
                                    : "no global access yet: step forward to the first load";
    return none;
  }
  const model::Event& e = t.events[*(it - 1)];
  CoalescingAccess a = coalescing_of(t.global[e.payload]);
  a.event = *(it - 1);
  a.inst = e.inst;
  a.warp = e.warp;
  return a;
}

nlohmann::json describe_coalescing(AppState& app) {
  const Snapshot* s = app.snapshot();
  if (!app.kernel || !s) return {{"kernel", nullptr}};
  const CoalescingAccess a = coalescing_at(*app.kernel, s->position, app.selection.warp);
  nlohmann::json lines = nlohmann::json::array();
  for (const CoalescingLine& l : a.line_list)
    lines.push_back({{"addr", l.addr}, {"sector_mask", l.sector_mask}, {"lanes", l.lanes}, {"words", l.words}});
  nlohmann::json addrs = nlohmann::json::array();
  for (uint32_t m = a.mask; m; m &= m - 1) addrs.push_back(a.addr[std::countr_zero(m)]);
  return {{"valid", a.valid},
          {"note", a.note},
          {"event", a.event == kNone ? nlohmann::json(nullptr) : nlohmann::json(a.event)},
          {"inst", a.inst == kNone ? nlohmann::json(nullptr) : nlohmann::json(a.inst)},
          {"warp", a.warp == kNoWarp ? nlohmann::json(nullptr) : nlohmann::json(a.warp)},
          {"store", a.store},
          {"lane_bytes", a.lane_bytes},
          {"active_lanes", a.active_lanes},
          {"addresses", addrs},
          {"sectors", a.sectors},
          {"lines", a.lines},
          {"bytes_needed", a.bytes_needed},
          {"ideal_sectors", a.ideal_sectors},
          {"ideal_lines", a.ideal_lines},
          {"efficiency", a.efficiency},
          {"verdict", a.verdict},
          {"tma_loads", a.tma_loads},
          {"tma_bytes", a.tma_bytes},
          {"line_list", lines}};
}

}  // namespace gs::gui
