// The clock a prediction is at (timing::sustained_clock): where what a kernel's loads draw (its
// tensor cores' busy share, its bytes through L2 and to and from HBM) meets the card's power
// limit, each load's weight from a probe held at the limit (machines.hpp), and predict_gemm
// settling on the clock of its own traffic.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/model/machines.hpp"
#include "engine/model/timing.hpp"

using namespace gs;

TEST_CASE("clock: a tensor-core kernel's clock is where what its loads draw meets the power limit, each load's draw from a probe", "[model][timing]") {
  using model::timing::ClockLoad;
  using model::timing::sustained_clock;
  const model::timing::MachineDesc& h100 = model::timing::kH100Desc;
  const model::timing::MachineDesc& h200 = *model::timing::kH200.desc;
  CHECK(sustained_clock(h100, ClockLoad{.hbm_gbs = 1000}).mhz == Approx(h100.clock_no_tensor_mhz.value));
  for (const model::timing::MachineDesc* d : {&h100, &h200}) {
    // Each probe's own load gives back the clock it held: the wgmmas alone, with the L2 probe's
    // streaming (its sum is the unit), with the HBM probe's (its bytes pass L2 too).
    const ClockLoad alone{.tensor_cores = true, .tensor_share = 1.0};
    CHECK(sustained_clock(*d, alone).mhz == Approx(d->clock_tensor_alone_mhz.value));
    const ClockLoad l2{.tensor_cores = true, .tensor_share = d->tensor_l2_busy_share.value,
                       .l2_gbs = d->tensor_l2_stream_gbs.value};
    CHECK(sustained_clock(*d, l2).mhz == Approx(d->clock_tensor_l2_mhz.value));
    CHECK(sustained_clock(*d, l2).draw == Approx(1.0));
    const ClockLoad hbm{.tensor_cores = true, .tensor_share = d->tensor_hbm_busy_share.value,
                        .l2_gbs = d->tensor_hbm_stream_gbs.value, .hbm_gbs = d->tensor_hbm_stream_gbs.value};
    CHECK(sustained_clock(*d, hbm).mhz == Approx(d->clock_tensor_hbm_mhz.value));
    // The tensor cores and the streaming slowed together (the `_pause` probes): the draw falls in
    // proportion, the clock rises as its power -1/exponent, up to the ceiling of tensor cores that
    // draw little power.
    ClockLoad part = l2;
    part.tensor_share *= 0.8;
    part.l2_gbs *= 0.8;
    CHECK(sustained_clock(*d, part).draw == Approx(0.8));
    CHECK(sustained_clock(*d, part).mhz ==
          Approx(d->clock_tensor_l2_mhz.value * std::pow(0.8, -1.0 / d->clock_power_exponent.value)));
    part.tensor_share = 0.1;
    part.l2_gbs = 0;
    CHECK(sustained_clock(*d, part).mhz == Approx(d->clock_sustained_mhz.value));
    CHECK_THAT(sustained_clock(*d, part).basis, Catch::Contains("no higher than the clock of tensor cores"));
    CHECK(sustained_clock(*d, ClockLoad{.tensor_cores = true}).mhz == Approx(d->clock_sustained_mhz.value));
    // More of any load, a lower clock; HBM's bytes draw more than L2's alone.
    ClockLoad more = l2;
    more.l2_gbs *= 1.5;
    CHECK(sustained_clock(*d, more).mhz < sustained_clock(*d, l2).mhz);
    more = l2;
    more.hbm_gbs = 1000;
    CHECK(sustained_clock(*d, more).mhz < sustained_clock(*d, l2).mhz);
    // The probes in order: FFMA holds more than wgmma alone, which holds more than wgmma with L2
    // streaming, which holds more than wgmma with HBM streaming.
    CHECK(d->clock_no_tensor_mhz.value > d->clock_tensor_alone_mhz.value);
    CHECK(d->clock_tensor_alone_mhz.value > d->clock_tensor_l2_mhz.value);
    CHECK(d->clock_tensor_l2_mhz.value > d->clock_tensor_hbm_mhz.value);
    CHECK_THAT(sustained_clock(*d, l2).basis, Catch::Contains("bench --sustain 2000"));
    CHECK_THAT(std::string(d->clock_tensor_l2_mhz.source), Catch::Contains("sm_clock_under_wgmma_streamed_l2_matched_capped"));
    CHECK_THAT(std::string(d->clock_tensor_hbm_mhz.source), Catch::Contains("sm_clock_under_wgmma_streamed_hbm_matched_capped"));
    CHECK_THAT(std::string(d->clock_power_exponent.source), Catch::Contains("sm_clock_under_wgmma_streamed_l2_pause"));
    // Multicast (steps 17-19): bytes L2 reads once and streams into two SMs. Its probe pair
    // (sm_clock_under_wgmma_streamed_l2_handoff_pair/_pairmc, H100 2026-12-07): the same bytes
    // delivered, L2 reading them twice or once, held 1.2% apart. The rule gives the load with half
    // its deliveries as multicast a clock between the two readings of its bytes (all of them L2
    // reads, or half), at l2_read_draw_share of the way from the first; and nothing without one.
    {
      const ClockLoad both{.tensor_cores = true, .tensor_share = 1.0, .l2_gbs = 6400};
      ClockLoad once = both;
      once.l2_gbs = 3200;
      ClockLoad mc = once;
      mc.multicast_gbs = 3200;
      const double f_both = sustained_clock(*d, both).mhz, f_once = sustained_clock(*d, once).mhz;
      const double f_mc = sustained_clock(*d, mc).mhz;
      CHECK(f_both < f_mc);
      CHECK(f_mc < f_once);
      const double draw_both = sustained_clock(*d, both).draw, draw_once = sustained_clock(*d, once).draw;
      CHECK(sustained_clock(*d, mc).draw ==
            Approx(draw_both - d->l2_read_draw_share.value * (draw_both - draw_once)));
      CHECK_THAT(sustained_clock(*d, mc).basis, Catch::Contains("more multicast delivers"));
      CHECK_THAT(sustained_clock(*d, both).basis, !Catch::Contains("multicast"));
      CHECK_THAT(std::string(d->l2_read_draw_share.source), Catch::Contains("_handoff_pairmc_capped"));
    }
    // cp.async's bytes: its probe's own load (the copies alone, no tensor cores busy) gives back
    // the clock it held, and the same bytes a second through cp.async draw more than through the
    // TMA (the L2 term); they are of l2_gbs, never more than it.
    const ClockLoad copies{.tensor_cores = true, .l2_gbs = d->cp_async_l2_stream_gbs.value,
                           .cp_async_gbs = d->cp_async_l2_stream_gbs.value};
    CHECK(sustained_clock(*d, copies).mhz == Approx(d->clock_cp_async_l2_mhz.value));
    CHECK_THAT(sustained_clock(*d, copies).basis, Catch::Contains("copied by cp.async"));
    ClockLoad tma = copies;
    tma.cp_async_gbs = 0;
    // (1.38 times on the H100 by its probes and exponent, 2026-12-06; 1.7 by the exponent before.)
    CHECK(sustained_clock(*d, tma).draw < 0.8 * sustained_clock(*d, copies).draw);
    ClockLoad over = copies;
    over.cp_async_gbs *= 2;
    CHECK(sustained_clock(*d, over).draw == Approx(sustained_clock(*d, copies).draw));
    // Copies in rows of 64 bytes (a line each 64 bytes, step 10's) draw more a byte than whole
    // lines: their probe held the whole lines' clock at 0.82 of their bytes a second. The rule
    // gives back the probes it came from (sm_clock_under_cp_async_l2_rows64_*: 1733 and 1719 MHz
    // at 9282 and 9201 GB/s; the contiguous copies 1734 and 1746 at 11178 and 11260) within 1.5%.
    ClockLoad rows = copies;
    rows.cp_async_lines_per_byte = 1.0 / 64;
    const double factor = 1.0 + d->cp_async_line_bytes.value / 128;
    CHECK(sustained_clock(*d, rows).draw == Approx(sustained_clock(*d, copies).draw * factor));
    CHECK_THAT(sustained_clock(*d, rows).basis, Catch::Contains("a line each 64 bytes"));
    CHECK_THAT(sustained_clock(*d, copies).basis, !Catch::Contains("a line each"));
    rows.l2_gbs = rows.cp_async_gbs = d->cp_async_l2_stream_gbs.value / 1.233;
    CHECK(sustained_clock(*d, rows).mhz == Approx(d->clock_cp_async_l2_mhz.value).epsilon(0.015));
  }
  CHECK_THAT(std::string(h100.clock_cp_async_l2_mhz.source), Catch::Contains("sm_clock_under_cp_async_l2_capped"));
  CHECK_THAT(std::string(h100.cp_async_line_bytes.source), Catch::Contains("sm_clock_under_cp_async_l2_rows64"));
  CHECK_THAT(sustained_clock(h200, ClockLoad{.tensor_cores = true, .tensor_share = 0.25}).basis,
             Catch::Contains("busy 25% of the time"));
  // The B200's clocks are its rated clock, unconfirmed: every load holds it.
  const model::timing::MachineDesc& b200 = *model::timing::kB200.desc;
  CHECK(sustained_clock(b200, ClockLoad{.tensor_cores = true, .tensor_share = 1, .l2_gbs = 20000, .hbm_gbs = 8000}).mhz ==
        Approx(b200.clock_rated_mhz.value));
  CHECK(sustained_clock(b200, ClockLoad{.tensor_cores = true, .tensor_share = 1, .l2_gbs = 20000, .cp_async_gbs = 20000})
            .mhz == Approx(b200.clock_rated_mhz.value));
  CHECK_THAT(std::string(b200.clock_run), Catch::Contains("UNCONFIRMED"));

  // A tensor-bound wave whose A and B come from HBM: the prediction settles on the clock of its
  // own traffic (bytes over the wave's time at that clock), and says why.
  model::timing::CtaCost cta;
  cta.cycles = 100000;
  cta.tensor_busy_cycles = 100000;
  cta.tma_bytes = 8u << 20;
  cta.threads = 384;
  cta.smem_bytes = 200000;
  model::timing::GemmFacts g;
  g.tiles_m = 64;
  g.tiles_n = 64;
  g.tile_rows = g.tile_cols = 128;
  g.m = g.n = 8192;
  g.k = 8192;
  const model::timing::Prediction p = model::timing::predict_gemm(cta, 4096, 1e12, model::timing::kH100, g);
  REQUIRE(p.parts.hbm_bytes_per_wave > 0);
  const double gbs = (p.parts.hbm_bytes_per_wave + p.parts.store_bytes_per_wave) / (p.cycles_per_wave / p.clock_hz) / 1e9;
  // The share of the time the SMs' tensor cores are busy: the GEMM's FLOP over wgmma's rate.
  const double busy = 1e12 / (double(p.waves) * p.cycles_per_wave * 132 * h100.wgmma_flops_per_cycle.value);
  REQUIRE(busy > 0.0);
  REQUIRE(busy < 1.0);
  const double l2_gbs = p.parts.l2_bytes_per_wave / (p.cycles_per_wave / p.clock_hz) / 1e9;
  CHECK(p.clock_hz / 1e6 ==
        Approx(sustained_clock(h100, ClockLoad{.tensor_cores = true, .tensor_share = busy, .l2_gbs = l2_gbs, .hbm_gbs = gbs})
                   .mhz)
            .margin(1.0));
  CHECK(p.clock_hz / 1e6 < h100.clock_sustained_mhz.value);
  CHECK_THAT(p.clock_basis, Catch::Contains("GB/s to and from HBM"));
  CHECK(p.seconds == Approx((double(p.waves - 1) * p.cycles_per_wave + p.last_wave_cycles) / p.clock_hz + p.launch_seconds));

  // The same CTA doing four times the work in the same time keeps the tensor cores busier: the
  // clock falls.
  const model::timing::Prediction light = model::timing::predict_gemm(cta, 4096, 1e12, model::timing::kH200, g);
  const model::timing::Prediction heavy = model::timing::predict_gemm(cta, 4096, 4e12, model::timing::kH200, g);
  CHECK(heavy.clock_hz < light.clock_hz - 50e6);
}
