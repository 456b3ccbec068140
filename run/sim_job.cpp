#include "run/sim_job.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "engine/model/decode.hpp"
#include "engine/model/timing.hpp"
#include "engine/ptx/emit.hpp"
#include "engine/ptx/registers.hpp"

namespace gs::run {

std::string format_cta(const std::array<uint32_t, 3>& cta) {
  return cta[2] == 0 ? fmt::format("({},{})", cta[0], cta[1]) : fmt::format("({},{},{})", cta[0], cta[1], cta[2]);
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Names each coordinate that is outside, and what it must be below.
void require_cta_in_grid(const std::array<uint32_t, 3>& cta, const ir::LaunchShape& launch) {
  const auto& g = launch.grid;
  std::string outside;
  for (int d = 0; d < 3; ++d)
    if (cta[d] >= g[d])
      outside += fmt::format("{}{}={} must be below {}", outside.empty() ? "" : ", ", "xyz"[d], cta[d], g[d]);
  if (!outside.empty())
    throw kernels::ConfigError(fmt::format("CTA {} is outside the grid ({},{},{}): {}{}", format_cta(cta), g[0], g[1],
                                           g[2], outside, g[2] == 1 && cta[2] > 0 ? " (the grid is flat: give X,Y)" : ""));
}

// An ld.shared narrower than 16 bytes a lane (one ptxas may fold into a wider load), or an
// ld.global (whose place in the SASS bounds how far up the model moves it, decode.cpp).
bool wants_sass(const ir::Kernel& k) {
  for (const ir::Inst& in : k.insts) {
    if (in.op == ir::Op::ld_shared && ir::type_bits(in.type) / 8 * std::max<uint32_t>(in.vec, 1) < 16) return true;
    if (in.op == ir::Op::ld_global) return true;
  }
  return false;
}

// Full-size buffers for A, B and C that only the traced CTA touches (host_memory.hpp).
std::shared_ptr<std::array<ReservedBytes, 3>> reserve_gemm(const kernels::KernelInfo& info, kernels::DType c_dtype,
                                                           kernels::GemmShape s) {
  const uint64_t es = dtype_bytes(info.ab_dtype);
  auto memory = std::make_shared<std::array<ReservedBytes, 3>>();
  (*memory)[0] = ReservedBytes(uint64_t(s.m) * s.k * es, "A");
  (*memory)[1] = ReservedBytes(uint64_t(s.k) * s.n * es, "B");
  (*memory)[2] = ReservedBytes(uint64_t(s.m) * s.n * dtype_bytes(c_dtype), "C");
  return memory;
}

// K the traced CTA never reads: [begin, end).
struct KRange {
  uint32_t begin = 0, end = 0;
};

// Each tile's rows of A and columns of B (but for K in `unread`), and the tile of C poisoned
// like a whole run's C.
void fill_tiles(const kernels::KernelInfo& info, const SimReport& r, const std::vector<kernels::CtaTile>& tiles,
                KRange unread, std::array<ReservedBytes, 3>& memory) {
  const InputValues values(r.shape, info.ab_dtype, r.inputs, r.seed);
  for (const kernels::CtaTile& tile : tiles) {
    const auto fill = [&](uint32_t k0, uint32_t k1) {
      if (k0 < k1)
        fill_tile_inputs(values, r.shape, info.ab_dtype, info.b_layout, tile, memory[0].span(), memory[1].span(), k0,
                         k1);
    };
    fill(0, unread.begin < unread.end ? unread.begin : r.shape.k);
    if (unread.begin < unread.end) fill(unread.end, r.shape.k);
    poison_tile(r.shape, r.c_dtype, tile, memory[2].span());
  }
}

// A traced CTA run alone whose A and B (or, without a cta_tile, C) are larger than this first runs on inputs never written
// (zero pages, which cost no memory) to learn what it reads: the tiles of C it writes (a
// kernel without a cta_tile: a persistent CTA walks tiles all over C), and the K blocks its
// fast-forwarded K loops skip (model/fast_forward.hpp). Then only those inputs are generated.
// Below it, the CTA's tile over all of K (A and B whole without a cta_tile) as before.
constexpr uint64_t kWholeInputsUpTo = 64ull << 20;

// The K the skipped passes of the probe's K loops would have read, less a margin of passes on
// each side for loops whose pass p reads a K block ahead of p (a prefetching ring).
KRange unread_k(const model::Trace& t, uint32_t k) {
  constexpr uint64_t kMarginPasses = 16;
  KRange r{0, k};
  bool any = false;
  for (const model::FastForward& f : t.fast_forwards) {
    if (!f.k_loop || f.passes == 0) continue;
    any = true;
    const uint64_t first = uint64_t(f.first) + kMarginPasses, last = uint64_t(f.first) + f.count;
    if (last < first + kMarginPasses) return {};
    r.begin = std::max<uint32_t>(r.begin, uint32_t((first * k + f.passes - 1) / f.passes));
    r.end = std::min<uint32_t>(r.end, uint32_t((last - kMarginPasses) * k / f.passes));
  }
  return any && r.begin < r.end ? r : KRange{};
}

// The tiles of C a run visited, as rectangles, each once.
std::vector<kernels::CtaTile> visited_tiles(const model::CSchedule& s, kernels::GemmShape shape) {
  std::vector<uint32_t> ids;
  for (const model::TileVisit& v : s.visits) ids.push_back(v.tile);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<kernels::CtaTile> tiles;
  for (uint32_t t : ids) {
    const uint32_t m0 = t / s.tiles_n * s.tile_rows, n0 = t % s.tiles_n * s.tile_cols;
    tiles.push_back({m0, std::min(shape.m, m0 + s.tile_rows), n0, std::min(shape.n, n0 + s.tile_cols)});
  }
  return tiles;
}

// JSON has no NaN or infinity: write null, which a reader cannot mistake for a small error.
nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json id_or_null(uint32_t v) { return v == ir::kNone ? nlohmann::json(nullptr) : nlohmann::json(v); }

// The PTX of the instructions that hazards name, for the JSON and the table.
std::string instruction_ptx(const ir::Kernel& kernel, const std::vector<std::string>& reg_names, uint32_t inst) {
  if (inst >= kernel.insts.size()) return {};
  try {
    return ptx::format_instruction(kernel, reg_names, kernel.insts[inst]);
  } catch (const std::exception&) {
    return std::string(kernel.insts[inst].info().spelling);
  }
}

// 1234567 -> "1,234,567".
std::string group_digits(uint64_t v) {
  const std::string digits = std::to_string(v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string result_line(const SimReport& r) {
  const Comparison& c = r.cmp;
  if (!r.judged) return "not judged: only the traced CTA ran, so C was not compared with the reference";
  if (c.correct)
    return r.inputs == InputMode::integer
               ? "correct (exact, integer inputs)"
               : fmt::format("correct (relative error {:.2e} <= {:.2g}, random inputs)", c.rel_err, c.tolerance);
  // Every element within its bound, but the whole is off: a small error spread everywhere.
  if (c.mismatches == 0) return "WRONG: " + c.first_mismatch;
  std::string line = fmt::format("WRONG: {} of {} elements differ", group_digits(c.mismatches), group_digits(c.elements));
  if (c.unwritten > 0) line += fmt::format(" ({} never written)", group_digits(c.unwritten));
  if (!c.first_mismatch.empty()) line += "; " + c.first_mismatch;
  if (r.inputs == InputMode::random && std::isfinite(c.rel_err))
    line += fmt::format("; relative error {:.2e} (bound {:.2g})", c.rel_err, c.tolerance);
  return line;
}

}  // namespace

std::vector<std::string> fast_forward_lines(const model::Trace& trace, const ir::Kernel& kernel) {
  // Per loop, in the order first skipped: its instances as the lowest warp that skipped it saw them.
  struct Loop {
    uint32_t label = 0;
    uint16_t warp = 0;
    std::vector<const model::FastForward*> skips;
  };
  std::vector<Loop> loops;
  for (const model::FastForward& f : trace.fast_forwards) {
    auto it = std::find_if(loops.begin(), loops.end(), [&](const Loop& l) { return l.label == f.label; });
    if (it == loops.end()) it = loops.insert(loops.end(), Loop{f.label, f.warp, {}});
    if (f.warp < it->warp) it->warp = f.warp, it->skips.clear();
    if (f.warp == it->warp) it->skips.push_back(&f);
  }
  std::vector<std::string> lines;
  for (const Loop& l : loops) {
    const model::FastForward& f = *l.skips.front();
    const bool same = std::all_of(l.skips.begin(), l.skips.end(), [&](const model::FastForward* o) {
      return o->first == f.first && o->count == f.count && o->passes == f.passes;
    });
    const std::string name = l.label < kernel.labels.size() ? kernel.labels[l.label].name : "?";
    lines.push_back(fmt::format("{} {}: {} {}..{} of {} fast-forwarded (run with their time, not traced or computed){}",
                                f.k_loop ? "K loop" : "loop", name, f.k_loop ? "iterations" : "passes", f.first + 1,
                                f.first + f.count, f.passes,
                                l.skips.size() > 1 ? fmt::format(", in {} instances{}", l.skips.size(),
                                                                 same ? "" : " (the first shown)")
                                                   : std::string()));
  }
  return lines;
}

SimRequest prediction_request(const std::string& kernel_id, kernels::GemmShape shape, const kernels::ParamValues& params,
                              const std::set<std::string>& mistakes, const model::timing::Machine* machine) {
  SimRequest r;
  r.kernel_id = kernel_id;
  r.shape = shape;
  r.params = params;
  r.mistakes = mistakes;
  r.only_traced_cta = true;  // the traced CTA, the grid predicted
  r.trace = true;            // the L1 and the store path: the prediction's memory side
  r.machine = machine;
  return r;
}

SimReport run_sim(const SimRequest& req) {
  const Clock::time_point t0 = Clock::now();
  const kernels::KernelInfo& info = kernels::kernel_or_throw(req.kernel_id);
  SimReport r;
  r.kernel_id = info.id;
  r.shape = info.resolve(req.shape);
  r.mistakes = req.mistakes;
  r.params = kernels::resolve_params(info, req.params);
  r.inputs = req.inputs;
  r.seed = req.seed;
  r.cta = req.cta;
  r.ab_dtype = info.ab_dtype;
  r.c_dtype = kernels::c_dtype_of(info, r.params);
  r.kernel = kernels::build_kernel(info, {r.shape, r.mistakes, r.params});
  require_cta_in_grid(r.cta, r.kernel.launch);

  // One CTA: only what it reads is made, so opening takes the same time and memory at any M
  // and N. The whole grid: every input, once the machine is known to hold them.
  GemmData data;
  model::GemmMemory memory;
  std::shared_ptr<std::array<ReservedBytes, 3>> reserved;
  if (req.only_traced_cta) {
    reserved = reserve_gemm(info, r.c_dtype, r.shape);
    memory = {(*reserved)[0].span(), (*reserved)[1].span(), (*reserved)[2].span()};
  } else {
    require_whole_grid_fits(info, r.shape);
    data = make_gemm_data(info, r.c_dtype, r.shape, r.inputs, r.seed);
    r.buffers.a = std::move(data.a_bytes);
    r.buffers.b = std::move(data.b_bytes);
    r.buffers.c = poisoned_output(r.shape, r.c_dtype);
    memory = {r.buffers.a, r.buffers.b, r.buffers.c};
  }

  model::SimOptions opts;
  opts.traced_cta = r.cta;
  opts.trace = req.trace;
  opts.progress = req.progress;
  opts.cancel = req.cancel;
  opts.only_traced_cta = req.only_traced_cta;
  opts.threads = req.threads;
  opts.fast_forward = req.fast_forward;
  opts.machine = req.machine;
  const CycleBudget budget = cycle_budget(kernels::tile_of(info, r.params), r.shape, r.kernel.launch);
  opts.max_cycles_per_cta = budget.cycles;
  opts.max_cycles_basis = budget.basis;
  // The register file can only lower an occupancy above one CTA per SM: only then is ptxas
  // asked (once per kernel text and process).
  // So can ptxas's folding of narrow shared loads (model/decode.hpp, shared_load_folds) and its
  // order of a kernel's loads (set_hoists): only a kernel with an ld.shared narrower than 16
  // bytes or an ld.global asks for the SASS counts and order.
  const model::timing::MachineDesc& sm = *(req.machine ? req.machine : &model::timing::machine_for(r.kernel.target))->desc;
  const bool want_registers =
      model::timing::ctas_per_sm(sm, uint32_t(r.kernel.launch.threads()), r.kernel.smem_bytes(), 0) > 1;
  const bool want_sass = wants_sass(r.kernel);
  if (want_registers || want_sass) {
    const ptx::CompiledKernel compiled = ptx::compiled_kernel(r.kernel);
    if (want_registers) {
      r.registers = compiled.registers.registers;
      r.registers_source = compiled.registers.source;
    }
    if (want_sass) {
      opts.sass_per_inst = compiled.sass_per_inst;
      opts.sass_first = compiled.sass_first;
      r.sass_source = compiled.sass_source;
      for (const model::SharedLoadFold& f : model::shared_load_folds(r.kernel, compiled.sass_per_inst)) {
        r.shared_loads_folded += f.leader != ir::kNone;
        r.shared_load_leaders += f.members > 0;
      }
    }
  }
  if (!want_registers) r.registers_source = "not needed: threads or shared memory allow one CTA per SM";
  opts.registers_per_thread = r.registers;
  const double flops = 2.0 * double(r.shape.m) * double(r.shape.n) * double(r.shape.k);
  if (reserved) {
    const uint64_t ab_bytes = (*reserved)[0].size() + (*reserved)[1].size();
    std::vector<kernels::CtaTile> tiles;
    KRange unread;
    // Without a cta_tile the CTA's tile is all of C, whose poisoning alone would touch M·N
    // elements (16 GiB at 65536x65536x128, where A and B are small): probe for that too.
    const bool whole_c_large = !info.cta_tile && (*reserved)[2].size() > kWholeInputsUpTo;
    if ((ab_bytes > kWholeInputsUpTo || whole_c_large) && (info.cta_tile || r.kernel.output.declared())) {
      model::SimOptions probe = opts;
      probe.record_registers = false;
      probe.progress = {};
      const model::SimResult seen = model::simulate(r.kernel, memory, probe);
      if (info.cta_tile) tiles.push_back(*kernels::cta_tile_of(info, r.params, r.shape, r.cta));
      else tiles = visited_tiles(seen.schedule, r.shape);
      unread = unread_k(seen.trace, r.shape.k);
    } else {
      tiles.push_back(kernels::cta_tile_of(info, r.params, r.shape, r.cta).value_or(kernels::CtaTile{0, r.shape.m, 0, r.shape.n}));
    }
    fill_tiles(info, r, tiles, unread, *reserved);
    r.traced_memory = reserved;
  }
  const Clock::time_point model_start = Clock::now();
  if (req.timeline) {
    ir::InstrumentedKernel t;
    try {
      t = ir::instrument_timeline(r.kernel, *req.timeline);
    } catch (const std::invalid_argument& e) {
      throw kernels::ConfigError(e.what());
    }
    r.timeline = t.layout;
    r.timeline_bytes.assign(t.layout.buffer_bytes(), 0);
    memory.timeline = r.timeline_bytes;
    // Traced without registers only for the fast-forward records: a view of the records draws
    // the skipped passes as skipped. The rest of the trace names the instrumented kernel's
    // instructions, not r.kernel's, and is dropped.
    opts.trace = req.trace && req.only_traced_cta && req.fast_forward;
    opts.record_registers = false;
    r.result = model::simulate(t.kernel, memory, opts, flops);
    r.timeline_skips.assign(r.result.trace.fast_forwards.begin(), r.result.trace.fast_forwards.end());
    r.timeline_ctas = r.result.trace.ctas;
    r.result.trace = {};
  } else {
    r.result = model::simulate(r.kernel, memory, opts, flops);
  }
  r.seconds = r.result.stats.wall_seconds > 0.0 ? r.result.stats.wall_seconds : seconds_since(model_start);

  r.judged = !req.only_traced_cta && !r.result.cancelled;  // a cancelled run's C is not worth a reference
  if (r.judged) {
    r.reference = reference_gemm(data);
    r.cmp = compare_output(r.buffers.c, r.c_dtype, r.reference, r.shape, r.inputs, info.ab_dtype);
  }
  r.total_seconds = seconds_since(t0);
  return r;
}

std::span<const uint8_t> SimReport::c_bytes() const {
  if (traced_memory) return (*traced_memory)[2].span();
  return buffers.c;
}

uint64_t whole_grid_bytes(const kernels::KernelInfo& info, kernels::GemmShape s) {
  const uint64_t mk = uint64_t(s.m) * s.k, kn = uint64_t(s.k) * s.n, mn = uint64_t(s.m) * s.n;
  return (mk + kn) * (sizeof(float) + dtype_bytes(info.ab_dtype)) + mn * (dtype_bytes(info.c_dtype) + sizeof(double));
}

void require_whole_grid_fits(const kernels::KernelInfo& info, kernels::GemmShape s) {
  const uint64_t need = whole_grid_bytes(info, s), have = available_memory_bytes();
  if (need > have)
    throw kernels::ConfigError(fmt::format(
        "a whole-grid run of {} at M={} N={} K={} needs about {} (A and B as values and as device bytes, C and its "
        "double-precision reference), more than the {} this machine has free: choose a smaller shape, or trace one "
        "CTA at this shape (`gemmscope gui --kernel {}` opens it in a fraction of the memory)",
        info.id, s.m, s.n, s.k, bytes_text(need), bytes_text(have), info.id));
}

// A correct CTA spends at most a few dependent global-memory round trips per element of K for
// each tile of C it computes: simt_naive, in order and latency-bound, takes about two
// (a load of A and one of B, timing::kGlobalLatency each), the TMA kernels far fewer. Eight
// per element of K and tile, on top of the model's own default, is far above any correct run
// and still stops an endless loop after a bounded time.
CycleBudget cycle_budget(const kernels::GemmShape& tile, kernels::GemmShape s, const ir::LaunchShape& launch) {
  constexpr uint64_t kRoundTripsPerK = 8;
  const auto blocks = [](uint64_t n, uint64_t tile) { return tile == 0 ? 1 : (n + tile - 1) / tile; };
  const uint64_t tiles = blocks(s.m, tile.m) * blocks(s.n, tile.n);
  const uint64_t tiles_per_cta = std::max<uint64_t>(1, blocks(tiles, std::max<uint64_t>(1, launch.ctas())));
  const uint64_t floor = model::SimOptions{}.max_cycles_per_cta;
  CycleBudget b;
  b.cycles = floor + tiles_per_cta * uint64_t(s.k) * kRoundTripsPerK * model::timing::kGlobalLatency;
  b.basis = fmt::format("the budget for K={}{}: {} global-memory round trips of {} cycles per element of K, plus {}",
                        s.k, tiles_per_cta > 1 ? fmt::format(" and {} tiles per CTA", tiles_per_cta) : "",
                        kRoundTripsPerK, model::timing::kGlobalLatency, floor);
  return b;
}

namespace {

// The prediction's parts (timing.hpp, Breakdown): cycles per wave of each limit, the bound, and
// the bytes each level served.
nlohmann::json prediction_json(const SimReport& r) {
  const model::SimStats& s = r.result.stats;
  const model::timing::Prediction& p = s.prediction;
  if (p.waves == 0) return nullptr;
  nlohmann::json parts = nlohmann::json::object();
  for (const model::timing::PartRow& row : model::timing::breakdown_rows(p.parts)) parts[row.name] = row.cycles;
  return {{"bound", p.parts.bound},
          {"waves", p.waves},
          {"ctas_per_sm", p.resident},
          {"wave_ctas", p.wave_ctas},
          {"cluster_basis", p.cluster_basis},
          {"cluster_coupling", p.cluster_coupling},
          {"coupling_basis", p.coupling_basis},
          {"occupancy",
           {{"ctas_per_sm", p.ctas_per_sm},
            {"bound", p.occupancy_bound},
            {"registers", r.registers},
            {"registers_source", r.registers_source}}},
          {"shared_load_folds",
           {{"folded", r.shared_loads_folded}, {"into", r.shared_load_leaders}, {"source", r.sass_source}}},
          {"cycles_per_wave", p.cycles_per_wave},
          {"clock_mhz", p.clock_hz / 1e6},
          {"clock_basis", p.clock_basis},
          {"hbm_share_of_panels", p.hbm_share_of_panels},
          {"load_basis", p.load_basis},
          {"drift",
           {{"k_period", p.drift.k_period},
            {"lead", p.drift.lead},
            {"late_share", p.drift.late_share},
            {"free_share", p.drift.free_share},
            {"blur", p.drift.blur},
            {"share", p.drift.share},
            {"count_bytes", p.drift.count_bytes},
            {"stream_bytes", p.drift.stream_bytes},
            {"extra_bytes", p.drift.extra_bytes},
            {"basis", p.drift_basis}}},
          {"parts", parts},
          {"bytes_per_wave",
           {{"l2", p.parts.l2_bytes_per_wave}, {"hbm", p.parts.hbm_bytes_per_wave}, {"stores", p.parts.store_bytes_per_wave}}},
          {"wave_quantization", p.parts.wave_quantization},
          {"last_wave", {{"cycles", p.last_wave_cycles}, {"ctas", p.last_wave_ctas},
                         {"busiest_sm_ctas", p.last_wave_busiest_ctas}}},
          {"launch_us", p.launch_seconds * 1e6},
          {"launch_basis", p.launch_basis}};
}

std::string megabytes(double bytes) { return fmt::format("{:.1f} MB", bytes / 1e6); }

// How a second, partial wave's CTAs lie on the SMs, where several CTAs an SM leave room for an
// uneven spread (Prediction::last_wave_busiest_ctas); empty otherwise.
std::string last_wave_spread(const model::timing::Prediction& p, uint32_t sms) {
  if (!p.last_wave_uneven || sms == 0) return {};
  return fmt::format("; its {} CTAs take the slots the first wave's free, so its busiest SM runs about {:.1f} of them "
                     "where an even spread gives {}",
                     group_digits(p.last_wave_ctas), p.last_wave_busiest_ctas, (p.last_wave_ctas + sms - 1) / sms);
}

// The table's lines under "predicted": what bounds each wave and every part's share of it.
std::string prediction_lines(const SimReport& r) {
  const model::SimStats& s = r.result.stats;
  const model::timing::Prediction& p = s.prediction;
  if (p.waves == 0 || p.cycles_per_wave <= 0) return {};
  std::string out = fmt::format("  bound by {}: {} wave{} of {} SMs x {} CTA{}, {} cycles per wave at {:.0f} MHz\n",
                                p.parts.bound, p.waves, p.waves == 1 ? "" : "s", s.predicted_on->sms, p.resident,
                                p.resident == 1 ? "" : "s", group_digits(uint64_t(p.cycles_per_wave)), p.clock_hz / 1e6);
  if (!p.cluster_basis.empty()) out += fmt::format("  waves of {} CTAs: {}\n", p.wave_ctas, p.cluster_basis);
  if (!p.coupling_basis.empty()) out += fmt::format("  clusters: {}\n", p.coupling_basis);
  if (!p.clock_basis.empty()) out += fmt::format("  clock: {}\n", p.clock_basis);
  if (!p.load_basis.empty()) out += fmt::format("  loads: {}\n", p.load_basis);
  if (!p.drift_basis.empty()) out += fmt::format("  drift: {}\n", p.drift_basis);
  out += fmt::format("  occupancy: up to {} CTA{} per SM, bound by {}; registers: {}\n", p.ctas_per_sm,
                     p.ctas_per_sm == 1 ? "" : "s", p.occupancy_bound,
                     r.registers > 0 ? fmt::format("{} per thread ({})", r.registers, r.registers_source)
                                     : r.registers_source);
  if (r.shared_loads_folded > 0)
    out += fmt::format("  shared loads: ptxas folds {} ld.shared into {} wider loads, charged as those ({})\n",
                       r.shared_loads_folded, r.shared_load_leaders, r.sass_source);
  // A unit the kernel does not use (no cp.async: no tag stage) is left out of the text, not of the JSON.
  for (const model::timing::PartRow& row : model::timing::breakdown_rows(p.parts))
    if (row.cycles > 0)
      out += fmt::format("    {:<14} {:>14} cycles {:>5.0f}%  {}\n", row.name, group_digits(uint64_t(row.cycles)),
                         100.0 * row.cycles / p.cycles_per_wave, row.meaning);
  out += fmt::format("  bytes per wave: {} through L2, {} from HBM, {} of C stored; the last, partial wave costs "
                     "{:.0f}% of the time ({} cycles against a full wave's {}){}\n",
                     megabytes(p.parts.l2_bytes_per_wave), megabytes(p.parts.hbm_bytes_per_wave),
                     megabytes(p.parts.store_bytes_per_wave), 100.0 * p.parts.wave_quantization,
                     group_digits(uint64_t(p.last_wave_cycles)), group_digits(uint64_t(p.cycles_per_wave)),
                     last_wave_spread(p, s.predicted_on->sms));
  const double total = p.seconds > 0 ? p.seconds : 1.0;
  out += fmt::format("  launch: {:.1f} us ({:.0f}% of the time): {}\n", p.launch_seconds * 1e6,
                     100.0 * p.launch_seconds / total, p.launch_basis);
  return out;
}

}  // namespace

nlohmann::json sim_report_json(const SimReport& r) {
  using nlohmann::json;
  const model::SimStats& s = r.result.stats;
  const std::vector<std::string> reg_names = ptx::register_names(r.kernel);
  json hazards = json::array();
  for (const model::Hazard& h : r.result.hazards)
    hazards.push_back({{"kind", model::hazard_kind_name(h.kind)},
                       {"inst", id_or_null(h.inst)},
                       {"warp", id_or_null(h.warp)},
                       {"lane", id_or_null(h.lane)},
                       {"address", h.address},
                       {"cycle", h.cycle},
                       {"detail", h.detail},
                       {"ptx", instruction_ptx(r.kernel, reg_names, h.inst)}});
  const auto& g = r.kernel.launch.grid;
  return {
      {"kernel", r.kernel_id},
      {"shape", {{"m", r.shape.m}, {"n", r.shape.n}, {"k", r.shape.k}}},
      {"mistakes", r.mistakes},
      {"params", r.params},
      {"inputs", std::string(input_mode_name(r.inputs))},
      {"seed", r.seed},
      {"cta", r.cta},
      {"grid", g},
      {"judged", r.judged},
      {"correct", r.judged ? json(r.cmp.correct) : json(nullptr)},
      {"completed", r.result.completed},
      {"cancelled", r.result.cancelled},
      {"error", r.result.error.empty() ? json(nullptr) : json(r.result.error)},
      {"ok", r.ok()},
      {"max_abs_err", finite_or_null(r.cmp.max_abs_err)},
      {"rel_err", finite_or_null(r.cmp.rel_err)},
      {"mismatches", r.cmp.mismatches},
      {"unwritten", r.cmp.unwritten},
      {"first_mismatch", r.cmp.first_mismatch.empty() ? json(nullptr) : json(r.cmp.first_mismatch)},
      {"ctas", s.ctas},
      {"warp_instructions", s.warp_instructions},
      {"smem",
       {{"accesses", s.smem_accesses},
        {"wavefronts", s.smem_wavefronts},
        {"ideal_wavefronts", s.smem_ideal_wavefronts},
        {"bank_conflicts", s.smem_bank_conflicts}}},
      // The tensor cores' reads through wgmma descriptors (model tensor_reads.cpp), apart from
      // the warps' own ld/st.shared above.
      {"tensor_smem",
       {{"reads", s.tensor_smem_reads},
        {"wavefronts", s.tensor_smem_wavefronts},
        {"bank_conflicts", s.tensor_smem_bank_conflicts}}},
      {"tma", {{"transfers", s.tma_transfers}, {"bytes", s.tma_bytes}}},
      {"mma_ops", s.mma_ops},
      {"hazards", hazards},
      {"cycles", s.traced_cta_cycles},
      {"predicted_tflops", finite_or_null(s.predicted_tflops)},
      {"predicted_on", s.predicted_on->name},
      {"predicted_seconds", finite_or_null(s.predicted_seconds)},
      {"prediction", prediction_json(r)},
      {"seconds", r.seconds},
      {"fast_forwarded", fast_forward_lines(r.result.trace, r.kernel)},
  };
}

std::string sim_report_table(const SimReport& r) {
  const model::SimStats& s = r.result.stats;
  const kernels::KernelInfo* info = kernels::find_kernel(r.kernel_id);
  std::string out;
  auto row = [&out](std::string_view label, const std::string& value) {
    out += fmt::format("{:<19} {}\n", label, value);
  };
  row("kernel", info ? fmt::format("{} (step {:02}, {})", r.kernel_id, info->step, ir::arch_name(info->arch))
                     : r.kernel_id);
  const auto& g = r.kernel.launch.grid;
  row("shape", fmt::format("M={} N={} K={}  (grid {}x{}x{}, {} threads per CTA)", r.shape.m, r.shape.n, r.shape.k, g[0],
                           g[1], g[2], r.kernel.launch.threads()));
  std::string mistakes;
  for (const std::string& m : r.mistakes) mistakes += (mistakes.empty() ? "" : ", ") + m;
  row("mistakes", mistakes.empty() ? "none" : mistakes);
  if (!r.params.empty()) row("parameters", kernels::params_text(r.params));
  row("inputs", fmt::format("{} (seed {}), {} A and B, {} C", r.inputs == InputMode::integer ? "integers in [-4, 4]" : "random in [-1, 1)",
                            r.seed, kernels::dtype_name(r.ab_dtype), kernels::dtype_name(r.c_dtype)));
  row("result", result_line(r));
  if (!r.result.completed)
    row("completed", r.result.cancelled       ? std::string("no: cancelled")
                     : r.result.error.empty() ? std::string("no")
                                              : "no: " + r.result.error);
  row("warp instructions", fmt::format("{} (whole grid, {} CTAs)", group_digits(s.warp_instructions), group_digits(s.ctas)));
  row("shared memory", fmt::format("{} ld/st.shared accesses, {} wavefronts (ideal {}), {} bank conflicts",
                                   group_digits(s.smem_accesses), group_digits(s.smem_wavefronts),
                                   group_digits(s.smem_ideal_wavefronts), group_digits(s.smem_bank_conflicts)));
  if (s.tensor_smem_reads > 0)
    row("tensor-core reads", fmt::format("{} reads of 32 core-matrix rows through wgmma descriptors, {} wavefronts, {} bank "
                                         "conflicts",
                                         group_digits(s.tensor_smem_reads), group_digits(s.tensor_smem_wavefronts),
                                         group_digits(s.tensor_smem_bank_conflicts)));
  row("TMA", fmt::format("{} transfers, {} bytes", group_digits(s.tma_transfers), group_digits(s.tma_bytes)));
  row("MMA", fmt::format("{} instructions", group_digits(s.mma_ops)));
  row("cycles", fmt::format("{} (modeled, traced CTA {})", group_digits(s.traced_cta_cycles), format_cta(r.cta)));
  row("predicted", std::isfinite(s.predicted_tflops) && s.predicted_tflops > 0.0
                       ? fmt::format("{:.2f} TFLOP/s on {} ({:.3g} s, modeled{})", s.predicted_tflops,
                                     s.predicted_on->article, s.predicted_seconds,
                                     s.predicted_on->confirmed ? "" : "; its SM count and clock are NVIDIA's figures, unconfirmed")
                       : std::string("n/a"));
  for (const std::string& line : fast_forward_lines(r.result.trace, r.kernel)) row("fast-forwarded", line);
  out += prediction_lines(r);
  row("model time", fmt::format("{:.3f} s (whole job {:.3f} s)", r.seconds, r.total_seconds));
  if (r.result.hazards.empty()) {
    row("hazards", "none");
  } else {
    row("hazards", fmt::format("{}", r.result.hazards.size()));
    const std::vector<std::string> reg_names = ptx::register_names(r.kernel);
    for (const model::Hazard& h : r.result.hazards) {
      std::string where;
      if (h.inst != ir::kNone) where += fmt::format(" at instruction {}", h.inst);
      if (h.warp != ir::kNone) where += fmt::format(" (warp {})", h.warp);
      out += fmt::format("  {}{}: {}\n", model::hazard_kind_name(h.kind), where, h.detail);
      const std::string text = instruction_ptx(r.kernel, reg_names, h.inst);
      if (!text.empty()) out += fmt::format("      {}\n", text);
    }
  }
  return out;
}

}  // namespace gs::run
