// simulate(): binds the GEMM's buffers to the kernel's parameters, runs every CTA of the
// grid (grid.cpp: the chosen one traced, with the rest of its cluster; the others fast, on
// every core), and predicts the whole GEMM's time.
#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "engine/ir/verify.hpp"
#include "engine/layout/tma_box.hpp"
#include "engine/model/grid.hpp"
#include "engine/model/machine_ceilings.hpp"

namespace gs::model {

namespace {

int buffer_index(ir::ParamRole r) {
  switch (r) {
    case ir::ParamRole::a: return 0;
    case ir::ParamRole::b: return 1;
    case ir::ParamRole::c: return 2;
    case ir::ParamRole::timeline: return 3;
    default: return -1;
  }
}

std::vector<uint64_t> bind_params(const ir::Kernel& k, const GemmMemory& mem) {
  std::vector<uint64_t> values;
  const std::array<const std::span<uint8_t>*, 4> b{&mem.a, &mem.b, &mem.c, &mem.timeline};
  for (size_t i = 0; i < k.params.size(); ++i) {
    const ir::Param& p = k.params[i];
    switch (p.kind) {
      case ir::ParamKind::global_ptr: {
        const int bi = buffer_index(p.role);
        if (bi < 0)
          throw ModelError(fmt::format("parameter '{}' is a global pointer with role '{}': the model binds only A, B "
                                       "and C buffers and a timeline buffer",
                                       p.name, ir::param_role_name(p.role)));
        if (b[size_t(bi)]->empty())
          throw ModelError(fmt::format("parameter '{}' ({}) has no buffer: pass one to simulate", p.name,
                                       ir::param_role_name(p.role)));
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

// The GEMM's tiling, K and tile order for the prediction's HBM bytes (timing.hpp, GemmFacts):
// the tile order is the whole grid's schedule when every CTA ran (a persistent kernel's walk),
// else the walk the kernel declares (OutputTiling::walk), else left to row-major.
timing::GemmFacts gemm_facts(const ir::Kernel& k, const SimResult& result, double flops) {
  const ir::OutputTiling& o = k.output;
  if (!o.declared()) return {};
  const double mn = double(o.rows) * double(o.cols);
  timing::GemmFacts g = timing::declared_gemm_facts(o, mn > 0 ? uint64_t(flops / (2.0 * mn) + 0.5) : 0);
  timing::declare_ring(k, g);
  const std::vector<TileVisit>& v = result.schedule.visits;
  if (v.size() >= uint64_t(g.tiles_m) * g.tiles_n) {
    g.tile_order.clear();
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

SimResult simulate(const ir::Kernel& k, GemmBuffers& bufs, std::span<uint8_t> timeline, const SimOptions& opt,
                   double flops) {
  return simulate(k, GemmMemory{bufs.a, bufs.b, bufs.c, timeline}, opt, flops);
}

SimResult simulate(const ir::Kernel& k, const GemmMemory& memory, const SimOptions& opt, double flops) {
  const auto t0 = std::chrono::steady_clock::now();
  ir::verify(k);
  SimResult result;
  GemmMemory spans = memory;
  GlobalMemory global;
  global.buffers = {&spans.a, &spans.b, &spans.c, spans.timeline.empty() ? nullptr : &spans.timeline};

  const timing::Machine& machine = opt.machine ? *opt.machine : timing::machine_for(k.target);
  if (!timing::machine_runs(machine, k.target))
    throw ModelError(fmt::format("{} code does not run on {}: predict it on a card that runs it ({})",
                                 ir::arch_name(k.target), machine.name, timing::machine_keys_for(k.target)));
  const ir::LaunchShape& L = k.launch;
  // The traced CTA as one of the GEMM's wave: its loads wait for HBM in the share of the wave's
  // panel bytes L2 did not keep (timing::wave_cta_figures), and in the later waves of several CTAs
  // an SM only as a panel's first reader (timing::wave_loads). The wave: the CTAs the SMs hold at
  // once by the CTA's threads, shared memory and registers, in the tile walk the kernel declares.
  timing::CtaFigures figures = machine.cta;
  timing::WaveLoads loads;
  if (flops > 0 && k.output.declared()) {
    const double mn = double(k.output.rows) * double(k.output.cols);
    const timing::GemmFacts g = timing::declared_gemm_facts(k.output, uint64_t(flops / (2.0 * mn) + 0.5));
    const uint32_t per_sm =
        timing::ctas_per_sm(*machine.desc, L.threads(), k.smem_bytes(), opt.registers_per_thread);
    const uint64_t concurrent = std::min<uint64_t>(L.ctas(), uint64_t(per_sm) * machine.sms);
    loads = timing::wave_loads(g, concurrent, L.ctas(), per_sm, machine.desc->l2_kept_bytes.value);
    figures = timing::wave_cta_figures(machine, loads.share);
  }
  Launch launch;
  launch.kernel = &k;
  launch.figures = &figures;
  launch.global = &global;
  launch.param_values = bind_params(k, spans);
  const Program program =  // once for the whole grid
      decode_program(k, opt.sass_per_inst, opt.sass_first, opt.straight_copies, opt.straight_barriers);

  for (int d = 0; d < 3; ++d)
    if (opt.traced_cta[d] >= L.grid[d])
      throw ModelError(fmt::format("CTA ({},{},{}) is outside the grid ({},{},{})", opt.traced_cta[0],
                                   opt.traced_cta[1], opt.traced_cta[2], L.grid[0], L.grid[1], L.grid[2]));
  // A kernel that asks for work with clusterlaunchcontrol runs as its first wave: the CTAs the
  // SMs hold at once (or SimOptions::resident_ctas); they do every CTA's work (grid.cpp).
  uint64_t resident = 0;
  if (uses_launch_control(k))
    resident = opt.resident_ctas > 0 ? opt.resident_ctas
                                     : uint64_t(timing::ctas_per_sm(*machine.desc, L.threads(), k.smem_bytes(),
                                                                    opt.registers_per_thread)) * machine.sms;
  const uint64_t total = resident > 0 ? std::min<uint64_t>(L.ctas(), resident) : L.ctas();
  timing::CtaCost traced_cost;
  const FastForwardPlan fast_forward = plan_fast_forward(k);
  run_grid({&k, &program, &fast_forward, launch, spans.c, resident}, opt, result, traced_cost);
  if (opt.trace) result.trace.finalize();

  traced_cost.threads = L.threads();
  traced_cost.smem_bytes = k.smem_bytes();
  traced_cost.registers_per_thread = opt.registers_per_thread;
  traced_cost.cluster_ctas = L.cluster[0] * L.cluster[1] * L.cluster[2];
  result.stats.traced_cost = traced_cost;
  if (flops > 0 && result.completed) {
    timing::Prediction p = timing::predict_gemm(traced_cost, total, flops, machine, gemm_facts(k, result, flops));
    p.hbm_share_of_panels = loads.share;
    const std::string from_hbm =
        fmt::format("{:.0f}% of the {}wave's distinct A and B panel bytes come from HBM", 100.0 * loads.together,
                    loads.apart > 0 ? "first " : "");
    if (k.output.declared() && traced_cost.tma_bytes == 0)
      // No TMA loads: global loads and cp.async copies keep the L2 latency (timing::wave_cta_figures).
      p.load_basis = fmt::format(
          "{}; the kernel's loads are not TMA loads and each takes the L2 latency ({} cycles, probe l2_latency): "
          "HBM counts as the wave's bandwidth",
          from_hbm, figures.global_latency);
    else if (k.output.declared())
      p.load_basis = fmt::format(
          "{}, and its CTAs that read a panel wait for it together{}: a TMA load {} cycles + its transfer (its own "
          "{} + {:.0f}% of the {} HBM adds over an L2 hit, probes hbm_latency and l2_latency)",
          from_hbm,
          loads.apart > 0
              ? fmt::format("; in the later waves ({:.0f}% of them) its CTAs read apart, a panel's first reader "
                            "waits for HBM and the others find it in L2, {:.0f}% of their loads",
                            100.0 * loads.apart, 100.0 * loads.first_reader)
              : "",
          figures.tma_latency, machine.cta.tma_latency, 100.0 * loads.share,
          uint32_t(machine.desc->hbm_latency.value - machine.desc->l2_latency.value));
    result.stats.prediction = p;
    result.stats.predicted_on = &machine;
    result.stats.predicted_seconds = p.seconds;
    result.stats.predicted_tflops = p.tflops;
  }
  result.stats.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace gs::model
