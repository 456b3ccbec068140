#include "gui/core/schedule_data.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "engine/model/model.hpp"
#include "engine/model/timing.hpp"
#include "gui/core/app_state.hpp"
#include "gui/core/kernel_cache.hpp"
#include "kernels/tile_order.hpp"

namespace gs::gui {

namespace {

// Waves and tile quantization: what the shape costs before any instruction runs.
void quantization(const LoadedKernel& k, ScheduleData& d) {
  const ir::Kernel& kernel = k.kernel();
  d.ctas = uint32_t(kernel.launch.ctas());
  d.sms = model::timing::machine_for(kernel.target).sms;  // 148 on a B200 for sm_100a
  d.ctas_per_sm = std::max(1u, d.occupancy.ctas_per_sm);
  const uint64_t per_wave = uint64_t(d.sms) * d.ctas_per_sm;
  d.waves = uint32_t((d.ctas + per_wave - 1) / per_wave);
  d.wave_efficiency = d.waves ? double(d.ctas) / double(d.waves * per_wave) : 0.0;
  const double tiled = double(d.tiles_m) * d.tile_rows * double(d.tiles_n) * d.tile_cols;
  d.tile_efficiency = tiled > 0 ? double(d.m) * double(d.n) / tiled : 0.0;
  d.wasted_elements = tiled > 0 ? uint64_t(tiled) - uint64_t(d.m) * d.n : 0;
  // How full the last wave is: the idle share of the GPU at the end of the kernel. A share
  // under 1% keeps a decimal (4 CTAs of 1188 slots are "0.3%", not "0%").
  const uint64_t last = d.waves ? d.ctas - uint64_t(d.waves - 1) * per_wave : 0;
  const double share = 100.0 * double(last) / double(per_wave);
  d.waves_text = fmt::format("{} wave{} ({} SMs × {}), the last {} CTA{}: {}% of its slots", d.waves,
                             d.waves == 1 ? "" : "s", d.sms, d.ctas_per_sm, last, last == 1 ? "" : "s",
                             share < 1.0 ? fmt::format("{:.1f}", share) : fmt::format("{:.0f}", share));
  // A grid that hands out its own tiles (clusterlaunchcontrol): the CTAs the SMs hold at once run,
  // and take the tiles of the CTAs still waiting, which never run: one wave, whose CTAs walk
  // ctas / per_wave tiles each; the last round of tiles leaves the same SMs idle that a last wave
  // would (the model runs it so: engine/model/grid.cpp, run_launch_controlled).
  if (model::uses_launch_control(kernel) && d.ctas > per_wave) {
    d.waves = 1;
    d.waves_text = fmt::format("1 wave ({} SMs × {}) that takes the other {} CTAs' tiles by cluster launch control: "
                               "{:.2f} tiles a CTA, the last round {} tile{}: {}% of the SMs",
                               d.sms, d.ctas_per_sm, d.ctas - per_wave, double(d.ctas) / double(per_wave), last,
                               last == 1 ? "" : "s",
                               share < 1.0 ? fmt::format("{:.1f}", share) : fmt::format("{:.0f}", share));
  }
}

// The cluster (linear index over the grid of clusters) of linear CTA `cta`.
uint64_t cluster_of(const ir::LaunchShape& l, uint32_t cta) {
  const uint32_t x = cta % l.grid[0], y = (cta / l.grid[0]) % l.grid[1], z = cta / (l.grid[0] * l.grid[1]);
  const uint64_t cx = std::max(1u, l.cluster[0]), cy = std::max(1u, l.cluster[1]), cz = std::max(1u, l.cluster[2]);
  const uint64_t nx = (l.grid[0] + cx - 1) / cx, ny = (l.grid[1] + cy - 1) / cy;
  return x / cx + nx * (y / cy + ny * (z / cz));
}

// Elements of C that two CTAs of the traced cluster both wrote (the trace holds every store
// of the traced cluster): 0 when a cluster's CTAs write disjoint parts.
uint32_t cluster_overlap(const LoadedKernel& k) {
  const model::Trace& t = k.trace();
  if (t.ctas.size() < 2 || t.warps_per_cta == 0) return 0;
  std::map<uint64_t, uint32_t> writer;  // element offset -> CTA rank that first wrote it
  uint32_t overlap = 0;
  for (const model::CWrite& w : t.c_writes) {
    const uint32_t rank = w.warp / t.warps_per_cta;
    auto [it, fresh] = writer.try_emplace(w.byte_offset, rank);
    if (!fresh && it->second != rank && it->second != kNone) {
      ++overlap;
      it->second = kNone;  // count an element once
    }
  }
  return overlap;
}

// The occupancy, tiling and waves: what the shape costs before any tile is placed (no cells).
ScheduleData waves_only(const LoadedKernel& k) {
  ScheduleData d;
  const model::CSchedule& s = k.report.result.schedule;
  d.whole_grid = k.whole_grid();
  d.occupancy = kernel_occupancy(k);
  if (s.tiles_m == 0 || s.tiles_n == 0) {
    d.note = "this kernel declares no output tiling (ir::OutputTiling), so the model cannot say which tile a store "
             "belongs to";
    return d;
  }
  d.available = true;
  d.tiles_m = s.tiles_m;
  d.tiles_n = s.tiles_n;
  d.tile_rows = s.tile_rows;
  d.tile_cols = s.tile_cols;
  d.m = k.kernel().output.rows;
  d.n = k.kernel().output.cols;
  quantization(k, d);
  return d;
}

// The tile orders the kernel takes, side by side at the open kernel's shape and wave size.
void tile_orders(const LoadedKernel& k, ScheduleData& d) {
  if (!k.info) return;
  const model::SimStats& st = k.report.result.stats;
  if (!st.predicted_on || st.prediction.wave_ctas == 0) return;
  d.orders_concurrent = model::timing::concurrent_tiles(st.prediction, k.kernel().launch.ctas());
  try {
    d.orders = tile_order_traffic(*k.info, {k.report.shape, k.report.mistakes, k.report.params}, d.orders_concurrent,
                                  *st.predicted_on);
  } catch (const std::exception& e) {
    d.orders.clear();
    d.orders_note = fmt::format("the tile orders could not be built: {}", e.what());
    return;
  }
  if (d.orders.empty()) return;
  const uint64_t tiles = uint64_t(d.tiles_m) * d.tiles_n;
  d.orders_note = fmt::format(
      "The model's bytes for each tile order at {}x{}x{} on the {}: {} tiles, {} in flight at once (a wave). HBM: the A "
      "and B panels a wave needs that L2 does not hold from the wave before (timing::hbm_read_bytes); L2: every "
      "tile's panels, as its CTA reads them; reuse: how many times L2 serves each byte HBM brought.",
      k.report.shape.m, k.report.shape.n, k.report.shape.k, st.predicted_on->name, tiles, d.orders_concurrent);
  const bool all_at_once = tiles <= d.orders_concurrent;
  if (all_at_once)
    d.orders_note += " Every tile is in flight at once here, so every order reads each panel from HBM once: open "
                     "the step at a larger shape (8192x8192x8192) to see the orders part.";
  const auto by_hbm = [](const OrderTraffic& a, const OrderTraffic& b) { return a.traffic.hbm_bytes < b.traffic.hbm_bytes; };
  const OrderTraffic& least = *std::min_element(d.orders.begin(), d.orders.end(), by_hbm);
  const OrderTraffic& most = *std::max_element(d.orders.begin(), d.orders.end(), by_hbm);
  const auto gib = [](double b) { return fmt::format("{:.2f} GiB", b / double(1 << 30)); };
  if (least.traffic.hbm_bytes == most.traffic.hbm_bytes)
    d.orders_line = (all_at_once ? fmt::format("All {} tiles run at once here: every order reads each panel once.", tiles)
                                 : fmt::format("Every order reads {} from HBM here: each wave's panels stay in L2 for "
                                               "the next.",
                                               gib(least.traffic.hbm_bytes))) +
                    " Open the step at 8192x8192x8192 to see them part.";
  else
    d.orders_line = fmt::format("The {} order reads least from HBM, {} against the {} order's {}: L2 serves each of its "
                                "bytes {:.1f} times, {:.1f} for the {} order.",
                                least.name, gib(least.traffic.hbm_bytes), most.name, gib(most.traffic.hbm_bytes),
                                least.traffic.l2_reuse(), most.traffic.l2_reuse(), most.name);
  if (d.whole_grid)
    d.orders_note += " (The declared walks; this whole-grid run's own prediction follows the schedule the grid ran.)";
}

// The launch queue's answers (model::CSchedule::cancels) on one time axis with the tiles' first
// stores: which CTA asked when, when the answer landed, which CTA it cancelled and which tile
// that gave the asker (the cancelled CTA's own tile in the kernel's declared launch order).
void launch_queue(const LoadedKernel& k, ScheduleData& d) {
  const model::CSchedule& s = k.report.result.schedule;
  const std::vector<uint32_t>& order = k.kernel().output.walk;  // round 0: CTA i's own tile
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> first_store;  // (CTA, tile) -> its first store's cycle
  for (const model::TileVisit& v : s.visits) {
    first_store.try_emplace({v.cta, v.tile}, v.cycle);
    d.queue_end = std::max(d.queue_end, v.cycle);
  }
  std::set<uint32_t> askers;
  for (const model::LaunchCancel& a : s.cancels) {
    ClcAnswer x{a.asker, a.cycle, a.landed, a.cancelled};
    if (a.cancelled != kNone && a.cancelled < order.size()) x.tile = order[a.cancelled];
    if (x.tile != kNone)
      if (auto it = first_store.find({a.asker, x.tile}); it != first_store.end()) {
        x.stored = true;
        x.stored_at = it->second;
        if (x.tile < d.cells.size() && d.cells[x.tile].cta == a.asker) d.cells[x.tile].answer = uint32_t(d.answers.size());
      }
    d.queue_end = std::max(d.queue_end, a.landed);
    askers.insert(a.asker);
    d.answers.push_back(x);
  }
  d.queue_ctas.assign(askers.begin(), askers.end());
}

ScheduleData build(const LoadedKernel& k) {
  ScheduleData d = waves_only(k);
  if (!d.available) return d;
  tile_orders(k, d);
  const model::CSchedule& s = k.report.result.schedule;
  d.headline = fmt::format("{}×{} tiles of {}×{}, {} CTA{}", d.tiles_m, d.tiles_n, d.tile_rows, d.tile_cols, d.ctas,
                           d.ctas == 1 ? "" : "s");
  d.cells.resize(size_t(d.tiles_m) * d.tiles_n);
  for (uint32_t i = 0; i < d.cells.size(); ++i) {
    d.cells[i].row = i / d.tiles_n;
    d.cells[i].col = i % d.tiles_n;
  }
  const uint64_t per_wave = uint64_t(d.sms) * d.ctas_per_sm;
  std::map<uint32_t, std::vector<uint32_t>> walk;  // CTA -> its tiles in order
  // The CTAs of one cluster write a tile together (a 2-SM MMA's pair each stores its half):
  // their visits are one write of the tile. A CTA that comes back to a tile writes it again.
  // (tile, cluster) -> each of its CTAs' visits to the tile.
  std::map<std::pair<uint32_t, uint64_t>, std::map<uint32_t, uint32_t>> by_cluster;
  const ir::LaunchShape& launch = k.kernel().launch;
  for (const model::TileVisit& v : s.visits) {
    if (v.tile >= d.cells.size()) continue;
    ScheduleCell& c = d.cells[v.tile];
    if (c.cta == kNone) {
      c.cta = v.cta;
      c.order = v.order;
      c.wave = uint32_t(v.cta / per_wave);
      c.cycle = v.cycle;
      d.last_cycle = std::max(d.last_cycle, v.cycle);
    }
    ++by_cluster[{v.tile, cluster_of(launch, v.cta)}][v.cta];
    walk[v.cta].push_back(v.tile);
  }
  for (const auto& [key, ctas] : by_cluster) {
    uint32_t most = 0;
    for (const auto& [cta, visits] : ctas) most = std::max(most, visits);
    d.cells[key.first].writers += most;
    d.cells[key.first].cluster_ctas = std::max(d.cells[key.first].cluster_ctas, uint32_t(ctas.size()));
  }
  d.overlapping_elements = cluster_overlap(k);
  for (uint32_t t : k.kernel().output.walk)
    if (t < d.cells.size()) d.walk.push_back(t);
  for (auto& [cta, tiles] : walk)
    if (tiles.size() > 1) d.paths.emplace_back(cta, std::move(tiles));
  for (const ScheduleCell& c : d.cells) {
    d.unwritten += c.writers == 0 ? 1 : 0;
    d.written_twice += c.writers > 1 ? 1 : 0;
  }
  if (!d.whole_grid) {
    d.unwritten = 0;  // only the traced CTA ran: the other tiles are unknown, not missing
    d.note = "Only the traced CTA ran: its tiles are shown. Run on model for the whole grid's schedule.";
  } else if (d.unwritten || d.written_twice || d.overlapping_elements) {
    d.note = fmt::format("{} tile{} never written, {} written more than once: the kernel's mapping of CTAs to tiles "
                         "is wrong",
                         d.unwritten, d.unwritten == 1 ? "" : "s", d.written_twice);
    if (d.overlapping_elements)
      d.note += fmt::format(" ({} element{} of C written by two CTAs of the traced cluster)", d.overlapping_elements,
                            d.overlapping_elements == 1 ? "" : "s");
  } else {
    d.note = fmt::format("every tile written once, by {} CTA{}", walk.size(), walk.size() == 1 ? "" : "s");
    const uint32_t per_cluster = launch.cluster[0] * launch.cluster[1] * launch.cluster[2];
    if (per_cluster > 1)
      d.note += fmt::format(" (a cluster's {} CTAs write disjoint parts of one tile: one write)", per_cluster);
  }
  d.launch_control = !s.cancels.empty();
  for (const model::LaunchCancel& a : s.cancels) (a.cancelled == kNone ? d.none_left : d.cancelled) += 1;
  launch_queue(k, d);
  if (d.launch_control && d.whole_grid)
    d.note += fmt::format(". Cluster launch control: {} CTA{} ran and took the tiles of {} CTA{} they cancelled "
                          "(those never ran), then stopped at {} answer{} 'none left'. The strip under each tile "
                          "is when its CTA first stored into it, from cycle 0 to {}; the launch queue shows each "
                          "CTA's requests, answers and stores in time",
                          walk.size(), walk.size() == 1 ? "" : "s", d.cancelled, d.cancelled == 1 ? "" : "s",
                          d.none_left, d.none_left == 1 ? "" : "s", d.last_cycle);
  return d;
}

}  // namespace

std::vector<OrderTraffic> tile_order_traffic(const kernels::KernelInfo& info, const kernels::GemmConfig& open,
                                             uint64_t concurrent, const model::timing::Machine& card) {
  namespace tile_order = kernels::tile_order;
  const std::string name = tile_order::order_param(tile_order::Order::row).name;
  const auto param = std::find_if(info.params.begin(), info.params.end(),
                                  [&](const kernels::BuildParam& p) { return p.name == name; });
  if (param == info.params.end()) return {};
  const kernels::ParamValues params = kernels::resolve_params(info, open.params);
  std::vector<OrderTraffic> out;
  for (uint32_t value : param->choices) {
    kernels::GemmConfig cfg = open;
    cfg.params = params;
    cfg.params[name] = value;
    const ir::Kernel built = kernels::build_kernel(info, cfg);
    const model::timing::GemmFacts g = model::timing::declared_gemm_facts(built.output, open.shape.k);
    out.push_back({value, tile_order::order_name(tile_order::Order(value)), value == params.at(name),
                   model::timing::walk_traffic(g, concurrent, card.desc->l2_kept_bytes.value)});
  }
  return out;
}

const ScheduleData& schedule_data(const std::shared_ptr<const LoadedKernel>& kernel) {
  return cached_for_kernel<ScheduleData>(kernel, build);
}

ScheduleData schedule_waves(const LoadedKernel& k) { return waves_only(k); }

nlohmann::json describe_schedule(AppState& app) {
  if (app.kernel) count_registers_now(*app.kernel);  // the state says what the view will show
  const ScheduleData& d = schedule_data(app.kernel);
  nlohmann::json cells = nlohmann::json::array();
  for (const ScheduleCell& c : d.cells)
    cells.push_back({{"row", c.row},
                     {"col", c.col},
                     {"cta", c.cta == kNone ? nlohmann::json(nullptr) : nlohmann::json(c.cta)},
                     {"order", c.order},
                     {"writers", c.writers},
                     {"cluster_ctas", c.cluster_ctas},
                     {"wave", c.wave},
                     {"cycle", c.cycle},
                     {"answer", c.answer == kNone ? nlohmann::json(nullptr) : nlohmann::json(c.answer)}});
  nlohmann::json answers = nlohmann::json::array();
  for (const ClcAnswer& a : d.answers)
    answers.push_back({{"asker", a.asker},
                       {"issued", a.issued},
                       {"landed", a.landed},
                       {"cancelled", a.cancelled == kNone ? nlohmann::json(nullptr) : nlohmann::json(a.cancelled)},
                       {"tile", a.tile == kNone ? nlohmann::json(nullptr) : nlohmann::json(a.tile)},
                       {"stored_at", a.stored ? nlohmann::json(a.stored_at) : nlohmann::json(nullptr)}});
  nlohmann::json paths = nlohmann::json::array();
  for (const auto& [cta, tiles] : d.paths) paths.push_back({{"cta", cta}, {"tiles", tiles}});
  nlohmann::json orders = nlohmann::json::array();
  for (const OrderTraffic& o : d.orders)
    orders.push_back({{"order", o.value},
                      {"name", o.name},
                      {"open", o.open},
                      {"hbm_bytes", o.traffic.hbm_bytes},
                      {"l2_bytes", o.traffic.l2_bytes},
                      {"l2_distinct_bytes", o.traffic.l2_distinct_bytes},
                      {"l2_reuse", o.traffic.l2_reuse()}});
  return {{"available", d.available},
          {"whole_grid", d.whole_grid},
          {"note", d.note},
          {"launch_control",
           d.launch_control ? nlohmann::json{{"cancelled", d.cancelled},
                                             {"none_left", d.none_left},
                                             {"last_cycle", d.last_cycle},
                                             {"queue_ctas", d.queue_ctas},
                                             {"queue_end", d.queue_end},
                                             {"answers", answers}}
                            : nlohmann::json(nullptr)},
          {"tiles", {d.tiles_m, d.tiles_n}},
          {"tile", {d.tile_rows, d.tile_cols}},
          {"ctas", d.ctas},
          {"ctas_per_sm", d.ctas_per_sm},
          {"occupancy", occupancy_json(d.occupancy)},
          {"wasted_elements", d.wasted_elements},
          {"sms", d.sms},
          {"waves", d.waves},
          {"wave_efficiency", d.wave_efficiency},
          {"headline", d.headline},
          {"waves_text", d.waves_text},
          {"tile_efficiency", d.tile_efficiency},
          {"unwritten", d.unwritten},
          {"written_twice", d.written_twice},
          {"overlapping_elements", d.overlapping_elements},
          {"cells", cells},
          {"paths", paths},
          // The declared order's first tiles (all of them up to 4096) and how many there are.
          {"walk", std::vector<uint32_t>(d.walk.begin(), d.walk.begin() + std::min<size_t>(d.walk.size(), 4096))},
          {"walk_tiles", d.walk.size()},
          {"tile_orders", orders},
          {"tile_orders_concurrent", d.orders_concurrent},
          {"tile_orders_note", d.orders_note},
          {"tile_orders_line", d.orders_line}};
}

}  // namespace gs::gui
