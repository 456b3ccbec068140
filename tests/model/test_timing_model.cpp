// The timing model (engine/model/timing.*, cta.cpp's issue model) against the machine
// description it reads (machines.hpp) and the microbenchmarks that measured it: the model runs
// the same probe kernels (kernels/timing_probes.hpp) and must show what the H100 showed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "engine/model/machine_ceilings.hpp"
#include "engine/model/model.hpp"
#include "engine/model/timing.hpp"
#include "engine/ptx/emit.hpp"
#include "kernels/timing_probes.hpp"
#include "tests/model/probe_run.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;
using kernels::ChainOp;
using test::ProbeRun;
using test::run_probe;

namespace {

// Cycles per instruction of warp 0's timed region.
double per_inst(const ProbeRun& r, double instructions) { return double(r.field(0, 0)) / instructions; }

}  // namespace

TEST_CASE("issue model: a dependent chain waits for each result, independent chains overlap", "[model][timing]") {
  // One warp: 512 FFMA in one chain, then 8 chains of 64 (the same 512 instructions).
  const double chain = per_inst(run_probe(kernels::build_chain_probe(ChainOp::ffma, 1, 1, 1, 512, 1), 32), 512);
  const double eight = per_inst(run_probe(kernels::build_chain_probe(ChainOp::ffma, 1, 1, 8, 64, 1), 32), 512);
  // The H100: 4.04 and 1/0.94 cycles (docs/results/2026-11-27-h100-probes).
  CHECK(chain == Approx(model::timing::kFmaLatency).margin(0.2));
  CHECK(eight < 1.2);  // one instruction a cycle, where the old model waited 4 per instruction
}

TEST_CASE("issue model: each op's latency class comes from the op traits", "[model][timing]") {
  const double iadd = per_inst(run_probe(kernels::build_chain_probe(ChainOp::iadd, 1, 1, 1, 512, 1), 32), 512);
  const double imad = per_inst(run_probe(kernels::build_chain_probe(ChainOp::imad, 1, 1, 1, 512, 1), 32), 512);
  CHECK(iadd == Approx(model::timing::kAluLatency).margin(0.2));   // the H100: 2.01
  CHECK(imad == Approx(model::timing::kImadLatency).margin(0.2));  // the H100: 4.03
}

TEST_CASE("issue model: mma.sync has its measured latency and its sub-partition's rate", "[model][timing]") {
  const double chain = per_inst(run_probe(kernels::build_chain_probe(ChainOp::mma_sync, 1, 1, 1, 64, 2), 32), 128);
  CHECK(chain == Approx(model::timing::kMmaSyncLatency).margin(0.5));  // the H100: 24.0
  // 8 warps x 8 independent chains: the tensor cores' rate, 0.666 mma.sync a cycle on the H100.
  const ProbeRun r = run_probe(kernels::build_chain_probe(ChainOp::mma_sync, 1, 8, 8, 8, 8), 256);
  const uint64_t span = r.span_of_warps(8);
  const double rate = 8.0 * 8 * 8 * 8 / double(span);
  CHECK(rate == Approx(model::timing::kMmaSyncFlopsPerCycle / 4096).epsilon(0.1));
}

TEST_CASE("issue model: a shared-memory pointer chase takes the measured ld.shared latency", "[model][timing]") {
  // The H100: 23.0. The model also waits for the IR's `mov p, q` after each load, which ptxas
  // folds away on the GPU: one ALU latency more.
  const double hop = per_inst(run_probe(kernels::build_shared_chase_probe(1024, 512), 32), 512);
  CHECK(hop == Approx(model::timing::kSharedLatency + model::timing::kAluLatency).margin(1.0));
}

TEST_CASE("machine description: every figure of every machine has a value and a source", "[model][timing]") {
  for (const model::timing::MachineDesc* m :
       {&model::timing::kH100Desc, &model::timing::kH200Desc, &model::timing::kB200Desc}) {
    int figures = 0;
    model::timing::for_each_figure(*m, [&](const model::timing::FigureRow& row) {
      INFO(m->name << " " << row.name);
      CHECK(row.figure->value > 0);
      CHECK(std::string(row.figure->source).size() > 10);
      ++figures;
    });
    CHECK(figures > 30);
  }
  // The B200 is NVIDIA's figures: its SM count says so.
  CHECK(std::string(model::timing::kB200Desc.sms.source).find("UNCONFIRMED") != std::string::npos);
}

TEST_CASE("prediction: a wave takes its longest part, which names the bound", "[model][timing]") {
  model::timing::CtaCost cta;
  cta.cycles = 1000;
  cta.tensor_busy_cycles = 5000;  // the tensor cores bound this CTA
  cta.threads = 384;
  cta.smem_bytes = 200000;
  const model::timing::Prediction p = model::timing::predict_gemm(cta, 264, 1e12);
  CHECK(p.waves == 2);
  CHECK(p.cycles_per_wave == Approx(5000));
  CHECK(std::string(p.parts.bound) == "tensor cores");
  // Two waves at the clock, and the launch: launch_us, and cta_start_ns for the second wave's 132.
  const model::timing::MachineDesc& h100 = model::timing::kH100Desc;
  const double launch = (h100.launch_us.value + 132 * h100.cta_start_ns.value * 1e-3) * 1e-6;
  CHECK(p.launch_seconds == Approx(launch));
  CHECK(p.seconds == Approx(2 * 5000 / p.clock_hz + launch));
  CHECK_THAT(p.launch_basis, Catch::Contains("4.0 us a launch (launch_us) and 0.59 ns for each of the 132 CTAs"));
  CHECK(p.parts.wave_quantization == Approx(0.0));
  // One wave: the launch's fixed cost alone.
  CHECK(model::timing::predict_gemm(cta, 132, 1e12).launch_seconds == Approx(h100.launch_us.value * 1e-6));
  // One CTA more: a third wave with one CTA in it.
  const model::timing::Prediction q = model::timing::predict_gemm(cta, 265, 1e12);
  CHECK(q.waves == 3);
  CHECK(q.parts.wave_quantization > 0.3);
}

TEST_CASE("machines: a prediction for an H200 reads the H200's figures, the CTA's run included", "[model][timing]") {
  using model::timing::kH100;
  using model::timing::kH200;
  // The card a device or a key names.
  CHECK(model::timing::machine_named_in("NVIDIA H200") == &kH200);
  CHECK(model::timing::machine_named_in("NVIDIA H100 80GB HBM3") == &kH100);
  CHECK(model::timing::machine_by_key("h200") == &kH200);
  CHECK(model::timing::machine_by_key("H300") == nullptr);
  CHECK(model::timing::machine_keys() == "h100, h200, b200");
  CHECK(model::timing::machine_runs(kH200, ir::Arch::sm_90a));
  CHECK_FALSE(model::timing::machine_runs(model::timing::kB200, ir::Arch::sm_90a));
  // The traced CTA: one TMA box lands after the H200's own latency, and a larger one takes its
  // copy engine at the H200's share of L2 (its probes: 16024 GB/s shared against the H100's 14900).
  CHECK(kH200.cta.tma_latency < kH100.cta.tma_latency);
  CHECK(kH200.cta.tma_bytes_per_cycle > kH100.cta.tma_bytes_per_cycle);
  const auto box = [](uint32_t rows, const model::timing::Machine& m) {
    return double(run_probe(kernels::build_tma_probe(1, 1, 16, rows, 16), 32, std::vector<uint8_t>(16 * rows * 128), &m)
                      .field(0, 0)) /
           16;
  };
  // The 1-KiB box: the latencies' difference, and its transfer at each card's rate.
  const double transfers = 1024.0 / kH100.cta.tma_bytes_per_cycle - 1024.0 / kH200.cta.tma_bytes_per_cycle;
  CHECK(box(8, kH100) - box(8, kH200) ==
        Approx(double(kH100.cta.tma_latency) - kH200.cta.tma_latency + transfers).margin(1.0));
  CHECK((box(256, kH200) - box(8, kH200)) == Approx(31.0 * 1024 / kH200.cta.tma_bytes_per_cycle).epsilon(0.05));
  // The whole GEMM: a CTA that reads its tiles from HBM (a 16384^3 GEMM of 128 x 256 tiles,
  // K of 16384, no reuse in L2 across waves) is bound by HBM on both cards, sooner on the H200.
  model::timing::CtaCost cta;
  cta.cycles = 1000;
  cta.tensor_busy_cycles = 1000;
  cta.tma_bytes = (128 + 256) * 16384ull * 2;  // its A and B panels
  cta.threads = 384;
  cta.smem_bytes = 200000;
  model::timing::GemmFacts g;
  g.tiles_m = 128, g.tiles_n = 64;
  g.tile_rows = 128, g.tile_cols = 256;
  g.m = g.n = g.k = 16384;
  const double flops = 2.0 * 16384.0 * 16384.0 * 16384.0;
  const model::timing::Prediction on_h100 = model::timing::predict_gemm(cta, 128 * 64, flops, kH100, g);
  const model::timing::Prediction on_h200 = model::timing::predict_gemm(cta, 128 * 64, flops, kH200, g);
  REQUIRE(std::string(on_h100.parts.bound) == "HBM");
  REQUIRE(std::string(on_h200.parts.bound) == "HBM");
  // Each wave's bytes from HBM at each card's bandwidth and clock.
  CHECK(on_h200.parts.hbm / on_h200.clock_hz == Approx(on_h200.parts.hbm_bytes_per_wave / 4288e9));
  CHECK(on_h100.parts.hbm / on_h100.clock_hz == Approx(on_h100.parts.hbm_bytes_per_wave / 2930e9));
  CHECK(on_h200.seconds < 0.8 * on_h100.seconds);
  // A card that cannot run the kernel's code is refused, by name.
  model::SimOptions opt;
  opt.machine = &model::timing::kB200;
  model::GemmBuffers bufs;
  bufs.a.assign(16 * 8 * 128, 0);
  bufs.c.assign(32 * kernels::kTimingOutBytes, 0);
  CHECK_THROWS_WITH(model::simulate(kernels::build_tma_probe(1, 1, 16, 8, 16), bufs, opt),
                    Catch::Contains("sm_90a code does not run on B200"));
}

TEST_CASE("prediction: a cluster launch holds only the CTAs whose clusters fit in a GPC", "[model][timing]") {
  // Steps 17-18's CTA: one per SM. The H100 holds 132 of them in clusters of 2 and 120 in
  // clusters of 4 (cuOccupancyMaxActiveClusters): 128 CTAs in clusters of 4 take two waves.
  model::timing::CtaCost cta;
  cta.cycles = 1000;
  cta.tensor_busy_cycles = 5000;
  cta.threads = 384;
  cta.smem_bytes = 227 * 1024;
  cta.cluster_ctas = 2;
  const model::timing::Prediction pairs = model::timing::predict_gemm(cta, 128, 1e12);
  CHECK(pairs.waves == 1);
  CHECK(pairs.wave_ctas == 132);
  CHECK(pairs.cluster_basis.empty());
  cta.cluster_ctas = 4;
  const model::timing::Prediction fours = model::timing::predict_gemm(cta, 128, 1e12);
  CHECK(fours.wave_ctas == model::timing::kH100Desc.cluster4_ctas.value);
  CHECK(fours.waves == 2);
  CHECK(fours.seconds - fours.launch_seconds == Approx(2 * (pairs.seconds - pairs.launch_seconds)));
  CHECK_THAT(fours.cluster_basis, Catch::Contains("clusters of 4: 120 CTAs at once"));
  CHECK(model::timing::predict_gemm(cta, 120, 1e12).waves == 1);
  // A size the machine has no figure for keeps one CTA per SM.
  cta.cluster_ctas = 8;
  CHECK(model::timing::predict_gemm(cta, 128, 1e12).waves == 1);
  CHECK(model::timing::cluster_ctas_at_once(model::timing::kH100Desc, 8) == 0);
}

TEST_CASE("prediction: a grouped tile order reads fewer bytes from HBM than row-major", "[model][timing]") {
  // 64 x 64 tiles of 128 x 128, K = 8192, 128 tiles at a time: row-major waves cover two rows
  // of tiles and all 64 columns; 16 x 8 groups cover 16 rows and 8 columns.
  model::timing::GemmFacts g;
  g.tiles_m = g.tiles_n = 64;
  g.tile_rows = g.tile_cols = 128;
  g.m = g.n = 8192;
  g.k = 8192;
  const double l2 = 50e6;
  const double row_major = model::timing::hbm_read_bytes(g, 128, l2);
  for (uint32_t group = 0; group < 64 * 64 / 128; ++group)
    for (uint32_t i = 0; i < 128; ++i) {
      const uint32_t gm = group / 8, gn = group % 8;  // 4 x 8 groups of 16 x 8 tiles
      g.tile_order.push_back((16 * gm + i / 8) * 64 + 8 * gn + i % 8);
    }
  const double grouped = model::timing::hbm_read_bytes(g, 128, l2);
  CHECK(grouped < 0.8 * row_major);
  // Every byte of A and B at least once.
  CHECK(grouped >= double(g.m + g.n) * double(g.k) * 2);
}

TEST_CASE("loads: the wave's panels that L2 did not keep make every CTA reading them wait for HBM",
          "[model][timing]") {
  using namespace model::timing;
  GemmFacts g;
  g.tile_rows = 128;
  g.tile_cols = 256;
  g.k = 4096;
  // 512x512x4096: 4 x 2 tiles, 12 MiB of A and B, all in L2 from the first wave on: each panel
  // comes from HBM once (the first wave), so every distinct byte of the one wave is from HBM.
  g.tiles_m = 4;
  g.tiles_n = 2;
  g.m = g.n = 512;
  CHECK(hbm_share_of_panels(g, 128, kH200Desc.l2_kept_bytes.value) == Approx(1.0));
  // 4096³ in row-major waves of 128 tiles of 128x256 (32 x 16 tiles): a wave covers 8 tile rows
  // and all 16 columns; B (32 MiB) does not stay in L2 beside the A panels, so each wave reads
  // its new A panels and all of B again from HBM: the share is 1.
  g.tiles_m = 32;
  g.tiles_n = 16;
  g.m = g.n = 4096;
  const double row_major = hbm_share_of_panels(g, 128, kH200Desc.l2_kept_bytes.value);
  CHECK(row_major == Approx(hbm_read_bytes(g, 128, kH200Desc.l2_kept_bytes.value) / distinct_panel_bytes(g, 128)));
  CHECK(row_major > 0.5);
  CHECK(row_major <= 1.0);
  // An L2 that keeps the whole working set (64 MiB) reads each byte of A and B from HBM once:
  // of the 4 waves' 40 MiB of distinct panels each (8 A panels of 1 MiB, 16 B panels of 2 MiB),
  // all of the first's and the later waves' new A panels, 40 + 3 x 8 of 160 MiB.
  const double kept = hbm_share_of_panels(g, 128, 128.0 * 1024 * 1024);
  CHECK(kept < row_major);
  CHECK(kept == Approx(64.0 / 160.0));
  // No tiling declared: an L2 hit, as the probes' loads are.
  CHECK(hbm_share_of_panels(GemmFacts{}, 128, 1e6) == 0.0);

  // A TMA load's latency plus the share of what HBM adds over an L2 hit (probes hbm_latency, l2_latency).
  const CtaFigures none = wave_cta_figures(kH200, 0.0), all = wave_cta_figures(kH200, 1.0),
                   half = wave_cta_figures(kH200, 0.5);
  CHECK(none.tma_latency == kH200.cta.tma_latency);
  CHECK(none.global_latency == kH200.cta.global_latency);
  const uint32_t extra = uint32_t(kH200Desc.hbm_latency.value - kH200Desc.l2_latency.value);
  CHECK(all.tma_latency == kH200.cta.tma_latency + extra);
  CHECK(all.global_latency == kH200.cta.global_latency);  // SIMT loads: see wave_cta_figures
  CHECK(half.tma_latency == Approx(kH200.cta.tma_latency + 0.5 * extra).margin(1));
  CHECK(all.tma_bytes_per_cycle == kH200.cta.tma_bytes_per_cycle);  // the transfer is unchanged
}

TEST_CASE("probes: every timing probe kernel assembles with ptxas for its target", "[model][timing][ptxas]") {
  const std::vector<ir::Kernel> kernels = {
      kernels::build_chain_probe(ChainOp::ffma, 1, 4, 2, 8, 2),
      kernels::build_chain_probe(ChainOp::mma_sync, 1, 1, 1, 8, 2),
      kernels::build_shared_chase_probe(1024, 64),
      kernels::build_global_chase_probe(8, 64),
      kernels::build_stream_probe(4, 2, 16),
      kernels::build_store_stream_probe(4, 2, 16, false),
      kernels::build_store_stream_probe(4, 2, 16, true),
      kernels::build_l1_stride_probe(2, 128, 4),
      kernels::build_l1_stride_probe(2, 0, 4),
      kernels::build_l1_fill_probe(2, 1, 4, 0, true),
      kernels::build_l1_fill_probe(2, 4, 4, 8),
      kernels::build_cp_async_fill_probe(32, 4, 8),
      kernels::build_cp_async_fill_probe(32, 4, 20, 32, 2, true),  // step 09's mix with a bar.sync a round
      kernels::build_cp_async_fill_probe(32, 4, 0, 32),
      kernels::build_cp_async_fill_probe(32, 4, 8, 64),
      kernels::build_cp_async_fill_probe(32, 4, 8, 32, 2),
      kernels::build_wgmma_probe(2, 256, 2),
      kernels::build_tma_probe(2, 4, 2, 256, 16, 1),
      kernels::build_tma_probe(4, 4, 2, 128, 16, 2),
      kernels::build_tma_probe(4, 2, 2, 64, 24, 1),  // a footprint that is not a power of two
      kernels::build_tma_probe(4, 1, 4, 256, 16, 1, true),  // each round stamped
      kernels::build_tma_gemm_wave_probe(4, 4, 4, 8),
      kernels::build_tma_gemm_ring_probe(4, 4, 6, 8, 3, 2),
      kernels::build_tma_gemm_ring_probe(4, 4, 6, 8, 3, 2, {.heat_reps = 2}),  // heated
      kernels::build_tma_gemm_ring_probe(4, 4, 6, 8, 3, 2, {.split = true}),      // split roles
      kernels::build_tma_gemm_ring_probe(4, 4, 6, 8, 3, 2, {.c_tile = true}),     // C tile
      kernels::build_tma_gemm_ring_probe(4, 4, 6, 8, 3, 20, {.uneven = true}),    // uneven pace
      kernels::build_tma_gemm_ring_probe(4, 4, 6, 8, 3, 20, {.jitter = true}),    // jittered pace
      kernels::build_tma_gemm_ring_probe(4, 4, 6, 8, 3, 20, {.drift_fmas = 2}),   // lasting drift
      kernels::build_tma_gemm_ring_probe(4, 2, 6, 8, 3, 1, {.tile_n = 256}),      // 128 x 256 tiles
      kernels::build_mbarrier_handoff_probe(4, 1),
      kernels::build_mbarrier_handoff_probe(4, 128),
      kernels::build_mbarrier_wait_done_probe(4, 0),
      kernels::build_mbarrier_wait_done_probe(4, 10'000'000),
      kernels::build_wgmma_stages_probe(3, 2, true),
      kernels::build_clock_under_load_probe(2, 2, 1, 2, 4),
      kernels::build_clock_under_load_probe(2, 2, 1, 2, 4, false),
      kernels::build_wgmma_probe(2, 256, 2, 2, true),
      kernels::build_wgmma_issue_probe(2, 256, 4, 2, 1),
      kernels::build_wgmma_issue_probe(1, 64, 16, 2, 0),
      kernels::build_wgmma_order_probe(8, 4),
      kernels::build_remote_arrive_probe(4),
      kernels::build_remote_arrive_probe(4, 10'000'000),
      kernels::build_remote_arrive_probe(4, 0, true),
      kernels::build_remote_arrive_issue_probe(4, false),
      kernels::build_remote_arrive_issue_probe(4, true),
      kernels::build_clock_under_load_probe(2, 2, 4, 2, 16),
      kernels::build_clock_under_load_probe(2, 2, 4, 2, 16, true, false, false),  // the TMA alone
      kernels::build_clock_under_load_probe(2, 2, 4, 2, 16, true, true, true, 8),  // paused
      kernels::build_chain_probe(ChainOp::mma_sync, 2, 8, 8, 8, 2, true),          // random operands
      kernels::build_launch_probe(4, 128, 0),
      kernels::build_shared_rate_probe(4, 1, 2, 4, 2),
      kernels::build_shared_rate_probe(2, 4, 2, 4, 2),
      kernels::build_launch_probe(2, 384, 200 * 1024),
      kernels::build_clock_spin_probe(4, 16),
      kernels::build_coresident_probe(4, 8, 100 * 1024, 8, 8, 4),
      kernels::build_copy_burst_probe(4, 4, 100 * 1024, 8, 2, 4 * 16384),
      kernels::build_outer_product_probe(4, 8, 8, 4),
      kernels::build_shared_rate_probe(4, 1, 2, 4, 2, 4),
      kernels::build_fragment_power_probe(2, 8, 2, {true, false, 0}),          // ldmatrix alone
      kernels::build_fragment_power_probe(2, 8, 2, {true, true, 0}),           // ldmatrix feeding mma.sync
      kernels::build_fragment_power_probe(2, 8, 2, {false, false, 1u << 16}),  // cp.async alone
      kernels::build_fragment_power_probe(2, 8, 2, {true, true, 1u << 16}),    // all three
      kernels::build_fragment_power_probe(4, 4, 2, {true, true, 1u << 16, true}),  // with a bar.sync a round
      kernels::build_fragment_power_probe(2, 8, 2, {false, false, 1u << 16, false, 32}),  // step 09's rows
      kernels::build_fragment_power_probe(4, 4, 2, {true, true, 1u << 16, true, 64}),     // step 10's rows
      kernels::build_cp_async_fill_probe(32, 2, 48, 32, 2, true, 8),  // 8 groups, each its own barrier
      kernels::build_clock_under_load_probe(4, 2, 2, 2, 16, true, true, true, 0, 1, 128),  // one wgmma warpgroup
      kernels::build_clock_under_load_probe(2, 2, 4, 2, 16, true, true, true, 0, 2, 128),
      kernels::build_clock_under_load_probe(2, 2, 4, 2, 16, true, true, true, 0, 2, 256, {.store_every = 64}),  // an epilogue
      kernels::build_clock_under_load_probe(4, 2, 4, 2, 16, true, true, true, 0, 2, 256, {.share = 2}),  // shared boxes
      kernels::build_clock_under_load_probe(2, 2, 4, 2, 16, true, true, true, 0, 2, 256, {.distinct_a = true}),  // own A
      kernels::build_clock_under_load_probe(2, 2, 4, 2, 16, true, false, true, 0, 2, 256, {.distinct_a = true}),
      kernels::build_clock_under_load_probe(2, 8, 4, 2, 16, true, true, true, 0, 2, 256, {.handoff = true}),  // hand-off
  };
  for (const ir::Kernel& k : kernels) test::check_assembles(ptx::emit(k).text, k.target, k.name);
}

TEST_CASE("L1: a traced load holds the data path by what it finds there: a hit, a miss, a line on its way",
          "[model][timing]") {
  // The probes of docs/results/2026-12-02-stalls on the model (traced, as gemmscope_timing_probes
  // runs them): warp-loads a cycle of one CTA of 32 warps, 8 one-line loads a round.
  const auto rate = [](const ir::Kernel& k, size_t a_bytes) {
    model::GemmBuffers bufs;
    bufs.a.assign(a_bytes, 1);
    bufs.c.assign(32 * 32 * kernels::kTimingOutBytes, 0);
    model::SimOptions opt;
    opt.trace = true;
    opt.machine = &model::timing::kH200;
    const model::SimResult r = model::simulate(k, bufs, opt);
    REQUIRE(r.completed);
    const ProbeRun run{bufs.c};
    const uint64_t span = run.span_of_warps(32);
    REQUIRE(span > 0);
    return 32.0 * 8 * 64 / double(span);
  };
  using model::timing::kL1MissRequestCycles, model::timing::kL1PendingRequestCycles, model::timing::kL1RequestCycles;
  // Hits: a line's cycle and kL1RequestCycles each (the card: 0.94).
  const double hits = rate(kernels::build_l1_stride_probe(32, 4, 64), 8 * 1024 + 256);
  CHECK(hits == Approx(1.0 / (1.0 + kL1RequestCycles)).epsilon(0.03));
  // Every warp reads the same 8 new lines a round: 8 misses and 248 loads that find their line
  // on its way from L2 (the card: 0.77; before the L1 knew lines on their way, the model: 0.99).
  const double same = rate(kernels::build_l1_fill_probe(32, 1, 64, 0, true), 64 * 8 * 128 + 1024);
  CHECK(same == Approx(256.0 / (256.0 * (1.0 + kL1RequestCycles) + 8 * (kL1MissRequestCycles - kL1RequestCycles) +
                                248 * (kL1PendingRequestCycles - kL1RequestCycles)))
                    .epsilon(0.05));
  CHECK(same < hits - 0.05);
  // Every line read once: each load a miss, and L2's latency to wait (the card: 0.735).
  const double misses = rate(kernels::build_l1_fill_probe(32, 1, 64), 64 * 32 * 8 * 128 + 1024);
  CHECK(misses <= 1.0 / (1.0 + kL1MissRequestCycles) + 0.01);
  CHECK(misses < same);
}

TEST_CASE("probes: the shared-memory rate probe's chases stay on their own slots", "[model][timing]") {
  // Each lane's chase returns to its own slot: a thread's value is the XOR of its chains' final
  // pointers, its slot in each chain's region (chain c at c x 32 x warps x 4 x vec bytes on).
  for (const uint32_t vec : {1u, 4u}) {
    const uint32_t warps = 2, chains = 3, lane = 4 * vec, region = warps * 32 * lane;
    const ProbeRun r = run_probe(kernels::build_shared_rate_probe(warps, vec, chains, 4, 2), 64);
    const auto expected = [&](uint64_t base, uint32_t t) {
      uint64_t x = 0;
      for (uint32_t c = 0; c < chains; ++c) x ^= base + uint64_t(t) * lane + uint64_t(c) * region;
      return x;
    };
    std::optional<uint64_t> base;  // where the slots begin: the one base that explains thread 0
    for (uint64_t b = 0; b < 4096 && !base; b += 16)
      if (expected(b, 0) == r.field(0, 2)) base = b;
    REQUIRE(base);
    for (uint32_t t : {1u, 17u, 63u}) {
      INFO("vec " << vec << " thread " << t);
      CHECK(r.field(t, 2) == expected(*base, t));
      CHECK(r.field(t, 0) > 0);
    }
  }
  CHECK_THROWS_WITH(kernels::build_shared_rate_probe(4, 3, 1, 1, 1), Catch::Contains("1, 2 or 4 words a lane"));
}

TEST_CASE("probes: a launch probe's CTAs each leave their record and nothing else", "[model][timing]") {
  // Records are per CTA (thread 0's), indexed by the CTA: 5 CTAs write 5 records.
  const ProbeRun r = run_probe(kernels::build_launch_probe(5, 64, 4096), 6);
  for (uint32_t cta = 0; cta < 5; ++cta) {
    CHECK(r.field(cta, 2) == cta);
    CHECK(r.field(cta, 0) == 0);  // start and end are the same clock64 read
  }
  CHECK(r.field(5, 2) == 0);  // the record past the last CTA stays as it was
  CHECK_THROWS_WITH(kernels::build_launch_probe(1, 48, 0), Catch::Contains("got 1 CTAs of 48"));
}

TEST_CASE("probes: a clock spin counts a fixed number of cycles and the nanoseconds they took", "[model][timing]") {
  // On the model %globaltimer is the modeled cycle in ns at the kernel's machine's clock: every
  // CTA's cycles over its nanoseconds is that clock, as bench reads a spin's records.
  const uint32_t ctas = 3, reps = 64;
  const ProbeRun r = run_probe(kernels::build_clock_spin_probe(ctas, reps), ctas * 32);
  const ir::Kernel k = kernels::build_clock_spin_probe(ctas, reps);
  const double mhz = model::timing::machine_for(k.target).clock_hz / 1e6;
  for (uint32_t cta = 0; cta < ctas; ++cta) {
    INFO("CTA " << cta);
    const uint64_t cycles = r.field(cta * 32, 0), ns = r.field(cta * 32, 2);
    CHECK(cycles >= 8 * reps * 4);  // 8 dependent FFMAs a repetition, about 4 cycles each
    CHECK(cycles < 8 * reps * 4 * 2);
    REQUIRE(ns > 0);
    CHECK(1e3 * double(cycles) / double(ns) == Approx(mhz).epsilon(0.01));
  }
  CHECK_THROWS_WITH(kernels::build_clock_spin_probe(0, 1), Catch::Contains("got 0 CTAs"));
}

TEST_CASE("probes: the model runs the new probes and shows its machine description's figures", "[model][timing]") {
  // The clock under load: the wgmma warps' cycles over their %globaltimer nanoseconds is the
  // clock the model's globaltimer counts at, while the streaming warp's boxes land.
  {
    const uint32_t boxes = 4;
    const ProbeRun r =
        run_probe(kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes), 384, std::vector<uint8_t>(boxes * 32768, 1));
    // A record's clock: its cycles over its nanoseconds (thread 0 a wgmma warp's, 256 the streamer's).
    const double hz = model::timing::machine_for(ir::Arch::sm_90a).clock_hz;
    const auto clock_of = [](const ProbeRun& run, uint32_t thread) {
      REQUIRE(run.field(thread, 2) > 0);
      return double(run.field(thread, 0)) / double(run.field(thread, 2)) * 1e9;
    };
    CHECK(clock_of(r, 0) == Approx(hz).epsilon(0.01));
    CHECK(clock_of(r, 256) == Approx(hz).epsilon(0.01));  // the streaming warp's own span
    // The TMA alone (mma false): the wgmma warps record nothing, the streamer its span.
    const ProbeRun alone = run_probe(kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes, true, false, false), 384,
                                     std::vector<uint8_t>(boxes * 32768, 1));
    CHECK(alone.field(0, 0) == 0);
    CHECK(clock_of(alone, 256) == Approx(hz).epsilon(0.01));
    // A pause after each repetition (and the streamer as long in all): the wgmma threads take more
    // cycles a repetition, the tensor cores busy a smaller share (a pause shorter than the other
    // warpgroup's wgmmas hides behind them); the clock is still the clock.
    const auto streamed = [&](uint32_t pause) {
      return run_probe(kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes, true, true, true, pause), 384,
                       std::vector<uint8_t>(boxes * 32768, 1));
    };
    const ProbeRun busy = streamed(0), paused = streamed(256);
    CHECK(double(paused.field(0, 0)) > 1.2 * double(busy.field(0, 0)));
    CHECK(clock_of(paused, 0) == Approx(hz).epsilon(0.01));
    // The streaming lane paused as long: it ends no sooner against the wgmmas than without the pause.
    CHECK(double(paused.field(256, 2)) / double(paused.field(0, 2)) >=
          0.9 * double(busy.field(256, 2)) / double(busy.field(0, 2)));
    // One wgmma warpgroup of N = 128: 256 threads, the streamer's record at thread 128, and each
    // repetition half the tensor-core time of N = 256 (two warpgroups share the SM's at 256).
    const ProbeRun one = run_probe(kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes, true, true, true, 0, 1, 128),
                                   256, std::vector<uint8_t>(boxes * 32768, 1));
    CHECK(clock_of(one, 0) == Approx(hz).epsilon(0.01));
    CHECK(clock_of(one, 128) == Approx(hz).epsilon(0.01));
    CHECK(one.field(128, 0) > 0);
    CHECK(double(one.field(0, 0)) < 0.75 * double(busy.field(0, 0)));
    CHECK_THROWS_AS(kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes, true, true, true, 0, 3, 128),
                    std::invalid_argument);
    // An epilogue after every 4th repetition into 2 slots (store_every, store_slots), as the rows
    // sm_clock_under_wgmma_streamed_l2_matched_store*: each wgmma thread's 128 accumulators land
    // after the records, a warp's 512 bytes an instruction, one tile a slot (repetitions 3 and 7
    // fill slots 0 and 1); the records stay the clock's, and the repetitions take longer.
    const uint32_t slots = 2;
    const size_t records = 384 * kernels::kTimingOutBytes;
    const uint64_t stored = kernels::clock_under_load_store_bytes(1, 2, 256, slots);
    CHECK(stored == uint64_t(slots) * 256 * 128 * 4);
    model::GemmBuffers bufs;
    bufs.a.assign(boxes * 32768, 1);
    bufs.c.assign(records + stored, 0xFF);  // no accumulator's f32 is all ones
    std::fill(bufs.c.begin(), bufs.c.begin() + records, 0);
    const model::SimResult sr = model::simulate(
        kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes, true, true, true, 0, 2, 256,
                                              {.store_every = 4, .store_slots = slots}),
        bufs, model::SimOptions{});
    REQUIRE(sr.completed);
    const ProbeRun with_stores{bufs.c};
    CHECK(clock_of(with_stores, 0) == Approx(hz).epsilon(0.01));
    CHECK(with_stores.field(0, 0) > busy.field(0, 0));
    size_t left = 0;
    for (size_t i = records; i + 4 <= bufs.c.size(); i += 4) left += bufs.c[i] == 0xFF && bufs.c[i + 1] == 0xFF &&
                                                                  bufs.c[i + 2] == 0xFF && bufs.c[i + 3] == 0xFF;
    CHECK(left == 0);
    CHECK_THROWS_AS(kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes, true, true, true, 0, 2, 256, {.store_every = 3}),
                    std::invalid_argument);
    // The producer/consumer hand-off (the rows sm_clock_under_wgmma_streamed_l2_handoff*): 4 rounds
    // of 2 stages for 8 repetitions, every wait returning and every stage released, no hazard (the
    // free ring's wgmmas read stages the TMA may be writing; these wait for them); the clock is
    // still the clock, and waiting for each box takes no less time than reading the free ring.
    model::GemmBuffers hb;
    hb.a.assign(boxes * 32768, 1);
    hb.c.assign(384 * kernels::kTimingOutBytes, 0);
    const model::SimResult hr = model::simulate(
        kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes, true, true, true, 0, 2, 256, {.handoff = true}), hb,
        model::SimOptions{});
    REQUIRE(hr.completed);
    CHECK(hr.hazards.empty());
    const ProbeRun handoff{hb.c};
    CHECK(clock_of(handoff, 0) == Approx(hz).epsilon(0.01));
    CHECK(handoff.field(0, 0) >= busy.field(0, 0));
    CHECK(handoff.field(256, 0) > 0);  // the streaming lane's record
    // The hand-off needs a stage a repetition, streamed into wgmmas, with no pause.
    CHECK_THROWS_AS(kernels::build_clock_under_load_probe(1, 8, 2, 2, boxes, true, true, true, 0, 2, 256, {.handoff = true}),
                    std::invalid_argument);
    CHECK_THROWS_AS(kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes, true, false, true, 0, 2, 256, {.handoff = true}),
                    std::invalid_argument);
    CHECK_THROWS_AS(kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes, true, true, true, 16, 2, 256, {.handoff = true}),
                    std::invalid_argument);
  }
  // Two warpgroups reading a ring's stages in turn, each round's descriptors made from its stage:
  // the tensor cores' rate, as the H100 reads it (wgmma_n256_2wg_stages3: 1024.98 cycles a round,
  // 2026-12-06), the rotation costing nothing.
  {
    const uint32_t rounds = 8;
    const ProbeRun r = run_probe(kernels::build_wgmma_stages_probe(3, rounds, false), 256);
    const uint64_t span = r.span_of_warps(8);
    CHECK(double(span) / rounds == Approx(1024.98).epsilon(0.02));
    CHECK_THROWS_AS(kernels::build_wgmma_stages_probe(5, 2, false), std::invalid_argument);
  }
  // wgmma m64n256k16 from shared memory: N/2 cycles each on the SM's tensor cores.
  {
    const ProbeRun r = run_probe(kernels::build_wgmma_probe(2, 256, 8), 256);
    const uint64_t span = r.span_of_warps(8);
    const double flop_per_cycle = 2.0 * 8 * 4 * 2 * 64 * 256 * 16 / double(span);
    CHECK(flop_per_cycle == Approx(model::timing::kTensorFlopsPerCycle).epsilon(0.05));
  }
  // A burst of wgmmas from one warpgroup (probes wgmma_issue_*): each holds the SM's wgmma issue
  // for its N's figure, the next waits; with kWgmmaQueue or more on the tensor cores, the crowded
  // figure. So a burst's issue cycles grow by wgmma_issue_cycles(N) a wgmma up to the queue, by
  // the crowded figure beyond, and two warpgroups' bursts share the issue.
  {
    namespace t = model::timing;
    const auto issue = [](uint32_t groups, uint32_t n, uint32_t burst) {
      const ProbeRun r = run_probe(kernels::build_wgmma_issue_probe(groups, n, burst, 4, 0), 128 * groups);
      return double(r.field(0, 0)) / 4;  // warp 0's cycles issuing a burst, over the rounds
    };
    const double b2 = issue(1, 256, 2), b4 = issue(1, 256, 4), b8 = issue(1, 256, 8);
    CHECK(b4 - b2 == Approx(2 * t::wgmma_issue_cycles(256, false)).margin(1));
    CHECK(b8 - b4 == Approx(4 * t::wgmma_issue_cycles(256, false)).margin(1));
    CHECK(t::wgmma_issue_cycles(256, true) > t::wgmma_issue_cycles(256, false));
    CHECK(issue(1, 256, 32) - issue(1, 256, 24) == Approx(8 * t::wgmma_issue_cycles(256, true)).margin(1));
    CHECK(issue(1, 64, 32) - issue(1, 64, 24) == Approx(8 * t::wgmma_issue_cycles(64, true)).margin(1));
    CHECK(t::wgmma_issue_cycles(64, false) < t::wgmma_issue_cycles(256, false));
    CHECK(issue(2, 256, 8) > 1.5 * b8);  // the other warpgroup's wgmmas take the issue too
  }
  // One TMA box in flight: its issue-to-land time grows with the box by the copy engine's rate.
  {
    const double small =
        double(run_probe(kernels::build_tma_probe(1, 1, 16, 8, 16), 32, std::vector<uint8_t>(16 * 8 * 128)).field(0, 0)) /
        16;
    const double large =
        double(run_probe(kernels::build_tma_probe(1, 1, 16, 256, 16), 32, std::vector<uint8_t>(16 * 256 * 128))
                   .field(0, 0)) /
        16;
    CHECK(small > model::timing::kH100Cta.tma_latency);
    CHECK((large - small) == Approx(31.0 * 1024 / model::timing::kH100Cta.tma_bytes_per_cycle).epsilon(0.05));
  }
  // Stores: the store probe completes and writes every byte of its blocks.
  {
    model::GemmBuffers bufs;
    bufs.a.assign(16 * 4096, 0xEE);
    bufs.c.assign(4 * 256 * kernels::kTimingOutBytes, 0);
    model::SimOptions opt;
    const model::SimResult r = model::simulate(kernels::build_store_stream_probe(4, 4, 16, true), bufs, opt);
    REQUIRE(r.completed);
    uint32_t untouched = 0;  // 4-byte words still 0xEEEEEEEE: no stored value is
    for (size_t i = 0; i < bufs.a.size(); i += 4) untouched += std::memcmp(bufs.a.data() + i, "\xEE\xEE\xEE\xEE", 4) == 0;
    CHECK(untouched == 0);  // every byte of the 16 blocks written
  }
}

TEST_CASE("memory model: the traced CTA's loads hit its L1 at the L1 latency, miss to L2 at the L2 latency",
          "[model][timing]") {
  // The probes' pointer chase, traced (the predictions' CTA): 8 KiB of 128-B lines stays in L1
  // after the warm-up; 4 MiB does not fit it.
  const auto chase = [](uint64_t footprint, uint32_t warm, uint32_t hops) {
    std::vector<uint8_t> a(footprint, 0);
    const uint64_t lines = footprint / 128;
    for (uint64_t i = 0; i < lines; ++i) {  // line i -> line (i + 17) mod lines: a cycle over all
      const uint64_t to = ((i + 17) % lines) * 128;
      std::memcpy(a.data() + i * 128, &to, 8);
    }
    model::GemmBuffers bufs;
    bufs.a = std::move(a);
    bufs.c.assign(32 * kernels::kTimingOutBytes, 0);
    model::SimOptions opt;  // traced
    REQUIRE(model::simulate(kernels::build_global_chase_probe(warm, hops), bufs, opt).completed);
    uint64_t cycles = 0;
    std::memcpy(&cycles, bufs.c.data(), 8);
    return double(cycles) / hops;
  };
  const double l1 = chase(8192, 64, 256), l2 = chase(4u << 20, 0, 256);
  CHECK(l1 == Approx(model::timing::kH100Cta.l1_latency).margin(6));  // the H100: 43.1
  CHECK(l2 == Approx(model::timing::kGlobalLatency).margin(6));  // the H100: 287-296
}

TEST_CASE("tensor model: a warpgroup's wgmma takes the tensor cores once, and a waited round leaves a gap",
          "[model][timing]") {
  const auto rate = [](uint32_t groups, uint32_t n) {
    const uint32_t reps = 8;
    const ProbeRun r = run_probe(kernels::build_wgmma_probe(groups, n, reps), 128 * groups);
    const uint64_t span = r.span_of_warps(4 * groups);
    return double(groups) * reps * 4 * 2 * 64 * n * 16 / double(span);
  };
  // The H100 (docs/results/2026-11-27-h100-s3): one warpgroup 2876 / 3623 FLOP a cycle at N = 64
  // / 256, two warpgroups 4087 / 4094 (the peak, 4096).
  CHECK(rate(1, 64) == Approx(2876).epsilon(0.1));
  CHECK(rate(1, 256) == Approx(3623).epsilon(0.1));
  CHECK(rate(2, 64) == Approx(4087).epsilon(0.05));
  CHECK(rate(2, 256) == Approx(4094).epsilon(0.05));
}

TEST_CASE("store model: the traced CTA's stores leave its SM at its share of L2's write bandwidth, lines weighed",
          "[model][timing]") {
  // One CTA of 256 threads stores 16 blocks of 4 KiB: 16-byte lanes (a warp-store of 4 whole
  // lines) and 8-byte lanes into 8 lines a store (the epilogue's pattern: one sector in each, 32
  // bytes a sector, every sector whole in the end). The second weighs each of the 3 lines beyond
  // one a 128 bytes store_line_bytes more: 1.59 of the first, as the probes l2_write_bw_scattered
  // and l2_write_bw read on the H100 (2542 and 4035 GB/s).
  const auto cycles_of = [](bool scattered) {
    model::GemmBuffers bufs;
    bufs.a.assign(16 * 4096, 0);
    bufs.c.assign(256 * kernels::kTimingOutBytes, 0);
    model::SimOptions opt;  // traced
    REQUIRE(model::simulate(kernels::build_store_stream_probe(1, 4, 16, scattered), bufs, opt).completed);
    uint64_t cycles = 0;
    std::memcpy(&cycles, bufs.c.data(), 8);  // thread 0's timed region: all of the CTA's stores
    return double(cycles);
  };
  const model::timing::CtaFigures& f = model::timing::kH100Cta;
  const double whole = 16.0 * 4096 / f.store_bytes_per_cycle;
  const double scattered_weight = model::timing::store_weight(f, 256, 8) / 256;
  CHECK(scattered_weight == Approx(4035.0 / 2542.0).epsilon(0.01));
  const double streamed = cycles_of(false), scattered = cycles_of(true);
  CHECK(streamed > 0.9 * whole);
  CHECK(streamed < 1.2 * whole);
  CHECK(scattered > 0.9 * whole * scattered_weight);
  CHECK(scattered < 1.2 * whole * scattered_weight);
}

TEST_CASE("prediction: L2 serves a wave's distinct lines at its bandwidth and shared ones faster",
          "[model][timing]") {
  // 16 x 16 tiles of 128 x 128, K = 4096, 128 at a time: each wave of 8 tile rows reads 8 A panels
  // and 16 B panels, though its 128 CTAs read 256 panels between them.
  model::timing::GemmFacts g;
  g.tiles_m = g.tiles_n = 16;
  g.tile_rows = g.tile_cols = 128;
  g.m = g.n = 2048;
  g.k = 4096;
  const double panel = 128.0 * 4096 * 2;
  CHECK(model::timing::distinct_panel_bytes(g, 128) == Approx(2 * (8 + 16) * panel));
  model::timing::CtaCost cta;
  cta.cycles = 1;
  cta.threads = 384;
  cta.smem_bytes = 200000;  // one CTA per SM
  cta.tma_bytes = uint64_t(2 * panel);
  const model::timing::Prediction p = model::timing::predict_gemm(cta, 256, 1e9, model::timing::kH100, g);
  const double per_cycle = 1e9 / p.clock_hz;
  const double shared = p.parts.l2_bytes_per_wave / (model::timing::kH100Desc.l2_shared_read_bandwidth_gbs.value * per_cycle);
  const double distinct =
      p.parts.l2_distinct_bytes_per_wave / (model::timing::kH100Desc.l2_bandwidth_gbs.value * per_cycle);
  CHECK(p.parts.l2_distinct_bytes_per_wave < p.parts.l2_bytes_per_wave / 4);
  CHECK(p.parts.l2 == Approx(std::max(shared, distinct)));
}

TEST_CASE("prediction: later waves of several CTAs an SM read apart, every byte a look-up at L2 bandwidth",
          "[model][timing]") {
  // 64 x 64 tiles of 64 x 64 (step 11's at 4096^3), small CTAs: eight an SM, four waves. The first
  // wave's CTAs read shared panels together; the three after it start as others end.
  model::timing::GemmFacts g;
  g.tiles_m = g.tiles_n = 64;
  g.tile_rows = g.tile_cols = 64;
  g.m = g.n = g.k = 4096;
  model::timing::CtaCost cta;
  cta.cycles = 1;
  cta.threads = 128;
  cta.smem_bytes = 16 * 1024;
  cta.registers_per_thread = 58;
  cta.tma_bytes = uint64_t(2 * 64 * 4096 * 2);
  const auto& d = model::timing::kH200Desc;
  const model::timing::Prediction p = model::timing::predict_gemm(cta, 4096, 1e9, model::timing::kH200, g);
  REQUIRE(p.resident == 8);
  REQUIRE(p.waves == 4);
  CHECK(p.parts.l2_apart_waves == Approx(0.75));
  const double per_cycle = 1e9 / p.clock_hz;
  const double together = std::max(p.parts.l2_distinct_bytes_per_wave / (d.l2_bandwidth_gbs.value * per_cycle),
                                   p.parts.l2_bytes_per_wave / (d.l2_shared_read_bandwidth_gbs.value * per_cycle));
  const double apart = p.parts.l2_bytes_per_wave / (d.l2_bandwidth_gbs.value * per_cycle);
  CHECK(apart > 1.5 * together);
  CHECK(p.parts.l2 == Approx(0.25 * together + 0.75 * apart));
  CHECK(std::string(p.parts.bound) == "L2");
  // One wave (2048^3's 1024 tiles fit in 132 x 8): every read together, as before.
  g.tiles_m = g.tiles_n = 32;
  g.m = g.n = 2048;
  const model::timing::Prediction one = model::timing::predict_gemm(cta, 1024, 1e9, model::timing::kH200, g);
  CHECK(one.waves == 1);
  CHECK(one.parts.l2_apart_waves == 0);
}

TEST_CASE("occupancy: the register file limits co-resident CTAs by warps' whole allocation units",
          "[model][timing]") {
  using model::timing::cta_limit;
  using model::timing::ctas_by_registers;
  const model::timing::MachineDesc& h100 = model::timing::kH100Desc;
  // 168 registers x 32 = 5376 = 21 units of 256; 12 warps hold 64512 of 65536: one CTA.
  CHECK(ctas_by_registers(h100, 384, 168) == 1);
  // 128 x 32 = 4096 per warp, 8 warps: 32768, two CTAs.
  CHECK(ctas_by_registers(h100, 256, 128) == 2);
  // 100 x 32 = 3200 rounds up to 3328 (13 units): 8 warps take 26624, two CTAs (not 2.56).
  CHECK(ctas_by_registers(h100, 256, 100) == 2);
  // Not known: the register file does not limit (the CTA slots do).
  CHECK(ctas_by_registers(h100, 256, 0) == 32);
  // More than ptxas ever gives is counted as the most it gives (255: 8160 -> 8192 per warp).
  CHECK(ctas_by_registers(h100, 128, 300) == ctas_by_registers(h100, 128, 255));
  CHECK(ctas_by_registers(h100, 128, 255) == 2);

  // The least of threads, shared memory, registers and slots, named.
  auto l = cta_limit(h100, 256, 4096, 128);
  CHECK(l.ctas == 2);
  CHECK(std::string(l.resource) == "registers");
  l = cta_limit(h100, 256, 4096, 0);  // threads: 2048 / 256
  CHECK(l.ctas == 8);
  CHECK(std::string(l.resource) == "threads");
  l = cta_limit(h100, 128, 100000, 32);  // 233472 / 101024
  CHECK(l.ctas == 2);
  CHECK(std::string(l.resource) == "shared memory");

  // The prediction's waves follow: two CTAs per SM by registers make 264 CTAs one wave; 300
  // registers (255) on 384 threads leave one CTA per SM and two waves.
  model::timing::CtaCost cta;
  cta.cycles = 1000;
  cta.threads = 256;
  cta.smem_bytes = 4096;
  cta.registers_per_thread = 128;
  const model::timing::Prediction two = model::timing::predict_gemm(cta, 264, 1e12);
  CHECK(two.ctas_per_sm == 2);
  CHECK(std::string(two.occupancy_bound) == "registers");
  CHECK(two.waves == 1);
  cta.registers_per_thread = 0;
  const model::timing::Prediction eight = model::timing::predict_gemm(cta, 264, 1e12);
  CHECK(eight.ctas_per_sm == 8);
  CHECK(eight.resident == 2);  // 264 CTAs over 132 SMs need only two
}

TEST_CASE("prediction: co-resident CTAs take turns at the SM's busiest unit: in step at issue, drifting at the tensor cores",
          "[model][timing]") {
  // A CTA alone: 1000 cycles, 500 of them issuing (2000 warp-instructions over 4 schedulers).
  model::timing::CtaCost cta;
  cta.cycles = 1000;
  cta.warp_instructions = 2000;
  cta.threads = 128;
  cta.smem_bytes = 100000;  // two CTAs an SM
  const model::timing::Prediction two = model::timing::predict_gemm(cta, 264, 1e9);
  REQUIRE(two.resident == 2);
  // Bound by issue, the two run in step (probes coresident_issue_*): the first takes its 1000
  // cycles and the second adds its 500 at the schedulers.
  CHECK(two.parts.cta_alone == Approx(1500));
  CHECK(std::string(two.parts.bound) == "latency");
  CHECK(two.parts.issue == Approx(1000));  // the unit's own total stays a part of its own
  // Bound by the tensor cores, they drift apart: exact MVA, delay Z = 500, service D = 500, two
  // customers: R1 = 500, Q1 = 500/1000 = 0.5; R2 = 500 x 1.5 = 750: a wave takes Z + R2 = 1250
  // cycles, between one CTA's 1000 (all of the second hidden) and the 2000 of one after the other.
  cta.warp_instructions = 40;
  cta.tensor_busy_cycles = 500;
  CHECK(model::timing::predict_gemm(cta, 264, 1e9).parts.cta_alone == Approx(1250));
  // One CTA an SM: its own time.
  const model::timing::Prediction one = model::timing::predict_gemm(cta, 132, 1e9);
  REQUIRE(one.resident == 1);
  CHECK(one.parts.cta_alone == Approx(1000));
  // A unit the CTA never waits for leaves the CTAs their own time: nothing to queue for.
  cta.warp_instructions = 0;
  cta.tensor_busy_cycles = 0;
  CHECK(model::timing::predict_gemm(cta, 264, 1e9).parts.cta_alone == Approx(1000));
}

TEST_CASE("probes: co-resident CTAs of a SIMT K loop, and the IMAD pipe's half rate", "[model][timing]") {
  // The co-resident probe on the model, one CTA alone, as gemmscope_timing_probes runs it: every
  // round's copy, barriers and ld.shared.v4 feeding FFMAs; the prediction for two CTAs an SM
  // adds the second's turn at the L1's data path (in step: timing.cpp, co_resident_cycles).
  const ir::Kernel k = kernels::build_coresident_probe(264, 8, 100 * 1024, 8, 8, 32);
  model::GemmBuffers bufs;
  bufs.a.assign(4 * 256 * 16, 0);
  bufs.c.assign(264 * 256 * kernels::kTimingOutBytes, 0);
  model::SimOptions opt;
  opt.only_traced_cta = true;
  opt.fast_forward = false;
  const model::SimResult s = model::simulate(k, bufs, opt);
  REQUIRE(s.completed);
  const model::timing::CtaCost& cost = s.stats.traced_cost;
  // 8 warps x 32 rounds x (8 loads of 4 wavefronts + the copy's 4 + its 4-line load) at least.
  CHECK(cost.smem_wavefronts >= 8u * 32 * (8 * 4 + 4));
  const model::timing::Prediction two = model::timing::predict_gemm(cost, 264, 1.0);
  REQUIRE(two.resident == 2);
  CHECK(two.parts.cta_alone == Approx(double(cost.cycles) + two.parts.l1_data() / 2).epsilon(1e-9));
  // IMAD: 32 warps of independent chains issue 2 a cycle per SM, not 4 (probe imad_issue_32warps:
  // 2.00 on the H100 and the H200, machine figure imad_pipe_rate).
  const ir::Kernel imad = kernels::build_chain_probe(ChainOp::imad, 1, 32, 4, 64, 2);
  const ProbeRun r = run_probe(imad, 32 * 32);
  const uint64_t span = r.span_of_warps(32);
  const double per_cycle = 32.0 * 4 * 64 * 2 / double(span);
  CHECK(per_cycle == Approx(model::timing::kSm.imad_pipe_rate.value).epsilon(0.05));
}
