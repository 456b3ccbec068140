#include "run/timeline_model.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/model/timeline_decode.hpp"
#include "run/gpu_bench.hpp"
#include "run/sim_job.hpp"

namespace gs::run {

namespace {

// The skipped passes of the recorded warps, in the document's frame: CTA by linear id, warp in
// its CTA, cycles since the CTA's first warp started (as the events').
std::vector<TimelineSkip> skips_of(const SimReport& r, const model::MeasuredTimeline& m) {
  std::vector<TimelineSkip> out;
  const uint32_t per_cta = std::max(1u, r.timeline ? r.timeline->warps_per_cta : 1u);
  for (const model::FastForward& f : r.timeline_skips) {
    const uint32_t rank = f.warp / per_cta;
    if (rank >= r.timeline_ctas.size()) continue;
    const uint32_t cta = r.timeline_ctas[rank].linear, warp = f.warp - r.timeline_ctas[rank].first_warp;
    uint64_t clock0 = UINT64_MAX;  // the CTA's first warp start, as the decoder counts cycles
    for (const model::MeasuredWarp& w : m.warps)
      if (w.cta == cta && w.finished) clock0 = std::min(clock0, w.clock_start);
    if (clock0 == UINT64_MAX || f.cycle < clock0) continue;  // a CTA that recorded nothing
    out.push_back({cta, warp, f.k_loop, f.first, f.count, f.passes, f.cycle - clock0, f.cycles});
  }
  return out;
}

}  // namespace

TimelineDoc model_timeline(const ModelTimelineRequest& request) {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(request.kernel_id);
  SimRequest req;
  req.kernel_id = info.id;
  req.shape = info.resolve(request.shape);
  req.params = request.params;
  req.mistakes = request.mistakes;
  req.cta = request.timeline.cta;
  req.inputs = InputMode::integer;
  req.only_traced_cta = request.timeline.ctas != TimelineCtas::wave && request.timeline.ctas != TimelineCtas::all;
  const ir::Kernel plain =
      kernels::build_kernel(info, {req.shape, request.mistakes, kernels::resolve_params(info, request.params)});
  req.timeline = timeline_options(plain, request.timeline);
  const SimReport r = run_sim(req);
  if (!r.result.completed)
    throw std::runtime_error(fmt::format("the model did not finish {} with the timeline: {}", info.id, r.result.error));
  const model::MeasuredTimeline measured = model::decode_timeline(r.kernel, *r.timeline, r.timeline_bytes);
  TimelineDoc doc = timeline_doc(r.kernel, measured, "model");
  doc.kernel_id = info.id;
  doc.shape = r.shape;
  doc.build_known = true;
  doc.params = r.params;
  doc.mistakes = r.mistakes;
  doc.skips = skips_of(r, measured);
  // The model's %globaltimer counts its machine's rated clock; its time here is the cycles at
  // the sustained clock of the card compared with, the one the app's "GPU vs model" uses.
  const ModelClock clock = model_clock(request.card, r.kernel.target);
  const double rated_ghz = model::timing::machine_for(r.kernel.target).clock_hz / 1e9;
  for (TimelineEvent& e : doc.events) e.ns *= rated_ghz / clock.ghz;
  for (TimelineWarp& w : doc.warps) w.ns *= rated_ghz / clock.ghz;
  doc.device = fmt::format("model of {}", model::timing::machine_for(r.kernel.target).article);
  doc.clock_ghz = clock.ghz;
  doc.clock = clock.text;
  doc.date = utc_timestamp_now();
  return doc;
}

ModelTimelineRequest model_request_like(const TimelineDoc& d) {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(d.kernel_id);
  ModelTimelineRequest m;
  m.kernel_id = d.kernel_id;
  m.shape = d.shape;
  if (d.build_known) {
    m.params = d.params;
    m.mistakes = d.mistakes;
  }
  m.card = d.device;
  const ir::Kernel k = kernels::build_kernel(info, {info.resolve(d.shape), m.mistakes, kernels::resolve_params(info, m.params)});
  const ir::LaunchShape& L = k.launch;
  if (d.layout.first_cta >= L.ctas())
    throw kernels::ConfigError(fmt::format("the recording's CTA {} is outside {}'s grid of {} CTAs at {}x{}x{}",
                                           d.layout.first_cta, d.kernel_id, L.ctas(), d.shape.m, d.shape.n, d.shape.k));
  m.timeline.ctas = TimelineCtas::traced;
  const uint32_t c = d.layout.first_cta;
  m.timeline.cta = {c % L.grid[0], (c / L.grid[0]) % L.grid[1], c / (L.grid[0] * L.grid[1])};
  m.timeline.capacity = std::max<uint32_t>(d.layout.capacity, 8192);
  return m;
}

}  // namespace gs::run
