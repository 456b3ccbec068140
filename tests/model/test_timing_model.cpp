// The timing model (engine/model/timing.*, cta.cpp's issue model) against the machine
// description it reads (machines.hpp) and the microbenchmarks that measured it: the model runs
// the same probe kernels (kernels/timing_probes.hpp) and must show what the H100 showed.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "engine/model/model.hpp"
#include "kernels/timing_probes.hpp"

using namespace gs;
using kernels::ChainOp;

namespace {

// A probe run on the model; per-thread records of C (cycles, start, value).
struct ProbeRun {
  std::vector<uint8_t> c;
  uint64_t field(uint32_t thread, uint32_t f) const {
    uint64_t v = 0;
    std::memcpy(&v, c.data() + size_t(thread) * kernels::kTimingOutBytes + 8 * f, 8);
    return v;
  }
};

ProbeRun run_probe(const ir::Kernel& k, uint32_t threads, std::vector<uint8_t> a = {}) {
  model::GemmBuffers bufs;
  bufs.a = std::move(a);
  bufs.c.assign(size_t(threads) * kernels::kTimingOutBytes, 0);
  model::SimOptions opt;
  opt.trace = false;
  const model::SimResult r = model::simulate(k, bufs, opt);
  REQUIRE(r.completed);
  return {bufs.c};
}

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
  uint64_t first = ~uint64_t(0), last = 0;
  for (uint32_t w = 0; w < 8; ++w) {
    first = std::min(first, r.field(32 * w, 1));
    last = std::max(last, r.field(32 * w, 1) + r.field(32 * w, 0));
  }
  const double rate = 8.0 * 8 * 8 * 8 / double(last - first);
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
  CHECK(p.seconds == Approx(2 * 5000 / p.clock_hz));
  CHECK(p.parts.wave_quantization == Approx(0.0));
  // One CTA more: a third wave with one CTA in it.
  const model::timing::Prediction q = model::timing::predict_gemm(cta, 265, 1e12);
  CHECK(q.waves == 3);
  CHECK(q.parts.wave_quantization > 0.3);
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
