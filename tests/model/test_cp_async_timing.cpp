// The time a cp.async takes of the L1 (engine/model/exec_cp_async.cpp): its lines at the tag
// stage, and what of them the data path carries beside the wavefronts it writes, against the
// H200's cp_async_fill probes (docs/results/2026-12-03-lines).
#include <catch2/catch.hpp>

#include "engine/model/machines.hpp"
#include "engine/model/model.hpp"
#include "engine/model/timing.hpp"
#include "kernels/timing_probes.hpp"

using namespace gs;

namespace {

// The traced cycles of the cp.async fill probe (32 warps, `reps` rounds) on machine m.
double fill_probe_cycles(const model::timing::Machine& m, uint32_t reps, uint32_t shared, uint32_t row_bytes,
                         bool sync = false) {
  model::GemmBuffers buf;
  buf.a.assign(size_t(reps) * 32 * 4 * (row_bytes ? 512 / row_bytes * 128 : 512) + 1024, 1);
  buf.c.assign(32 * 32 * kernels::kTimingOutBytes, 0);
  model::SimOptions opt;
  opt.trace = true;
  opt.fast_forward = false;
  opt.machine = &m;
  const model::SimResult r =
      model::simulate(kernels::build_cp_async_fill_probe(32, reps, shared, row_bytes, 1, sync), buf, opt, 0.0);
  REQUIRE(r.completed);
  return double(r.stats.traced_cta_cycles);
}

}  // namespace

TEST_CASE("cp.async: a copy's lines take the L1's tag stage, a line a cycle, and a fifth of a cycle of its data path",
          "[model][timing]") {
  // 32 warps, 4 copies of 512 bytes a round: as 4 whole lines, and as 16 lines of 32 bytes (step
  // 09's copies). Alone the tag stage bounds them (probes cp_async_fill_32warps, _rows32_: 17.7
  // and 71.4 cycles a warp's round on the H200); beside 80 ld.shared the data path does, and
  // the 48 lines more add 0.2 cycles each (_lds80_: 95.0 and 104.5).
  const auto cycles = [](uint32_t reps, uint32_t shared, uint32_t row_bytes) {
    return fill_probe_cycles(model::timing::kH200, reps, shared, row_bytes);
  };
  // Cycles a warp's round, all 32 warps sharing the SM: 8 rounds more, over 8 x 32 (the start
  // and the end cancel).
  const auto round_cycles = [&](uint32_t shared, uint32_t row_bytes) {
    return (cycles(16, shared, row_bytes) - cycles(8, shared, row_bytes)) / 8 / 32;
  };
  const double whole = round_cycles(0, 0), rows = round_cycles(0, 32);
  CHECK(rows / whole == Approx(4.0).epsilon(0.1));  // 64 lines a round against 16
  CHECK(whole == Approx(4 * (4 + model::timing::kL1MissRequestCycles)).epsilon(0.2));
  const double whole80 = round_cycles(80, 0), rows80 = round_cycles(80, 32);
  CHECK(whole80 == Approx(96).epsilon(0.1));  // 80 ld.shared and 16 written wavefronts
  CHECK(rows80 - whole80 == Approx(48 * model::timing::kCpAsyncLinePathCycles).margin(3));
}

TEST_CASE("cp.async fill probe with conflicted ld.shared: each load takes its ways' wavefronts, no race",
          "[model][timing]") {
  // The probe's rows of step 09's mix (bench: cp_async_fill_rows32_lds8_c2_32warps, ...): every
  // ld.shared hits each bank it uses `ways` times, so takes `ways` wavefronts, and the loads
  // and the copies' writes of another layout are as free of races as the conflict-free one's.
  const auto run = [](uint32_t ways) {
    model::GemmBuffers buf;
    buf.a.assign(size_t(2) * 32 * 4 * (512 / 32 * 128) + 1024, 1);
    buf.c.assign(32 * 32 * kernels::kTimingOutBytes, 0);
    model::SimOptions opt;
    opt.fast_forward = false;  // every pass run: the counts below are every load's
    opt.machine = &model::timing::kH200;
    model::SimResult r = model::simulate(kernels::build_cp_async_fill_probe(32, 2, 8, 32, ways), buf, opt, 0.0);
    REQUIRE(r.completed);
    REQUIRE(r.hazards.empty());
    return r;
  };
  const model::SimResult one = run(1), two = run(2), four = run(4);
  // 2 rounds of 8 loads a warp, 32 warps (and warp 0's 16 stores).
  const uint64_t loads = 32 * 2 * 8;
  for (const auto* r : {&one, &two, &four}) REQUIRE(r->stats.smem_accesses >= loads);
  // The copies' writes are the same in the three runs; warp 0's 16 stores take `ways` wavefronts
  // each, as the loads do.
  const auto load_wavefronts = [&](const model::SimResult& r, uint32_t ways) {
    return double(r.stats.smem_wavefronts) - double(one.stats.smem_wavefronts) + double(loads) - 16.0 * (ways - 1);
  };
  CHECK(load_wavefronts(two, 2) == 2.0 * loads);
  CHECK(load_wavefronts(four, 4) == 4.0 * loads);
  CHECK(two.stats.smem_bank_conflicts >= loads);
  CHECK(four.stats.smem_bank_conflicts >= 3 * loads);
  CHECK_THROWS_AS(kernels::build_cp_async_fill_probe(32, 2, 8, 32, 3), std::invalid_argument);
  CHECK_THROWS_AS(kernels::build_cp_async_fill_probe(32, 2, 0, 32, 2), std::invalid_argument);
  // With a bar.sync each round: one barrier a round more a warp, the same loads and copies, no race.
  model::GemmBuffers buf;
  buf.a.assign(size_t(2) * 32 * 4 * (512 / 32 * 128) + 1024, 1);
  buf.c.assign(32 * 32 * kernels::kTimingOutBytes, 0);
  model::SimOptions opt;
  opt.fast_forward = false;
  opt.machine = &model::timing::kH200;
  const model::SimResult synced =
      model::simulate(kernels::build_cp_async_fill_probe(32, 2, 8, 32, 2, true), buf, opt, 0.0);
  REQUIRE(synced.completed);
  CHECK(synced.hazards.empty());
  CHECK(synced.stats.smem_wavefronts == two.stats.smem_wavefronts);
  CHECK(synced.stats.warp_instructions == two.stats.warp_instructions + 32 * 2);
  // In 8 groups of 4 warps, each at its own named barrier: no race either, and each warp meets
  // only its group's barrier (a predicate, its branch and the barrier a round: 2 more than one
  // barrier of all).
  const model::SimResult grouped =
      model::simulate(kernels::build_cp_async_fill_probe(32, 2, 8, 32, 2, true, 8), buf, opt, 0.0);
  REQUIRE(grouped.completed);
  CHECK(grouped.hazards.empty());
  CHECK(grouped.stats.smem_wavefronts == two.stats.smem_wavefronts);
  CHECK(grouped.stats.warp_instructions > synced.stats.warp_instructions);
  CHECK_THROWS_AS(kernels::build_cp_async_fill_probe(32, 2, 8, 32, 2, false, 8), std::invalid_argument);
  CHECK_THROWS_AS(kernels::build_cp_async_fill_probe(32, 2, 8, 32, 2, true, 5), std::invalid_argument);
}

TEST_CASE("cp.async: a sub-partition's ld.shared after its copies wait for their lines to pass the tag stage",
          "[model][timing]") {
  // The MIO queue is in order (Cta::copies_tagged). With a bar.sync each round every warp asks for
  // its copies together and then its loads, so a round is the copies' tag time and then the
  // loads' wavefronts: on the H100 (docs/results/2026-12-06-ctas, call 2) 20 conflict-free loads
  // made the round 2732 cycles against the copies' 2270 alone (cp_async_fill_rows32_lds20_sync_
  // and _rows32_). Without the barrier the warps drift apart, the loads of some pass while the
  // copies of others wait at the tag stage, and the same mix keeps the copies' pace
  // (cp_async_fill_rows32_lds20_c2_32warps: 2334 cycles with loads of twice the wavefronts).
  const auto round_cycles = [](uint32_t shared, bool sync) {
    const auto cycles = [&](uint32_t reps) { return fill_probe_cycles(model::timing::kH100, reps, shared, 32, sync); };
    return (cycles(16) - cycles(8)) / 8;  // all 32 warps' round
  };
  const double copies = round_cycles(0, false);
  CHECK(copies == Approx(128 * (16 + model::timing::kL1MissRequestCycles)).epsilon(0.05));
  // 20 loads of a wavefront, 32 warps: 640 cycles of the data path after the copies.
  CHECK(round_cycles(20, true) - copies == Approx(640).epsilon(0.15));
  CHECK(round_cycles(20, false) == Approx(copies).epsilon(0.05));
}

TEST_CASE("cp.async: co-resident CTAs that copy and read shared memory each add the busier L1 stage and a share of "
          "the other",
          "[model][timing]") {
  // A CTA of 4 warps (as step 09's) whose copies take the tag stage 20k cycles and whose
  // wavefronts take the data path 30k: four of them an SM, in step at the L1 (timing.cpp,
  // co_resident_cycles). The queue's order costs each of the other three its data path's turn
  // and mio_overlap_loss of its tag look-ups (the probes of 8 groups meeting apart lost 12-19% of
  // the shorter stage: machines.hpp).
  model::timing::CtaCost cost;
  cost.cycles = 100000;
  cost.smem_wavefronts = 30000;
  cost.tag_cycles = 20000;
  cost.warp_instructions = 4000;
  cost.threads = 128;
  cost.smem_bytes = 16 * 1024;
  cost.registers_per_thread = 64;
  const model::timing::Machine& h100 = model::timing::kH100;
  const double loss = h100.desc->mio_overlap_loss.value;
  CHECK(loss == Approx(0.158));
  const model::timing::Prediction p = model::timing::predict_gemm(cost, 132 * 4, 1.0, h100);
  REQUIRE(p.resident == 4);
  CHECK(p.parts.l1_tag == Approx(4 * 20000.0));
  CHECK(p.parts.l1_data() == Approx(4 * 30000.0));
  CHECK(p.parts.cta_alone == Approx(100000 + 3 * (30000 + loss * 20000)).epsilon(1e-9));
  CHECK(std::string(p.parts.bound) == "latency");
  // The tag stage the busier: it takes the turn, and the data path's share is lost.
  cost.tag_cycles = 40000;
  const model::timing::Prediction tag_bound = model::timing::predict_gemm(cost, 132 * 4, 1.0, h100);
  CHECK(tag_bound.parts.cta_alone == Approx(100000 + 3 * (40000 + loss * 30000)).epsilon(1e-9));
  // Without copies the data path alone, as before (probes coresident_datapath_*).
  cost.tag_cycles = 0;
  const model::timing::Prediction no_copies = model::timing::predict_gemm(cost, 132 * 4, 1.0, h100);
  CHECK(no_copies.parts.cta_alone == Approx(100000 + 3 * 30000.0).epsilon(1e-9));
  // The stage is a row of the breakdown, inside the SM.
  bool row = false;
  for (const model::timing::PartRow& r : model::timing::breakdown_rows(p.parts))
    if (std::string(r.name) == "L1 tag stage") row = r.sm_unit && r.cycles == p.parts.l1_tag;
  CHECK(row);
}

TEST_CASE("cp.async: the traced CTA counts its copies' tag-stage cycles, fast-forwarded or not", "[model][timing]") {
  // Step 09's copies: 16 lines each (rows of 32 bytes), so every copy takes 16 cycles and its
  // request's fraction of the tag stage.
  constexpr uint32_t reps = 64;
  const ir::Kernel k = kernels::build_cp_async_fill_probe(32, reps, 0, 32);
  model::GemmBuffers buf;
  buf.a.assign(size_t(reps) * 32 * 4 * (512 / 32 * 128) + 1024, 1);
  buf.c.assign(32 * 32 * kernels::kTimingOutBytes, 0);
  const double copies = 32.0 * reps * 4;
  for (const bool ff : {false, true}) {
    INFO("fast-forward " << ff);
    model::SimOptions opt;
    opt.fast_forward = ff;
    const model::SimResult r = model::simulate(k, buf, opt, 0.0);
    REQUIRE(r.completed);
    CHECK(double(r.stats.traced_cost.tag_cycles) ==
          Approx(copies * (16 + model::timing::kL1MissRequestCycles)).epsilon(0.02));
    CHECK(double(r.stats.traced_cost.cp_async_lines) == Approx(copies * 16).epsilon(0.02));
  }
}
