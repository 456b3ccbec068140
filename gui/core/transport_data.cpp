#include "gui/core/transport_data.hpp"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/barrier_label.hpp"
#include "gui/core/guided_stops.hpp"
#include "gui/core/view_data.hpp"
#include "gui/core/warps_data.hpp"

namespace gs::gui {

using model::EventKind;

namespace {

// The register a reg_write event wrote. The one place that reads RegWrite, so a change of its
// layout in the model touches only this function.
uint32_t written_register(const model::Trace& t, const model::Event& e) {
  return e.payload < t.regs.size() ? t.regs[e.payload].reg : kNone;
}


std::string lanes_text(uint32_t mask) {
  const int n = std::popcount(mask);
  return n == 32 ? std::string() : fmt::format(" ({} of 32 lanes)", n);
}

// A warp as every view names it (warp_label: "1.0" for rank 1's warp 0 in a cluster).
std::string warp_text(const model::Trace& t, const model::Event& e) {
  return e.warp == kNoWarp ? std::string("the CTA") : "warp " + warp_label(t, e.warp);
}

std::string mbar_text(const LoadedKernel& k, const model::Event& e, const Snapshot* numbering) {
  const model::Trace& t = k.trace();
  if (e.payload >= t.mbar.size()) return "mbarrier event";
  const model::MbarEvent& m = t.mbar[e.payload];
  const std::string bar = mbarrier_label(k.kernel(), numbering, m.addr);
  const std::string who = warp_text(t, e);
  switch (e.kind) {
    case EventKind::mbar_init:
      return fmt::format("{} initialised {} (0x{:X}) for {} arrival{} per phase", who, bar, m.addr, m.expected,
                         m.expected == 1 ? "" : "s");
    case EventKind::mbar_arrive:
      return fmt::format("{} arrived on {}: {} arrival{} still pending, {} B of transactions expected", who, bar,
                         m.pending_arrivals, m.pending_arrivals == 1 ? "" : "s", m.tx_count);
    case EventKind::mbar_expect_tx:
      return fmt::format("{} told {} to expect {} B (transaction count now {} B)", who, bar, m.value, m.tx_count);
    case EventKind::mbar_complete_tx:
      return fmt::format("{} B completed on {} (transaction count now {} B)", m.value, bar, m.tx_count);
    case EventKind::mbar_phase_flip:
      return fmt::format("{} completed phase {}: now in phase {} (parity {})", bar, m.phase == 0 ? 0 : m.phase - 1,
                         m.phase, m.phase & 1);
    case EventKind::mbar_wait_blocked:
      return fmt::format("{} waits on {} for parity {}: that phase has not completed", who, bar, m.value);
    case EventKind::mbar_wait_released:
      return fmt::format("{} released: {} completed the phase of parity {}", who, bar, m.value);
    default: return "mbarrier event";
  }
}

// A tcgen05 op on tensor memory in words (trace.hpp, TmemOp).
std::string tmem_text(const ir::Kernel& kernel, const model::TmemOp& o, const std::string& who, const Snapshot* numbering) {
  const auto region = [&] {
    return fmt::format("TMEM lanes {}-{}, columns {}-{}", o.lane, o.lane + std::max(1u, o.lanes) - 1, o.column,
                       o.column + std::max(1u, o.columns) - 1);
  };
  switch (o.kind) {
    case model::TmemOpKind::alloc: return fmt::format("{} allocates {} TMEM columns from column {}", who, o.columns, o.column);
    case model::TmemOpKind::dealloc: return fmt::format("{} frees {} TMEM columns from column {}", who, o.columns, o.column);
    case model::TmemOpKind::relinquish: return fmt::format("{} gives up the permit to allocate TMEM", who);
    case model::TmemOpKind::mma:
      return fmt::format("{} issued a tcgen05.mma into {}, done at cycle {}", who, region(), o.complete_cycle);
    case model::TmemOpKind::commit:
      return fmt::format("{} commits its MMAs: the tensor core arrives on {} at cycle {}", who,
                         mbarrier_label(kernel, numbering, o.mbar), o.complete_cycle);
    case model::TmemOpKind::load: return fmt::format("{} reads {} (tcgen05.ld)", who, region());
    case model::TmemOpKind::store: return fmt::format("{} writes {} (tcgen05.st)", who, region());
    case model::TmemOpKind::release:
      return fmt::format("{} releases {} it read: a warp that acquires this release may overwrite them", who, region());
  }
  return "tensor-memory op";
}

}  // namespace

std::string describe_event(const LoadedKernel& k, uint32_t index, const Snapshot* numbering) {
  const model::Trace& t = k.trace();
  if (index >= t.events.size()) return "no event";
  const model::Event& e = t.events[index];
  const std::string who = warp_text(t, e);
  switch (e.kind) {
    case EventKind::cta_start: return fmt::format("CTA {} starts", t.traced_cta);
    case EventKind::cta_end: return fmt::format("CTA {} ends", t.traced_cta);
    case EventKind::warp_inst:
      if (e.inst < k.inst_text.size())
        return fmt::format("{} issued {}{}", who, k.inst_text[e.inst], lanes_text(e.mask));
      return fmt::format("{} issued an instruction", who);
    case EventKind::smem_access: {
      if (e.payload >= t.smem.size()) break;
      const model::SmemAccess& s = t.smem[e.payload];
      return fmt::format("{} {} {} B per lane {} shared memory: {} wavefront{} (ideal {}){}", who,
                         s.store ? "stores" : "loads", s.bytes, s.store ? "to" : "from", s.wavefronts,
                         s.wavefronts == 1 ? "" : "s", s.ideal_wavefronts,
                         s.conflict_degree > 1 ? fmt::format(", {}-way bank conflict", s.conflict_degree) : "");
    }
    case EventKind::global_access: {
      if (e.payload >= t.global.size()) break;
      const model::GlobalAccess& g = t.global[e.payload];
      return fmt::format("{} {} global memory at 0x{:X}: {} B per lane, {} sector{} of 32 B", who,
                         g.store ? "stores to" : "loads from", g.first_addr, g.bytes, g.sectors,
                         g.sectors == 1 ? "" : "s");
    }
    case EventKind::tma_issue:
    case EventKind::tma_complete: {
      if (e.payload >= t.tma.size()) break;
      const model::TmaTransfer& x = t.tma[e.payload];
      std::string coords;
      for (uint32_t d = 0; d < x.rank && d < x.coords.size(); ++d) coords += fmt::format("{}{}", d ? ", " : "", x.coords[d]);
      if (x.store)
        return fmt::format("TMA store of {} B from 0x{:X} to box ({}) {}", x.bytes, x.smem_dst, coords,
                           e.kind == EventKind::tma_issue ? "issued" : "completes");
      if (e.kind == EventKind::tma_issue)
        return fmt::format("{} asks the TMA engine for box ({}): {} B into 0x{:X}, completing on {}", who, coords, x.bytes,
                           x.smem_dst, mbarrier_label(k.kernel(), numbering, x.mbar));
      return fmt::format("TMA load of {} B into 0x{:X} completes on {}", x.bytes, x.smem_dst,
                         mbarrier_label(k.kernel(), numbering, x.mbar));
    }
    case EventKind::mbar_init:
    case EventKind::mbar_arrive:
    case EventKind::mbar_expect_tx:
    case EventKind::mbar_complete_tx:
    case EventKind::mbar_phase_flip:
    case EventKind::mbar_wait_blocked:
    case EventKind::mbar_wait_released: return mbar_text(k, e, numbering);
    case EventKind::bar_blocked:
      return fmt::format("{} waits at bar.sync {} ({} threads expected)", who, e.payload, e.a);
    case EventKind::bar_released: return fmt::format("{} passes bar.sync {}", who, e.payload);
    case EventKind::wgmma_issue:
    case EventKind::wgmma_complete: {
      if (e.payload >= t.mma.size()) break;
      const model::MmaOp& m = t.mma[e.payload];
      if (e.kind == EventKind::wgmma_issue)
        return fmt::format("{} issued an m{}n{}k{} MMA (group {}), done at cycle {}", who, m.m, m.n, m.k, m.group,
                           m.complete_cycle);
      return fmt::format("the m{}n{}k{} MMA of {} (group {}) completes", m.m, m.n, m.k, who, m.group);
    }
    case EventKind::reg_write: {
      const uint32_t r = written_register(t, e);
      if (r < k.ptx.reg_names.size()) return fmt::format("{} wrote {}", who, k.ptx.reg_names[r]);
      return fmt::format("{} wrote a register", who);
    }
    case EventKind::cp_async_commit:
      return fmt::format("{} commits a cp.async group: {} in flight", who, e.a);
    case EventKind::cp_async_wait:
      return fmt::format("{} passes cp.async.wait: {} group{} retired, {} left in flight", who, e.a,
                         e.a == 1 ? "" : "s", e.payload);
    case EventKind::tmem_op:
      if (e.payload < t.tmem.size()) return tmem_text(k.kernel(), t.tmem[e.payload], who, numbering);
      break;
    case EventKind::fast_forward:
      if (e.payload < t.fast_forwards.size()) {
        const model::FastForward& f = t.fast_forwards[e.payload];
        return fmt::format("{} fast-forwards {} {}..{} of {} of loop {}: run with their time ({} cycles), not traced "
                           "or computed",
                           who, f.k_loop ? "K iterations" : "passes", f.first + 1, f.first + f.count, f.passes,
                           f.label < k.report.kernel.labels.size() ? k.report.kernel.labels[f.label].name : "?",
                           f.cycles);
      }
      break;
    case EventKind::hazard:
      if (e.payload < t.hazards.size())
        return fmt::format("hazard {}: {}", model::hazard_kind_name(t.hazards[e.payload].kind), t.hazards[e.payload].detail);
      return "hazard";
    default: break;
  }
  return fmt::format("{} ({})", model::event_kind_name(e.kind), who);
}

TransportInfo transport_info(AppState& app) {
  TransportInfo info;
  if (!app.kernel) return info;
  const LoadedKernel& k = *app.kernel;
  const model::Trace& t = k.trace();
  info.events = uint32_t(t.events.size());
  info.position = app.playback.position;
  info.end_cycle = t.end_cycle;
  info.has_k_loop = !k.k_loops.empty();
  info.k_warp = k.k_warp(app.selection.warp);
  info.k_iterations = k.k_iterations(info.k_warp);
  if (const Snapshot* s = app.snapshot()) {
    info.cycle = s->cycle;
    if (info.k_warp < s->warps.size())
      info.k_iteration = k.k_iterations_at(info.k_warp, info.position, s->warps[info.k_warp].k_passes);
    info.event_text = describe_event(k, info.position, s);
  }
  if (info.k_warp == kNoWarp) return info;
  // Which iterations were fast-forwarded: "5–124", "5–12, 21–28 and 3 more".
  std::string skipped;
  const std::vector<LoadedKernel::KSkip>& skips =
      info.k_warp < k.k_skips.size() ? k.k_skips[info.k_warp] : std::vector<LoadedKernel::KSkip>{};
  for (size_t i = 0; i < skips.size(); ++i) {
    info.k_fast_forwarded += skips[i].count;
    if (i < 2) skipped += fmt::format("{}{}–{}", i ? ", " : "", skips[i].first, skips[i].first + skips[i].count - 1);
  }
  if (skips.size() > 2) skipped += fmt::format(" and {} more", skips.size() - 2);
  info.k_text = fmt::format("K iteration {} of {} (warp {}{})", info.k_iteration, info.k_iterations,
                            warp_label(t, info.k_warp), skipped.empty() ? "" : "; " + skipped + " fast-forwarded");
  return info;
}

void seek_to_cycle(AppState& app, uint64_t cycle) {
  if (!app.kernel) return;
  model::Cursor c(app.kernel->trace());
  c.jump_to_cycle(cycle);
  app.seek(c.position());
}

void seek_start(AppState& app) {
  if (!app.kernel) return;
  const auto& insts = app.kernel->trace().of_kind(EventKind::warp_inst);
  app.seek(insts.empty() ? 0 : insts.front());
}

void seek_end(AppState& app) {
  const uint32_t n = app.event_count();
  app.seek(n == 0 ? 0 : n - 1);
}

void toggle_play(AppState& app) {
  if (!app.kernel) return;
  if (!app.playback.playing && app.playback.position + 1 >= app.event_count()) seek_start(app);
  app.playback.playing = !app.playback.playing;
  app.playback.carry = 0.0;
}

namespace {

// Arrows step; modifiers pick the unit, bigger with each: none = any warp's next instruction,
// Shift = the selected warp's, Ctrl = a whole K iteration, Ctrl+Shift = a single event.
constexpr Shortcut kShortcuts[] = {
    {ShortcutKey::space, false, false, TransportAction::toggle_play, StepUnit::instruction, "Space", "play / pause"},
    {ShortcutKey::right, false, false, TransportAction::step_forward, StepUnit::instruction, "Right",
     "next instruction (any warp)"},
    {ShortcutKey::left, false, false, TransportAction::step_backward, StepUnit::instruction, "Left",
     "previous instruction (any warp)"},
    {ShortcutKey::right, false, true, TransportAction::step_forward, StepUnit::warp_instruction, "Shift+Right",
     "next instruction of the selected warp"},
    {ShortcutKey::left, false, true, TransportAction::step_backward, StepUnit::warp_instruction, "Shift+Left",
     "previous instruction of the selected warp"},
    {ShortcutKey::right, true, false, TransportAction::step_forward, StepUnit::k_iteration, "Ctrl+Right",
     "next K iteration"},
    {ShortcutKey::left, true, false, TransportAction::step_backward, StepUnit::k_iteration, "Ctrl+Left",
     "previous K iteration"},
    {ShortcutKey::right, true, true, TransportAction::step_forward, StepUnit::event, "Ctrl+Shift+Right",
     "next event (TMA, barrier, MMA, ...)"},
    {ShortcutKey::left, true, true, TransportAction::step_backward, StepUnit::event, "Ctrl+Shift+Left",
     "previous event"},
    {ShortcutKey::page_down, false, false, TransportAction::step_forward, StepUnit::barrier_phase, "PageDown",
     "next mbarrier phase flip"},
    {ShortcutKey::page_up, false, false, TransportAction::step_backward, StepUnit::barrier_phase, "PageUp",
     "previous mbarrier phase flip"},
    {ShortcutKey::page_down, false, true, TransportAction::step_forward, StepUnit::stop, "Shift+PageDown",
     "next stop of the step's lesson"},
    {ShortcutKey::page_up, false, true, TransportAction::step_backward, StepUnit::stop, "Shift+PageUp",
     "previous stop of the step's lesson"},
    {ShortcutKey::home, false, false, TransportAction::go_start, StepUnit::instruction, "Home", "first instruction"},
    {ShortcutKey::end, false, false, TransportAction::go_end, StepUnit::instruction, "End", "last event"},
    {ShortcutKey::f1, false, false, TransportAction::toggle_help, StepUnit::instruction, "F1", "this help"},
    {ShortcutKey::question_mark, false, false, TransportAction::toggle_help, StepUnit::instruction, "?", "this help"},
};

}  // namespace

std::span<const Shortcut> transport_shortcuts() { return kShortcuts; }

const Shortcut* find_shortcut(ShortcutKey key, bool ctrl, bool shift) {
  for (const Shortcut& s : kShortcuts)
    if (s.key == key && s.ctrl == ctrl && s.shift == shift) return &s;
  return nullptr;
}

bool apply_shortcut(AppState& app, const Shortcut& s, bool& help_open) {
  switch (s.action) {
    case TransportAction::toggle_play: toggle_play(app); return true;
    case TransportAction::step_forward: app.playback.playing = false; return app.step(s.unit, true);
    case TransportAction::step_backward: app.playback.playing = false; return app.step(s.unit, false);
    case TransportAction::go_start: app.playback.playing = false; seek_start(app); return true;
    case TransportAction::go_end: app.playback.playing = false; seek_end(app); return true;
    case TransportAction::toggle_help: help_open = !help_open; return true;
  }
  return false;
}

nlohmann::json describe_transport(AppState& app) {
  const TransportInfo info = transport_info(app);
  nlohmann::json shortcuts = nlohmann::json::array();
  for (const Shortcut& s : transport_shortcuts()) shortcuts.push_back({{"keys", s.keys}, {"does", s.description}});
  std::string kind;
  if (app.kernel && info.position < info.events)
    kind = model::event_kind_name(app.kernel->trace().events[info.position].kind);
  // The step's guided stop the cursor is at or last passed (null before the first), and
  // whether it is exactly at it.
  nlohmann::json stop = nullptr;
  if (app.kernel) {
    const std::vector<GuidedStop>& stops = step_stops(*app.kernel);
    if (const GuidedStop* s = stop_at(stops, info.position))
      stop = {{"index", s - stops.data()},
              {"of", stops.size()},
              {"name", s->name},
              {"label", s->label},
              {"sentence", s->sentence},
              {"event", s->event},
              {"at", s->event == info.position}};
  }
  return {{"position", info.position},
          {"events", info.events},
          {"cycle", info.cycle},
          {"end_cycle", info.end_cycle},
          {"unit", step_unit_name(app.playback.unit)},
          {"playing", app.playback.playing},
          {"speed", app.playback.speed},
          {"k_warp", info.k_warp == kNoWarp ? nlohmann::json(nullptr) : nlohmann::json(info.k_warp)},
          {"k_iteration", info.k_iteration},
          {"k_iterations", info.k_iterations},
          {"k_fast_forwarded", info.k_fast_forwarded},
          {"k_text", info.k_text},
          {"current_event_kind", kind},
          {"current_event_text", info.event_text},
          {"stop", stop},
          {"shortcuts", shortcuts}};
}

}  // namespace gs::gui
