// The timing model (engine/model/timing.*, cta.cpp's issue model) against the machine
// description it reads (machines.hpp) and the microbenchmarks that measured it: the model runs
// the same probe kernels (kernels/timing_probes.hpp) and must show what the H100 showed (the probe
// kernels themselves, assembled and run: test_timing_probes.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <string>

#include "engine/builder/builder.hpp"
#include "engine/model/decode.hpp"
#include "engine/model/machine_ceilings.hpp"
#include "engine/model/model.hpp"
#include "engine/model/timing.hpp"
#include "kernels/registry.hpp"
#include "kernels/timing_probes.hpp"
#include "run/sim_job.hpp"
#include "tests/model/probe_run.hpp"

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

TEST_CASE("issue model: a conversion between integer types waits an ALU latency, one of a float an SFU's", "[model][timing]") {
  // ptxas emits no instruction for a zero-extension (step 19's descriptors' low words,
  // docs/results/2026-12-07-step19/call3/sass-n.txt): it is a move at most, never the SFU's.
  builder::Builder b("cvt_latency", ir::Arch::sm_90a);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  builder::Reg tid = b.special(ir::Special::tid_x, "tid");
  builder::Reg wide = b.cvt(ir::Type::u64, tid, ir::Rounding::none, "wide");
  builder::Reg narrow = b.cvt(ir::Type::u32, wide, ir::Rounding::none, "narrow");
  builder::Reg f = b.cvt(ir::Type::f32, narrow, ir::Rounding::rn, "f");
  builder::Reg back = b.cvt(ir::Type::u32, f, ir::Rounding::rzi, "back");
  b.mov(ir::Type::u32, back, "kept");
  b.ret();
  const ir::Kernel k = b.finish();
  const model::Program p = model::decode_program(k);
  const auto latency_of = [&](const char* name) {
    for (size_t i = 0; i < k.insts.size(); ++i)
      if (k.insts[i].op == ir::Op::cvt && k.insts[i].ndst > 0 && k.regs.at(k.insts[i].operands[0].id).name == name)
        return uint32_t(p.insts[i].result_latency);
    FAIL("no cvt into " << name);
    return 0u;
  };
  CHECK(latency_of("wide") == model::timing::kAluLatency);
  CHECK(latency_of("narrow") == model::timing::kAluLatency);
  CHECK(latency_of("f") == model::timing::kSfuLatency);
  CHECK(latency_of("back") == model::timing::kSfuLatency);
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

TEST_CASE("tensor model: an mma.sync holds the SM's tensor cores a quarter of its sub-partition's time",
          "[model][timing]") {
  // The prediction's tensor-core part (Breakdown::tensor) and the clock rule's busy share read the
  // SM's share: m16n8k16's 4096 FLOP at the SM's measured rate, 1.5 cycles on the H100 (each
  // sub-partition's tensor core 6). Until 2026-12-07 it was counted in whole cycles of the SM, 2.
  model::GemmBuffers bufs;
  bufs.c.assign(size_t(256) * kernels::kTimingOutBytes, 0);
  model::SimOptions opt;
  opt.trace = false;
  const model::SimResult r = model::simulate(kernels::build_chain_probe(ChainOp::mma_sync, 1, 8, 8, 8, 8), bufs, opt);
  REQUIRE(r.completed);
  REQUIRE(r.stats.mma_ops > 0);
  const model::timing::CtaCost& cost = r.stats.traced_cost;
  CHECK(cost.tensor_busy_cycles == 0);
  CHECK(cost.tensor_cycles() ==
        Approx(double(r.stats.mma_ops) * 4096 / model::timing::kMmaSyncFlopsPerCycle).epsilon(0.001));
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
  // copy engine at the H200's share of L2 (its probe tma_gemm32_mma0: 16024 GB/s shared against the H100's 12047).
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

TEST_CASE("prediction: a cluster whose CTAs release stages in one another goes at its slowest CTA's pace",
          "[model][timing]") {
  // A CTA bound by its own time (one an SM, its tensor cores busy less than its cycles).
  model::timing::CtaCost cta;
  cta.cycles = 100000;
  cta.tensor_busy_cycles = 50000;
  cta.threads = 384;
  cta.smem_bytes = 227 * 1024;
  cta.cluster_ctas = 2;
  const model::timing::Prediction own = model::timing::predict_gemm(cta, 128, 1e12);
  CHECK(own.cluster_coupling == 0);
  CHECK(own.coupling_basis.empty());
  cta.peer_released = true;
  const model::timing::Prediction pair = model::timing::predict_gemm(cta, 128, 1e12);
  const double coupling = model::timing::kH100Desc.pair_coupling.value;
  CHECK(pair.cluster_coupling == Approx(coupling));
  CHECK(pair.parts.cta_alone == Approx(own.parts.cta_alone * (1 + coupling)));
  CHECK_THAT(pair.coupling_basis, Catch::Contains("clusters of 2") && Catch::Contains("pair_coupling"));
  // Four CTAs wait for the slowest of four: the expected maximum of four normal draws over two's.
  cta.cluster_ctas = 4;
  const model::timing::Prediction four = model::timing::predict_gemm(cta, 120, 1e12);
  CHECK(model::timing::expected_max_over_pair(2) == Approx(1.0));
  CHECK(model::timing::expected_max_over_pair(4) == Approx(1.0294 / 0.5642));
  CHECK(model::timing::expected_max_over_pair(1) == 0);
  CHECK(four.cluster_coupling == Approx(coupling * 1.0294 / 0.5642));
  CHECK_THAT(four.coupling_basis, Catch::Contains("the expected slowest of 4"));
  // A launch of single CTAs has nobody to wait for, whatever it arrives on.
  cta.cluster_ctas = 1;
  CHECK(model::timing::predict_gemm(cta, 128, 1e12).cluster_coupling == 0);
}

TEST_CASE("loads: steps 17-19 release each stage in both CTAs of a pair, step 16 in its own", "[model][timing]") {
  for (const char* id : {"hopper_fewer_arrivals", "hopper_cluster_multicast", "hopper_stmatrix_epilogue"}) {
    INFO(id);
    const run::SimReport r = run::run_sim(
        {.kernel_id = id, .shape = {1024, 1024, 512}, .only_traced_cta = true, .machine = &model::timing::kH100});
    REQUIRE(r.result.completed);
    const bool paired = std::string(id) != "hopper_fewer_arrivals";
    CHECK(r.result.stats.traced_cost.peer_released == paired);
    CHECK(r.result.stats.prediction.cluster_coupling == (paired ? Approx(model::timing::kH100Desc.pair_coupling.value)
                                                                : Approx(0.0)));
    // Each CTA of a pair loads half of B's box into both: what its multicasts delivered to the
    // peer is that half, a third of its stage's bytes it asked L2 for (A's 16 KiB and half of B's
    // 32), so the clock counts it (sustained_clock's multicast term) and step 16 has none.
    const model::timing::CtaCost& cost = r.result.stats.traced_cost;
    CHECK(cost.tma_multicast_extra_bytes == (paired ? cost.tma_bytes / 2 : 0u));
    CHECK((r.result.stats.prediction.clock_basis.find("multicast") != std::string::npos) == paired);
  }
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

TEST_CASE("loads: in the later waves of several CTAs an SM only a panel's first reader waits for HBM",
          "[model][timing]") {
  using namespace model::timing;
  // Step 12's 8192^3 on an H100: 64 x 64 tiles of 128x128, K 8192, 3 CTAs an SM, 396 at once.
  GemmFacts g;
  g.tile_rows = g.tile_cols = 128;
  g.tiles_m = g.tiles_n = 64;
  g.m = g.n = g.k = 8192;
  const double kept = kH100Desc.l2_kept_bytes.value;
  const WaveLoads w = wave_loads(g, 396, 4096, 3, kept);
  CHECK(w.together == Approx(hbm_share_of_panels(g, 396, kept)));
  // 11 waves (4096 / 396 rounded up): the later 10 read apart.
  CHECK(w.apart == Approx(10.0 / 11.0));
  // Every tile reads its A and B panels (256 rows of K): of those bytes, HBM brings what
  // hbm_read_bytes counts.
  const double reads = 4096.0 * 256.0 * 8192.0 * 2.0;
  CHECK(w.first_reader == Approx(hbm_read_bytes(g, 396, kept) / reads));
  CHECK(w.first_reader < w.together);
  CHECK(w.share == Approx(w.together / 11.0 + w.first_reader * 10.0 / 11.0));
  // One wave, or one CTA an SM (its waves stay in step, as the persistent steps' one wave does):
  // every reader waits together, the share of the first wave alone.
  for (const WaveLoads& one : {wave_loads(g, 396, 396, 3, kept), wave_loads(g, 132, 4096, 1, kept)}) {
    CHECK(one.apart == 0.0);
    CHECK(one.share == Approx(one.together));
  }
  // No tiling declared: no HBM share at all.
  CHECK(wave_loads(GemmFacts{}, 396, 4096, 3, kept).share == 0.0);
  // The latency a TMA load waits follows the blended share.
  CHECK(wave_cta_figures(kH100, w.share).tma_latency < wave_cta_figures(kH100, w.together).tma_latency);
}

TEST_CASE("loads: sim says a TMA kernel's loads wait for HBM's share, a kernel without TMA loads the L2 latency",
          "[model][timing]") {
  // Step 12 at 2048^3 on an H100: 256 tiles, 3 CTAs an SM (396 at once): one wave, together.
  const run::SimReport tma = run::run_sim({.kernel_id = "hopper_tile_128",
                                           .shape = {2048, 2048, 2048},
                                           .only_traced_cta = true,
                                           .machine = &model::timing::kH100});
  REQUIRE(tma.result.completed);
  CHECK_THAT(tma.result.stats.prediction.load_basis, Catch::Contains("a TMA load"));
  CHECK_THAT(tma.result.stats.prediction.load_basis, !Catch::Contains("later waves"));
  // Step 02 reads with ld.global: no TMA latency to speak of.
  const run::SimReport simt = run::run_sim({.kernel_id = "simt_coalesced",
                                            .shape = {512, 512, 512},
                                            .only_traced_cta = true,
                                            .machine = &model::timing::kH100});
  REQUIRE(simt.result.completed);
  CHECK(simt.result.stats.traced_cost.tma_bytes == 0);
  CHECK_THAT(simt.result.stats.prediction.load_basis, Catch::Contains("not TMA loads"));
  CHECK_THAT(simt.result.stats.prediction.load_basis, !Catch::Contains("a TMA load"));
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

namespace {
// 64 x 64 tiles of 64 x 64 at 4096^3 (steps 09's and 11's grid), and a CTA of one warpgroup holding
// `smem_bytes` and `registers` a thread that takes a cycle of its own: its bytes are the test's.
struct TileGrid64 {
  model::timing::GemmFacts g;
  model::timing::CtaCost cta;
};
TileGrid64 tiles_64_at_4096(uint32_t smem_bytes, uint32_t registers) {
  TileGrid64 t;
  t.g.tiles_m = t.g.tiles_n = 64;
  t.g.tile_rows = t.g.tile_cols = 64;
  t.g.m = t.g.n = t.g.k = 4096;
  t.cta.cycles = 1;
  t.cta.threads = 128;
  t.cta.smem_bytes = smem_bytes;
  t.cta.registers_per_thread = registers;
  return t;
}
}  // namespace

TEST_CASE("prediction: cp.async copies of one sector a line are as slow as L2 looks their lines up",
          "[model][timing]") {
  // Step 09's geometry at 4096^3: 64 x 64 tiles of 64 x 64, nine CTAs an SM; a CTA copies its A and
  // B panels with cp.async in rows of 32 bytes (a line each 32 bytes: 2 x 64 x 4096 x 2 / 32 lines).
  // Copied in whole lines (a line each 128 bytes) the same bytes stay a bytes' part.
  auto [g, cta] = tiles_64_at_4096(8 * 1024, 56);
  cta.global_load_bytes = cta.cp_async_bytes = uint64_t(2 * 64 * 4096 * 2);
  const auto& d = model::timing::kH100Desc;
  for (const uint32_t row_bytes : {32u, 128u}) {
    INFO("rows of " << row_bytes << " bytes");
    cta.cp_async_lines = cta.cp_async_bytes / row_bytes;
    const model::timing::Prediction p = model::timing::predict_gemm(cta, 4096, 1e9, model::timing::kH100, g);
    REQUIRE(p.resident == 9);
    const double per_cycle = 1e9 / p.clock_hz;
    const double lines = double(p.wave_ctas) * double(cta.cp_async_lines) / (d.l2_copy_lines_gps.value * per_cycle);
    CHECK(p.parts.l2_copy_lines_per_wave == Approx(double(p.wave_ctas) * double(cta.cp_async_lines)));
    if (row_bytes == 32) {
      CHECK(p.parts.l2_by_copy_lines);
      CHECK(p.parts.l2 == Approx(lines));
      CHECK(std::string(p.parts.bound) == "L2");
    } else {
      CHECK_FALSE(p.parts.l2_by_copy_lines);
      CHECK(p.parts.l2 > lines);
    }
  }
}

TEST_CASE("prediction: later waves of several CTAs an SM read apart, every byte a look-up at L2 bandwidth",
          "[model][timing]") {
  // 64 x 64 tiles of 64 x 64 (step 11's at 4096^3), small CTAs: eight an SM, four waves. The first
  // wave's CTAs read shared panels together; the three after it start as others end.
  auto [g, cta] = tiles_64_at_4096(16 * 1024, 58);
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
