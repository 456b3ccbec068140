// simulate(): binds the GEMM's buffers to the kernel's parameters, runs every CTA of the
// grid (the chosen one traced, with the rest of its cluster; the others fast), and predicts
// the whole GEMM's time.
#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "engine/ir/verify.hpp"
#include "engine/layout/tma_box.hpp"
#include "engine/model/machine.hpp"

namespace gs::model {

namespace {

int buffer_index(ir::ParamRole r) {
  switch (r) {
    case ir::ParamRole::a: return 0;
    case ir::ParamRole::b: return 1;
    case ir::ParamRole::c: return 2;
    default: return -1;
  }
}

std::vector<uint64_t> bind_params(const ir::Kernel& k, const GemmMemory& mem) {
  std::vector<uint64_t> values;
  const std::array<const std::span<uint8_t>*, 3> b{&mem.a, &mem.b, &mem.c};
  for (size_t i = 0; i < k.params.size(); ++i) {
    const ir::Param& p = k.params[i];
    switch (p.kind) {
      case ir::ParamKind::global_ptr: {
        const int bi = buffer_index(p.role);
        if (bi < 0)
          throw ModelError(fmt::format("parameter '{}' is a global pointer with role '{}': the model binds only A, B "
                                       "and C buffers",
                                       p.name, ir::param_role_name(p.role)));
        values.push_back(kGlobalBase[bi]);
        break;
      }
      case ir::ParamKind::tensor_map: {
        const ir::TensorMapDesc& d = p.tensor_map;
        const int bi = buffer_index(d.source);
        if (bi < 0) throw ModelError(fmt::format("tensor map '{}' has no source buffer (A, B or C)", p.name));
        // The map must describe memory inside its buffer (cuTensorMapEncodeTiled trusts the
        // caller; the model refuses to read outside the host buffer).
        uint64_t last = 0;
        for (uint32_t dim = 0; dim < d.rank; ++dim)
          last += (d.global_dim[dim] - 1) * (dim == 0 ? ir::tensor_dtype_bytes(d.dtype) : d.global_strides_bytes[dim - 1]);
        last += ir::tensor_dtype_bytes(d.dtype);
        if (last > b[bi]->size())
          throw ModelError(fmt::format("tensor map '{}' spans {} bytes but buffer {} holds {}", p.name, last,
                                       ir::param_role_name(d.source), b[bi]->size()));
        values.push_back(kParamBase + kParamStride * i);
        break;
      }
      default:
        throw ModelError(fmt::format("parameter '{}' ({}) has no value in a GEMM launch", p.name,
                                     ir::param_role_name(p.role)));
    }
  }
  return values;
}

void reset_cta(Cta& c, const ir::Kernel& k) {
  const uint32_t threads = k.launch.threads();
  const uint32_t nwarps = (threads + 31) / 32;
  c.nregs = uint32_t(k.regs.size());
  c.warps.assign(nwarps, Warp{});
  for (uint32_t w = 0; w < nwarps; ++w) {
    c.warps[w].id = w;
    const uint32_t lanes = std::min<uint32_t>(32, threads - 32 * w);
    c.warps[w].present = lanes == 32 ? kAllLanes : ((1u << lanes) - 1);
    c.warps[w].uniform = true;
    c.warps[w].upc = 0;
  }
  const uint32_t entry_regs = entry_register_limit(k);
  for (Warp& w : c.warps) w.reg_limit = entry_regs;
  c.register_pool = registers_held(c);
  for (auto& keys : c.ready_key) keys.fill(Cta::kNotReady);
  c.pick.fill(Cta::kNoPick);
  c.stale_picks = 0xF;
  c.avx2 = cpu_has_avx2();
  for (uint32_t w = 0; w < nwarps; ++w) c.push_ready(w, 0);
  c.regs.assign(size_t(nwarps) * c.nregs * 32, 0);
  c.written.assign(size_t(nwarps) * c.nregs, 0);
  c.wgmma_acc.assign(size_t(nwarps) * c.nregs, 0);
  c.reg_pending.assign(size_t(nwarps) * c.nregs, 0);
  for (Warp& w : c.warps) {
    w.regs = c.regs.data() + size_t(w.id) * c.nregs * 32;
    w.written = c.written.data() + size_t(w.id) * c.nregs;
  }
  c.smem.assign(k.smem_bytes(), 0);
  c.smem_word_state.assign((k.smem_bytes() + 3) / 4, SmemWord{});
  c.barrier_epoch = 0;
  c.mbars.clear();
  c.tma_jobs.clear();
  c.tma_pending.clear();
  c.tmem.cells.clear();  // keeps its capacity: the next CTA's alloc zeroes it again
  c.tmem.allocations.clear();
  c.tmem.pending.fill(0);
  c.tmem.alloc_warp = kNone;
  c.tmem.relinquished = false;
  c.tmem_mmas.clear();
  c.tmem_commits.clear();
  c.bar_arrived.fill(0);
  c.bar_expected.fill(0);
  c.scheduler_free.fill(0);
  c.tensor_free = c.copy_free = c.smem_pipe_free = c.now = 0;
  c.cost = {};
  c.last_tile = kNone;
  c.tiles_visited = 0;
  c.failed = false;
  c.failure.clear();
  c.blocked = c.started = false;
  c.issued = 0;
}

// Whether CTA c (its ctaid and cluster rank set) is traced, and if so where its trace goes:
// the CTA the options name and, with clusters, every CTA of its cluster (`in_traced_cluster`).
void set_traced(Cta& c, const SimOptions& opt, bool in_traced_cluster, SimResult& result) {
  const bool traced = opt.trace && in_traced_cluster;
  c.launch.traced = traced;
  c.launch.record_registers = traced && opt.record_registers;
  c.trace = traced ? &result.trace : nullptr;
  if (!traced) return;
  Trace& t = result.trace;
  const uint32_t warps = uint32_t(c.warps.size());
  c.launch.trace_warp_base = c.launch.cluster_rank * warps;
  if (c.launch.ctaid == opt.traced_cta) t.traced_cta = c.launch.cta_linear;
  t.warps_per_cta = warps;
  t.ctas.push_back({c.launch.ctaid, c.launch.cta_linear, c.launch.cluster_rank, c.launch.trace_warp_base});
  t.warps = warps * uint32_t(t.ctas.size());
}

// Runs the CTAs of one cluster together until all finish: each runs until every live warp of
// it waits (Cta::blocked), then the next, round after round; a remote arrive, a store into a
// peer's shared memory or barrier.cluster lets a blocked peer go on in the next round. A
// round in which no CTA issued or completed anything is a deadlock of the cluster. Timing is
// approximate: a CTA runs ahead in modeled time until it blocks, and a peer's release wakes
// its warps no earlier than their own clock.
void run_cluster(Cluster& cl, const SimOptions& opt) {
  std::vector<uint8_t> done(cl.ctas.size(), 0);
  for (;;) {
    bool progress = false, all_done = true;
    for (size_t r = 0; r < cl.ctas.size(); ++r) {
      if (done[r]) continue;
      Cta& c = *cl.ctas[r];
      const uint64_t before = c.issued;
      const bool moved = !c.started || !c.tma_pending.empty();
      run_cta(c, opt);
      if (c.failed) return;
      done[r] = !c.blocked;
      all_done = all_done && done[r];
      progress = progress || done[r] || moved || c.issued != before;
    }
    if (all_done) return;
    uint64_t now = 0;
    for (const Cta* c : cl.ctas) now = std::max(now, c->now);
    // Warps that exited count as arrived at barrier.cluster: the last exit may release it.
    if (!progress && !cluster_barrier_check(cl, now)) {
      for (size_t r = 0; r < cl.ctas.size(); ++r)
        if (!done[r]) report_deadlock(*cl.ctas[r]);
      return;
    }
  }
}

// The grid of a kernel with clusters of several CTAs: one cluster after another, the CTAs of
// each run together (run_cluster). `proto` holds what every CTA shares (launch, program).
void simulate_clusters(const ir::Kernel& k, const Cta& proto, const SimOptions& opt, SimResult& result,
                       timing::CtaCost& traced_cost) {
  const ir::LaunchShape& L = k.launch;
  const std::array<uint32_t, 3> cdim = L.cluster;
  const uint32_t size = cdim[0] * cdim[1] * cdim[2];
  std::vector<Cta> ctas(size);
  Cluster cl;
  for (Cta& c : ctas) cl.ctas.push_back(&c);
  const uint64_t total = L.ctas();
  uint64_t done = 0;
  for (uint32_t cz = 0; cz < L.grid[2] / cdim[2]; ++cz)
    for (uint32_t cy = 0; cy < L.grid[1] / cdim[1]; ++cy)
      for (uint32_t cx = 0; cx < L.grid[0] / cdim[0]; ++cx) {
        if (opt.cancel && opt.cancel->load()) {
          result.completed = false;
          result.cancelled = true;
          result.error = "cancelled";
          return;
        }
        const std::array<uint32_t, 3> cid{cx, cy, cz};
        bool holds_traced = true;
        for (int d = 0; d < 3; ++d) holds_traced = holds_traced && opt.traced_cta[d] / cdim[d] == cid[d];
        if (opt.only_traced_cta && !holds_traced) continue;
        cl.barrier_phase = 0;
        for (uint32_t r = 0; r < size; ++r) {
          Cta& c = ctas[r];
          c.launch = proto.launch;
          c.stats = proto.stats;
          c.schedule = proto.schedule;
          c.hazards = proto.hazards;
          c.program = proto.program;
          reset_cta(c, k);
          // %cluster_ctarank = x + cx * (y + cy * z) over the CTA's position in its cluster.
          const std::array<uint32_t, 3> local{r % cdim[0], r / cdim[0] % cdim[1], r / (cdim[0] * cdim[1])};
          for (int d = 0; d < 3; ++d) c.launch.ctaid[d] = cid[d] * cdim[d] + local[d];
          const auto& id = c.launch.ctaid;
          c.launch.cta_linear = uint32_t(id[0] + L.grid[0] * (id[1] + L.grid[1] * id[2]));
          c.launch.cluster = &cl;
          c.launch.cluster_rank = r;
          set_traced(c, opt, holds_traced, result);
        }
        run_cluster(cl, opt);
        for (const Cta& c : ctas) {
          result.stats.ctas++;
          result.stats.max_cta_cycles = std::max(result.stats.max_cta_cycles, c.cost.cycles);
          if (c.launch.ctaid == opt.traced_cta) {
            traced_cost = c.cost;
            result.stats.traced_cta_cycles = c.cost.cycles;
          }
          if (c.failed && result.completed) {
            result.completed = false;
            result.error = fmt::format("CTA ({},{},{}): {}", c.launch.ctaid[0], c.launch.ctaid[1], c.launch.ctaid[2],
                                       c.failure);
          }
        }
        if (!result.completed) return;
        done += size;
        if (opt.progress) opt.progress(done, opt.only_traced_cta ? size : total);
      }
}

// The GEMM's tiling, K and tile order for the prediction's HBM bytes (timing.hpp, GemmFacts):
// the tile order is the whole grid's schedule when every CTA ran (a persistent kernel's walk),
// else left to row-major.
timing::GemmFacts gemm_facts(const ir::Kernel& k, const SimResult& result, double flops) {
  timing::GemmFacts g;
  const ir::OutputTiling& o = k.output;
  if (!o.declared()) return g;
  g.tiles_m = o.tiles_m();
  g.tiles_n = o.tiles_n();
  g.tile_rows = o.tile_rows;
  g.tile_cols = o.tile_cols;
  g.m = o.rows;
  g.n = o.cols;
  g.k = g.m && g.n ? uint64_t(flops / (2.0 * double(g.m) * double(g.n)) + 0.5) : 0;
  const std::vector<TileVisit>& v = result.schedule.visits;
  if (v.size() >= uint64_t(g.tiles_m) * g.tiles_n) {
    std::vector<TileVisit> by_time = v;
    std::stable_sort(by_time.begin(), by_time.end(), [](const TileVisit& a, const TileVisit& b) {
      return a.order != b.order ? a.order < b.order : a.cta < b.cta;
    });
    for (const TileVisit& t : by_time) g.tile_order.push_back(t.tile);
  }
  return g;
}

}  // namespace

SimResult simulate(const ir::Kernel& k, GemmBuffers& bufs, const SimOptions& opt, double flops) {
  return simulate(k, GemmMemory{bufs.a, bufs.b, bufs.c}, opt, flops);
}

SimResult simulate(const ir::Kernel& k, const GemmMemory& memory, const SimOptions& opt, double flops) {
  const auto t0 = std::chrono::steady_clock::now();
  ir::verify(k);
  SimResult result;
  GemmMemory spans = memory;
  GlobalMemory global;
  global.buffers = {&spans.a, &spans.b, &spans.c};

  Cta cta;
  cta.launch.kernel = &k;
  cta.launch.global = &global;
  cta.launch.param_values = bind_params(k, spans);
  cta.stats = &result.stats;
  cta.schedule = &result.schedule;
  if (k.output.declared())
    result.schedule = {k.output.tiles_m(), k.output.tiles_n(), k.output.tile_rows, k.output.tile_cols, {}};
  cta.hazards = &result.hazards;
  const Program program = decode_program(k);  // once for the whole grid
  cta.program = &program;
  Cluster solo{{&cta}};  // clusters of one CTA: barrier.cluster and mapa to rank 0 still work
  cta.launch.cluster = &solo;

  const ir::LaunchShape& L = k.launch;
  for (int d = 0; d < 3; ++d)
    if (opt.traced_cta[d] >= L.grid[d])
      throw ModelError(fmt::format("CTA ({},{},{}) is outside the grid ({},{},{})", opt.traced_cta[0],
                                   opt.traced_cta[1], opt.traced_cta[2], L.grid[0], L.grid[1], L.grid[2]));
  const uint64_t total = L.ctas();
  timing::CtaCost traced_cost;
  uint64_t done = 0;
  const uint32_t cluster_size = L.cluster[0] * L.cluster[1] * L.cluster[2];
  if (cluster_size > 1) {
    simulate_clusters(k, cta, opt, result, traced_cost);
  }
  for (uint32_t z = 0; z < L.grid[2] && result.completed && cluster_size == 1; ++z)
    for (uint32_t y = 0; y < L.grid[1] && result.completed; ++y)
      for (uint32_t x = 0; x < L.grid[0]; ++x) {
        if (opt.cancel && opt.cancel->load()) {
          result.completed = false;
          result.cancelled = true;
          result.error = "cancelled";
          break;
        }
        if (opt.only_traced_cta && std::array<uint32_t, 3>{x, y, z} != opt.traced_cta) continue;
        reset_cta(cta, k);
        solo.barrier_phase = 0;
        cta.launch.ctaid = {x, y, z};
        cta.launch.cta_linear = uint32_t(x + L.grid[0] * (y + L.grid[1] * z));
        set_traced(cta, opt, cta.launch.ctaid == opt.traced_cta, result);
        run_cta(cta, opt);
        result.stats.ctas++;
        result.stats.max_cta_cycles = std::max(result.stats.max_cta_cycles, cta.cost.cycles);
        if (cta.launch.ctaid == opt.traced_cta) {
          traced_cost = cta.cost;
          result.stats.traced_cta_cycles = cta.cost.cycles;
        }
        if (cta.failed) {
          result.completed = false;
          result.error = fmt::format("CTA ({},{},{}): {}", x, y, z, cta.failure);
          break;
        }
        ++done;
        if (opt.progress) opt.progress(done, opt.only_traced_cta ? 1 : total);
      }
  if (opt.trace) result.trace.finalize();

  traced_cost.threads = L.threads();
  traced_cost.smem_bytes = k.smem_bytes();
  result.stats.traced_cost = traced_cost;
  if (flops > 0 && result.completed) {
    const timing::Machine& machine = timing::machine_for(k.target);
    const timing::Prediction p = timing::predict_gemm(traced_cost, total, flops, machine, gemm_facts(k, result, flops));
    result.stats.prediction = p;
    result.stats.predicted_on = &machine;
    result.stats.predicted_seconds = p.seconds;
    result.stats.predicted_tflops = p.tflops;
  }
  result.stats.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace gs::model
