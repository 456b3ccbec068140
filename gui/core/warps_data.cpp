#include "gui/core/warps_data.hpp"

#include "gui/core/kernel_cache.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/barrier_label.hpp"
#include "gui/core/schedule_data.hpp"
#include "gui/core/view_data.hpp"

namespace gs::gui {

bool is_waiting(WarpActivity a) {
  return a == WarpActivity::waiting_mbarrier || a == WarpActivity::waiting_bar || a == WarpActivity::waiting_wgmma;
}

std::string warp_state_text(const ir::Kernel& kernel, const WarpSnapshot& w, const Snapshot& s) {
  switch (w.activity) {
    case WarpActivity::waiting_mbarrier:
      return fmt::format("waiting on {} parity {}", mbarrier_label(kernel, &s, w.mbar), w.parity);
    case WarpActivity::waiting_bar: return fmt::format("bar.sync {}", w.bar_id);
    case WarpActivity::waiting_wgmma:
      return fmt::format("wgmma wait ({} group{} in flight)", w.mma_in_flight, w.mma_in_flight == 1 ? "" : "s");
    case WarpActivity::ready:
      return w.mma_in_flight > 0 ? fmt::format("ready ({} wgmma group{} in flight)", w.mma_in_flight,
                                               w.mma_in_flight == 1 ? "" : "s")
                                 : std::string("ready");
    case WarpActivity::not_started: return "not started";
    case WarpActivity::exited: return "exited";
    case WarpActivity::deadlocked: {
      // What it was blocked on when the CTA ended, in the same words as while it waited.
      WarpSnapshot blocked = w;
      blocked.activity = w.blocked_on;
      return "deadlocked: " + warp_state_text(kernel, blocked, s) + " (never completes)";
    }
  }
  return "?";
}

std::string warp_label(const model::Trace& t, uint32_t warp) {
  const uint32_t per_cta = std::max(1u, t.warps_per_cta);
  return t.ctas.size() > 1 ? fmt::format("{}.{}", warp / per_cta, warp % per_cta) : std::to_string(warp);
}

std::vector<WarpRow> warp_rows(const LoadedKernel& k, const Snapshot& s) {
  std::vector<WarpRow> rows;
  rows.reserve(s.warps.size());
  auto text = [&](uint32_t inst) { return inst < k.inst_text.size() ? k.inst_text[inst] : std::string(); };
  for (const WarpSnapshot& w : s.warps) {
    WarpRow r;
    r.warp = w.warp;
    const model::Trace& t = k.trace();
    const uint32_t per_cta = std::max(1u, t.warps_per_cta);
    r.cta_rank = w.warp / per_cta;
    r.cta_warp = w.warp % per_cta;
    r.label = warp_label(t, w.warp);
    r.role = w.role == ir::WarpRole::none ? std::string("-") : std::string(ir::warp_role_name(w.role));
    r.reg_limit = w.reg_limit;
    if (w.reg_limit) r.role += fmt::format(", {} regs", w.reg_limit);  // its budget after setmaxnreg
    r.activity = w.activity;
    r.state = warp_state_text(k.kernel(), w, s);
    r.inst = w.inst;
    r.inst_text = text(w.inst);
    r.next_inst = w.next_inst;
    r.next_text = text(w.next_inst);
    r.issued = w.issued;
    r.since_cycle = w.since_cycle;
    r.mma_in_flight = w.mma_in_flight;
    rows.push_back(std::move(r));
  }
  return rows;
}

WarpTimelines warp_timelines(const LoadedKernel& k) {
  // Replays the trace one event at a time with the same rules the snapshots use, so the
  // timeline can never disagree with the state column.
  Snapshot s = initial_snapshot(k);
  WarpTimelines out(s.warps.size());
  for (size_t w = 0; w < s.warps.size(); ++w) out[w].push_back({0, WarpActivity::not_started});
  const uint32_t n = uint32_t(k.trace().events.size());
  uint32_t last = kNone;
  for (uint32_t i = 0; i < n; ++i) {
    replay(k, s, last, i);
    last = i;
    for (size_t w = 0; w < s.warps.size(); ++w) {
      if (out[w].back().activity == s.warps[w].activity) continue;
      if (out[w].back().begin == s.cycle) out[w].pop_back();  // a state that lasted no cycle
      if (!out[w].empty() && out[w].back().activity == s.warps[w].activity) continue;
      out[w].push_back({s.cycle, s.warps[w].activity});
    }
  }
  return out;
}

const WarpTimelines& warp_timelines_cached(const std::shared_ptr<const LoadedKernel>& k) {
  return cached_for_kernel<WarpTimelines>(k, warp_timelines);
}

ReadyWaiting ready_waiting(const std::vector<ActivitySegment>& timeline, uint64_t from, uint64_t to) {
  ReadyWaiting rw;
  for (size_t i = 0; i < timeline.size(); ++i) {
    const uint64_t b = std::max(from, timeline[i].begin);
    const uint64_t e = std::min(to, i + 1 < timeline.size() ? timeline[i + 1].begin : to);
    if (e <= b) continue;
    if (timeline[i].activity == WarpActivity::ready) rw.ready += e - b;
    if (is_waiting(timeline[i].activity)) rw.waiting += e - b;
  }
  return rw;
}

RegisterBudget register_budget(const ir::Kernel& kernel, uint32_t allocated, std::string allocated_source) {
  RegisterBudget b;
  b.virtual_regs = uint32_t(kernel.regs.size());
  b.allocated = allocated;
  b.allocated_source = std::move(allocated_source);
  for (const ir::Inst& in : kernel.insts)
    if ((in.op == ir::Op::setmaxnreg_inc || in.op == ir::Op::setmaxnreg_dec) && !in.operands.empty()) {
      const uint32_t n = uint32_t(in.operands[0].imm);
      if (std::find(b.setmaxnreg.begin(), b.setmaxnreg.end(), n) == b.setmaxnreg.end()) b.setmaxnreg.push_back(n);
    }
  std::sort(b.setmaxnreg.begin(), b.setmaxnreg.end());
  std::map<std::string, uint32_t> counts;
  for (const ir::RegInfo& r : kernel.regs) {
    ++counts[std::string(ir::type_name(r.type))];
    if (r.type == ir::Type::pred)
      ++b.predicates;
    else
      b.words32 += ir::type_bits(r.type) > 32 ? ir::type_bits(r.type) / 32 : 1;
  }
  for (const auto& [type, count] : counts) b.by_type.push_back({type, count});
  b.threads = kernel.launch.threads();
  b.max_regs = kernel.max_regs;
  const uint32_t ctas = std::max<uint32_t>(1, kernel.min_ctas_per_sm);
  const uint32_t share = b.threads == 0 ? kMaxRegistersPerThread : kRegistersPerSm / (b.threads * ctas);
  b.per_thread_limit = std::min(kMaxRegistersPerThread, share);
  if (b.max_regs > 0) b.per_thread_limit = std::min(b.per_thread_limit, b.max_regs);
  b.summary = fmt::format("{} regs/SM / {} threads{} = {} per thread{}", kRegistersPerSm, b.threads,
                          ctas > 1 ? fmt::format(" x {} CTAs", ctas) : "", share,
                          share > kMaxRegistersPerThread ? fmt::format(" (cap {})", kMaxRegistersPerThread) : "");
  b.text = b.allocated ? fmt::format("{} per thread ({})", b.allocated, b.allocated_source)
                       : std::string("physical count not known (no ptxas)");
  b.text += fmt::format("; launch budget {} per thread", b.per_thread_limit);
  if (!b.setmaxnreg.empty()) {
    std::string counts;
    for (uint32_t n : b.setmaxnreg) counts += (counts.empty() ? "" : " / ") + std::to_string(n);
    b.text += fmt::format(", setmaxnreg sets {}", counts);
  }
  b.text += fmt::format("; the builder's {} virtual registers ({} 32-bit words + {} predicates) are names before "
                        "ptxas allocates them, not registers held",
                        b.virtual_regs, b.words32, b.predicates);
  return b;
}

nlohmann::json describe_warps(AppState& app) {
  nlohmann::json j;
  const Snapshot* s = app.snapshot();
  if (!app.kernel || !s) return {{"warps", nlohmann::json::array()}};
  // The state says what the view will show once ptxas -v has answered (the schedule's does too).
  count_registers_now(*app.kernel);
  nlohmann::json rows = nlohmann::json::array();
  for (const WarpRow& r : warp_rows(*app.kernel, *s))
    rows.push_back({{"warp", r.warp},
                    {"cta_rank", r.cta_rank},
                    {"cta_warp", r.cta_warp},
                    {"label", r.label},
                    {"reg_limit", r.reg_limit},
                    {"role", r.role},
                    {"activity", warp_activity_name(r.activity)},
                    {"state", r.state},
                    {"inst", r.inst == kNone ? nlohmann::json(nullptr) : nlohmann::json(r.inst)},
                    {"inst_text", r.inst_text},
                    {"next_inst", r.next_inst == kNone ? nlohmann::json(nullptr) : nlohmann::json(r.next_inst)},
                    {"issued", r.issued},
                    {"since_cycle", r.since_cycle},
                    {"mma_in_flight", r.mma_in_flight}});
  const Occupancy& occ = schedule_data(app.kernel).occupancy;
  const RegisterBudget b = register_budget(app.kernel->kernel(), occ.registers, occ.registers_source);
  nlohmann::json by_type = nlohmann::json::object();
  for (const auto& t : b.by_type) by_type[t.type] = t.count;
  return {{"warps", rows},
          {"selected_warp", app.selection.warp == kNoWarp ? nlohmann::json(nullptr) : nlohmann::json(app.selection.warp)},
          {"registers",
           {{"by_type", by_type},
            {"words32", b.words32},
            {"predicates", b.predicates},
            {"threads", b.threads},
            {"max_regs", b.max_regs},
            {"per_thread_limit", b.per_thread_limit},
            {"summary", b.summary},
            {"virtual", b.virtual_regs},
            {"setmaxnreg", b.setmaxnreg},
            {"allocated", b.allocated},
            {"allocated_source", b.allocated_source},
            {"text", b.text}}}};
}

}  // namespace gs::gui
