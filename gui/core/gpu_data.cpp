#include "gui/core/gpu_data.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "engine/model/timing.hpp"
#include "gui/core/app_state.hpp"
#include "gui/core/kernel_cache.hpp"

namespace gs::gui {

namespace {

namespace timing = model::timing;

// GPCs of whole TPCs (2 SMs each), as even as they can be: NVIDIA does not publish how many of
// a GPC's SMs a given chip enables, so the view draws the even split and says so.
std::vector<GpuGpc> split_gpcs(uint32_t sms, uint32_t gpcs) {
  std::vector<GpuGpc> out;
  if (gpcs == 0) return out;
  const uint32_t tpcs = sms / 2, odd = sms % 2;
  uint32_t first = 0;
  for (uint32_t g = 0; g < gpcs; ++g) {
    const uint32_t n = 2 * (tpcs / gpcs + (g < tpcs % gpcs ? 1 : 0)) + (g + 1 == gpcs ? odd : 0);
    out.push_back({first, n});
    first += n;
  }
  return out;
}

// The cluster (linear over the grid of clusters) and rank of linear CTA `cta`.
std::pair<uint64_t, uint32_t> cluster_and_rank(const ir::LaunchShape& l, uint64_t cta) {
  const uint64_t x = cta % l.grid[0], y = cta / l.grid[0] % l.grid[1], z = cta / (uint64_t(l.grid[0]) * l.grid[1]);
  const uint64_t cx = std::max(1u, l.cluster[0]), cy = std::max(1u, l.cluster[1]), cz = std::max(1u, l.cluster[2]);
  const uint64_t nx = (l.grid[0] + cx - 1) / cx, ny = (l.grid[1] + cy - 1) / cy;
  const uint64_t cluster = x / cx + nx * (y / cy + ny * (z / cz));
  const uint32_t rank = uint32_t(x % cx + cx * (y % cy + cy * (z % cz)));
  return {cluster, rank};
}

// The wave's CTAs on the SMs: cluster by cluster, each cluster's CTAs on consecutive SMs of one
// GPC (a cluster runs in one GPC), `resident` CTAs an SM, the next cluster where the last ended.
void place_wave(const ir::LaunchShape& launch, GpuData& d) {
  d.sm_ctas.assign(d.sms, 0);
  d.sm_cluster.assign(d.sms, kNone);
  const uint64_t first = uint64_t(d.wave) * d.wave_ctas, last = std::min(d.ctas, first + d.wave_ctas);
  std::map<uint64_t, std::vector<std::pair<uint32_t, uint64_t>>> clusters;  // cluster -> (rank, CTA)
  for (uint64_t c = first; c < last; ++c) {
    const auto [cluster, rank] = cluster_and_rank(launch, c);
    clusters[cluster].push_back({rank, c});
  }
  uint32_t gpc = 0, sm = d.gpc.empty() ? 0 : d.gpc[0].first_sm, layer = 0;
  for (auto& [cluster, ctas] : clusters) {
    std::sort(ctas.begin(), ctas.end());
    const uint32_t size = uint32_t(ctas.size());
    // The next GPC when this one has no room for the whole cluster; a new layer of CTAs per SM
    // when every GPC is full.
    while (gpc < d.gpc.size() && sm + size > d.gpc[gpc].first_sm + d.gpc[gpc].sms) {
      if (++gpc == d.gpc.size() && ++layer < d.resident) gpc = 0;
      if (gpc < d.gpc.size()) sm = d.gpc[gpc].first_sm;
    }
    if (gpc >= d.gpc.size()) break;  // more than the wave holds: the prediction's count says otherwise
    for (const auto& [rank, cta] : ctas) {
      if (d.sm_cluster[sm] == kNone) d.sm_cluster[sm] = uint32_t(cluster);
      ++d.sm_ctas[sm];
      if (cta == d.traced_cta) d.traced_sm = sm;
      ++sm;
    }
  }
  d.occupied_sms = uint32_t(std::count_if(d.sm_ctas.begin(), d.sm_ctas.end(), [](uint32_t n) { return n > 0; }));
}

GpuData build(const LoadedKernel& k) {
  GpuData d;
  const model::SimStats& st = k.report.result.stats;
  const timing::Machine& card = st.predicted_on ? *st.predicted_on : timing::machine_for(k.kernel().target);
  const timing::MachineDesc& m = *card.desc;
  d.available = true;
  d.machine = m.name;
  d.card = card.name;
  d.confirmed = card.confirmed;
  d.sms = uint32_t(m.sms.value);
  d.gpcs = uint32_t(m.gpcs.value);
  d.sms_source = m.sms.source;
  d.gpcs_source = m.gpcs.source;
  d.gpc = split_gpcs(d.sms, d.gpcs);
  d.schedulers = uint32_t(m.schedulers_per_sm.value);
  const bool tcgen05 = timing::machine_runs(card, ir::Arch::sm_100a);
  d.tensor_op = tcgen05 ? "tcgen05.mma" : "wgmma";
  const double tensor = tcgen05 ? m.tcgen05_flops_per_cycle.value : m.wgmma_flops_per_cycle.value;
  d.sub.resize(d.schedulers);
  for (GpuSubPartition& s : d.sub) {
    s.registers = uint32_t(m.registers_per_sm.value) / d.schedulers;
    s.fma_lanes = m.fma_pipe_rate.value / d.schedulers * 32.0;
    s.tensor_flops = tensor / d.schedulers;
    s.issue = m.issue_per_scheduler.value;
  }
  d.smem_bytes = uint32_t(m.smem_bytes_per_sm.value);
  d.l1_bytes = uint32_t(m.l1_bytes.value);
  d.smem_bytes_per_cycle = m.smem_bytes_per_cycle.value;
  d.l1_lines_per_cycle = m.l1_lines_per_cycle.value;
  d.tma_bytes_per_cycle = m.tma_bytes_per_cycle.value;
  d.l2_bytes = uint64_t(m.l2_bytes.value);
  d.l2_gbs = m.l2_bandwidth_gbs.value;
  d.hbm_gbs = m.hbm_bandwidth_gbs.value;
  d.hbm_gb = m.hbm_gb.value;
  // The traced CTA's warps on the schedulers.
  const model::Trace& t = k.trace();
  for (const model::TracedCta& c : t.ctas)
    if (c.linear == t.traced_cta) d.first_warp = c.first_warp;
  for (uint32_t w = 0; w < t.warps_per_cta; ++w)
    d.sub[timing::scheduler_of_warp(w) % d.schedulers].warps.push_back(uint16_t(w));
  // The grid: the prediction's waves.
  const ir::LaunchShape& launch = k.kernel().launch;
  const timing::Prediction& p = st.prediction;
  d.ctas = launch.ctas();
  d.resident = std::max(1u, p.resident);
  d.wave_ctas = p.wave_ctas ? p.wave_ctas : uint64_t(d.sms) * d.resident;
  d.waves = (d.ctas + d.wave_ctas - 1) / d.wave_ctas;
  d.cluster_size = std::max(1u, launch.cluster[0] * launch.cluster[1] * launch.cluster[2]);
  d.traced_cta = t.traced_cta;
  d.wave = uint32_t(d.traced_cta / d.wave_ctas);
  place_wave(launch, d);
  d.note = fmt::format(
      "wave {} of {}: {} CTA{} on {} of {} SMs ({} a SM at most){}. NVIDIA does not publish where "
      "CTAs land: drawn cluster by cluster on consecutive SMs, a cluster in one GPC.",
      d.wave + 1, d.waves, std::min<uint64_t>(d.wave_ctas, d.ctas - uint64_t(d.wave) * d.wave_ctas),
      d.ctas == 1 ? "" : "s", d.occupied_sms, d.sms, d.resident,
      d.cluster_size > 1 ? fmt::format(", in clusters of {}", d.cluster_size) : "");
  return d;
}

}  // namespace

const GpuData& gpu_data(const std::shared_ptr<const LoadedKernel>& kernel) {
  return cached_for_kernel<GpuData>(kernel, build);
}

nlohmann::json describe_gpu(AppState& app) {
  const GpuData& d = gpu_data(app.kernel);
  nlohmann::json gpcs = nlohmann::json::array(), sub = nlohmann::json::array();
  for (const GpuGpc& g : d.gpc) gpcs.push_back({{"first_sm", g.first_sm}, {"sms", g.sms}});
  for (const GpuSubPartition& s : d.sub)
    sub.push_back({{"registers", s.registers},
                   {"fma_lanes", s.fma_lanes},
                   {"tensor_flops_per_cycle", s.tensor_flops},
                   {"warps", s.warps}});
  return {
      {"available", d.available},
      {"machine", d.machine},
      {"card", d.card},
      {"confirmed", d.confirmed},
      {"sms", d.sms},
      {"gpcs", gpcs},
      {"sub_partitions", sub},
      {"tensor_op", d.tensor_op},
      {"smem_bytes", d.smem_bytes},
      {"l1_bytes", d.l1_bytes},
      {"l2_bytes", d.l2_bytes},
      {"l2_gbs", d.l2_gbs},
      {"hbm_gbs", d.hbm_gbs},
      {"hbm_gb", d.hbm_gb},
      {"ctas", d.ctas},
      {"wave", d.wave},
      {"waves", d.waves},
      {"wave_ctas", d.wave_ctas},
      {"resident", d.resident},
      {"cluster_size", d.cluster_size},
      {"traced_sm", d.traced_sm == kNone ? nlohmann::json(nullptr) : nlohmann::json(d.traced_sm)},
      {"traced_cluster", d.traced_sm == kNone ? nlohmann::json(nullptr) : nlohmann::json(d.sm_cluster[d.traced_sm])},
      {"occupied_sms", d.occupied_sms},
      {"sm_ctas", d.sm_ctas},
      {"note", d.note}};
}

}  // namespace gs::gui
