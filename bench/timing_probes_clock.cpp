// The clock the SMs hold under tensor-core load for gemmscope_timing_probes (timing_probes.cpp):
// wgmma flat out on zero and random tiles, then with TMA streaming beside it or feeding it, fresh,
// after bench-like launches and held at the card's power limit (the `_capped` rows), with the
// share of a launch the wgmmas span (the `_span` rows). The machine description's tensor-core
// clocks (clock_sustained_mhz, clock_tensor_l2_mhz, clock_tensor_hbm_mhz) come from these.
#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/probe_figures.hpp"
#include "bench/probe_list.hpp"
#include "engine/ir/bf16.hpp"
#include "kernels/timing_probes.hpp"

namespace gs::probe_list {

using namespace gs::probe_figures;

namespace {

// Random bf16 in [-1, 1) over all of `bytes` (pairs of bytes, little-endian): finite values with
// every mantissa bit in play, as a GEMM's operands.
void fill_random_bf16(std::vector<uint8_t>& bytes, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (size_t i = 0; i + 1 < bytes.size(); i += 2) {
    const uint16_t bits = ir::f32_to_bf16_rne(u(rng));
    bytes[i] = uint8_t(bits);
    bytes[i + 1] = uint8_t(bits >> 8);
  }
}

}  // namespace

void add_wgmma_clock_probes(std::vector<Probe>& probes, uint32_t q, bool quick) {
  // The same with wgmma: every SM's two warpgroups run m64n256k16 flat out, as steps 14-16's
  // consumers do (each CTA's span on its SM's clock over the launch's time), on zero tiles and
  // on random bf16 ones (the bits the tensor cores multiply set their power).
  // One such row: every SM's two warpgroups running wgmma m64nNk16 `reps` rounds, `launches` more
  // launches back to back before the one read.
  const auto wgmma_clock = [&](std::string name, std::string what, uint32_t n, uint32_t reps, bool random,
                               int launches) {
    Probe p{std::move(name), std::move(what), "MHz", kernels::build_wgmma_probe(2, n, reps / (q * q), 132, random), {},
            nullptr, false, launches};
    p.buffers.c.assign(132 * 256 * kernels::kTimingOutBytes, 0);
    p.figure = [](const std::vector<uint8_t>& c, double ms) { return clock_mhz(c, ms, 256); };
    probes.push_back(std::move(p));
  };
  for (const bool random : {false, true})
    wgmma_clock(random ? "sm_clock_under_wgmma_random" : "sm_clock_under_wgmma",
                fmt::format("SM clock with every SM running wgmma m64n256k16 from 2 warpgroups on {} tiles (clock64 "
                            "span / launch time)",
                            random ? "random bf16" : "zero"),
                256, 65536, random, 0);
  // The same on random tiles held at the power limit (101 launches back to back), at N = 256 and
  // N = 64 (2026-12-05): the same FLOP rate, but N = 64 reads 1.6 times the shared-memory operand
  // bytes a FLOP ((64 + N) x 16 x 2 bytes for 2 x 64 x N x 16 FLOP), as steps 11-13's narrower
  // wgmmas do: what those bytes draw (on an H100, nothing measurable: 1594 against 1605 MHz).
  for (const uint32_t n : {256u, 64u})
    wgmma_clock(fmt::format("sm_clock_under_wgmma_n{}_random_capped", n),
                fmt::format("SM clock with every SM running wgmma m64n{}k16 from 2 warpgroups on random bf16 tiles, the "
                            "101st launch back to back (clock64 span / launch time)",
                            n),
                n, 131072 * (256 / n), true, 100);
  // The clock under a GEMM-like load: wgmma as above, while a third warp streams TMA boxes
  // (the tensor cores and the memory system together, as in a GEMM's main loop). Each CTA's
  // clock is its wgmma span in clock64 cycles over the same span in %globaltimer ns.
  // The `_sustained` rows launch the same kernel 20 times more, back to back as bench times a
  // GEMM, and read the last launch's records: the clock after the card has drawn that power for
  // a while (its first launch's clock is the row without the suffix).
  // The `_capped` rows run 101 launches back to back (40-110 ms each on an H100, 4-11 s in all;
  // first written as 20-ms launches for 2 s, measured on 2026-12-05), past NVML's one-second power
  // average, as bench's runs last (its check, cuBLAS, its paired rounds and its power soak): the
  // clock the card's power limit holds. With fewer CTAs (`_capped_99`, `_capped_66`: 3/4 and 1/2
  // of the SMs busy, the others idle) the tensor cores draw less of that power: how the held
  // clock rises as a kernel keeps the tensor cores busy a smaller share of the time.
  struct LoadedClock {
    std::string name;
    std::string what;
    uint32_t stages, rounds, boxes;
    int timed_launches = 0;
    uint32_t reps = 65536;  // wgmma rounds of each warpgroup (4 x m64n256k16 each)
    uint32_t ctas = 132;
    bool streamed = false;  // the wgmmas multiply the ring's new bits (random A) rather than two fixed tiles
    int idle_ms = 0;        // the card left idle this long before the row
    bool mma = true;        // false: the wgmma warps do nothing, the TMA streams alone (its warp's clock)
    bool span = false;      // the figure: the wgmma warps' span as a share of the streaming warp's
    uint32_t pause = 0;     // dependent fmas each wgmma thread pauses for after each repetition (and the streamer alike)
    bool rep_cycles = false;  // the figure: a wgmma thread's cycles a repetition
    bool stream_gbs = false;  // the figure: the bytes a second streamed over the launch (the longer of the two spans)
    uint32_t mma_groups = 2, n = 256;  // the wgmma warpgroups a CTA and their N (build_clock_under_load_probe)
    uint32_t store_every = 0;  // each wgmma thread stores its accumulators after every store_every-th repetition
    uint32_t share = 1;        // CTAs streaming the same boxes together (build_clock_under_load_probe)
    bool distinct_a = false;   // each wgmma warpgroup its own rows of A (build_clock_under_load_probe)
    bool handoff = false;      // the producer/consumer hand-off (build_clock_under_load_probe; reps = rounds x stages)
    bool streamer_unpaused = false;  // the pause is the wgmma threads' alone (ClockLoadOptions::streamer_unpaused)
    kernels::ClockLoadOptions::Pair pair = kernels::ClockLoadOptions::Pair::none;  // the hand-off in CTA pairs
    // The CTA's threads (the wgmma warpgroups and the streaming one) and where its streaming warp's record is.
    uint32_t threads() const { return kernels::clock_under_load_threads(mma_groups); }
    uint32_t streamer() const { return kernels::clock_under_load_streamer(mma_groups); }
  };
  // A span row: the share of one launch of `of`'s kind (streamed, `rounds` rounds of `boxes` boxes)
  // that the wgmma warps span, against the streaming warp's span.
  const auto span_row = [](const char* name, const char* of, uint32_t rounds, uint32_t boxes) {
    return LoadedClock{name, of, 4, rounds, boxes, 0, 65536, 132, true, 0, true, true};
  };
  std::vector<LoadedClock> rows = {
           LoadedClock{"sm_clock_under_wgmma_l2_1", "1 box of 32 KiB in flight from an 8-MiB (L2) footprint", 1,
                       160000, 256},
           LoadedClock{"sm_clock_under_wgmma_l2_4", "4 boxes of 32 KiB in flight from an 8-MiB (L2) footprint", 4,
                       48000, 256},
           LoadedClock{"sm_clock_under_wgmma_hbm", "4 boxes of 32 KiB in flight from a 1-GiB (HBM) footprint", 4, 20000,
                       32768},
           LoadedClock{"sm_clock_under_wgmma_l2_4_sustained",
                       "4 boxes of 32 KiB in flight from an 8-MiB (L2) footprint, the 21st launch back to back", 4,
                       48000, 256, 20},
           LoadedClock{"sm_clock_under_wgmma_hbm_sustained",
                       "4 boxes of 32 KiB in flight from a 1-GiB (HBM) footprint, the 21st launch back to back", 4,
                       20000, 32768, 20},
           // As bench times a GEMM of about 1.5 ms (8192^3 near 750 TFLOP/s): 3 warm-up and 20 timed
           // launches back to back, the clock of the last.
           LoadedClock{"sm_clock_under_wgmma_l2_4_bench",
                       "4 boxes of 32 KiB in flight from an 8-MiB (L2) footprint, launches of about 1.5 ms, the 23rd "
                       "back to back",
                       4, 1875, 256, 22, 2560},
           LoadedClock{"sm_clock_under_wgmma_hbm_bench",
                       "4 boxes of 32 KiB in flight from a 1-GiB (HBM) footprint, launches of about 1.5 ms, the 23rd "
                       "back to back",
                       4, 780, 32768, 22, 2560},
           LoadedClock{"sm_clock_under_wgmma_l2_4_capped",
                       "4 boxes of 32 KiB in flight from an 8-MiB (L2) footprint, the 101st launch back "
                       "to back (launches of 40-110 ms on an H100, 2026-12-05)",
                       4, 48000, 256, 100},
           LoadedClock{"sm_clock_under_wgmma_hbm_capped",
                       "4 boxes of 32 KiB in flight from a 1-GiB (HBM) footprint, the 101st launch back "
                       "to back (launches of 40-110 ms on an H100, 2026-12-05)",
                       4, 20000, 32768, 100},
           LoadedClock{"sm_clock_under_wgmma_l2_4_capped_99",
                       "4 boxes of 32 KiB in flight from an 8-MiB (L2) footprint, 99 CTAs (3/4 of the SMs), the 101st "
                       "launch back to back",
                       4, 48000, 256, 100, 65536, 99},
           LoadedClock{"sm_clock_under_wgmma_l2_4_capped_66",
                       "4 boxes of 32 KiB in flight from an 8-MiB (L2) footprint, 66 CTAs (1/2 of the SMs), the 101st "
                       "launch back to back",
                       4, 48000, 256, 100, 65536, 66},
           // The same with the wgmmas reading the boxes the TMA brings (random bf16 in A), as a GEMM's
           // consumers read each stage: the tensor cores' power on new operands every round.
           LoadedClock{"sm_clock_under_wgmma_streamed_l2_capped",
                       "operands streamed: 4 boxes of 32 KiB in flight from an 8-MiB (L2) footprint, each read by the "
                       "wgmmas, the 101st launch back to back (launches of 40-110 ms on an H100, 2026-12-05)",
                       4, 48000, 256, 100, 65536, 132, true},
           LoadedClock{"sm_clock_under_wgmma_streamed_hbm_capped",
                       "operands streamed: 4 boxes of 32 KiB in flight from a 1-GiB (HBM) footprint, each read by the "
                       "wgmmas, the 101st launch back to back (launches of 40-110 ms on an H100, 2026-12-05)",
                       4, 20000, 32768, 100, 65536, 132, true},
           LoadedClock{"sm_clock_under_wgmma_streamed_l2_capped_99",
                       "operands streamed from an 8-MiB (L2) footprint, 99 CTAs (3/4 of the SMs), the 101st launch "
                       "back to back",
                       4, 48000, 256, 100, 65536, 99, true},
           LoadedClock{"sm_clock_under_wgmma_streamed_l2_capped_66",
                       "operands streamed from an 8-MiB (L2) footprint, 66 CTAs (1/2 of the SMs), the 101st launch "
                       "back to back",
                       4, 48000, 256, 100, 65536, 66, true},
           // What the two draw apart, held at the power limit (2026-12-05): the TMA alone (the wgmma
           // warps idle; the streaming warp's own clock64 over %globaltimer), the wgmmas alone on random
           // tiles (two rounds of boxes, then none); and how much of a streamed launch the wgmmas
           // span (the streaming is sized to outlast them: the rest of the launch is TMA alone).
           LoadedClock{"sm_clock_under_tma_capped",
                       "TMA alone: 4 boxes of 32 KiB in flight from an 8-MiB (L2) footprint, the wgmma warps idle, "
                       "launches of about 80 ms, the 101st back to back (8 s)",
                       4, 48000, 256, 100, 65536, 132, false, 0, false},
           LoadedClock{"sm_clock_under_wgmma_alone_capped",
                       "wgmma alone on random bf16 tiles (2 rounds of TMA boxes, then none), launches of about 40 ms, "
                       "the 101st back to back (4 s)",
                       4, 2, 256, 100},
           span_row("sm_clock_under_wgmma_streamed_l2_span", "sm_clock_under_wgmma_streamed_l2_capped", 48000, 256),
           span_row("sm_clock_under_wgmma_streamed_hbm_span", "sm_clock_under_wgmma_streamed_hbm_capped", 20000, 32768),
           // As a GEMM's main loop runs (2026-12-05, second call): the wgmmas and the streaming together
           // for the whole launch. The streamed rows above spend about half of each launch on the TMA
           // alone (their span: 52% from L2 on an H100), and the power limit averages over about a
           // second, so their clock is a mix; here the streaming's rounds are cut to end when the
           // wgmmas do (the span rows say how near), at the H100's streamed spans (52% of 48000
           // rounds from L2; about 47% of 20000 from HBM, from the two launch times).
           LoadedClock{"sm_clock_under_wgmma_streamed_l2_matched_capped",
                       "operands streamed: 4 boxes of 32 KiB in flight from an 8-MiB (L2) footprint, each read by the "
                       "wgmmas, the streaming ending with the wgmmas (25000 rounds), the 101st launch back to back",
                       4, 25000, 256, 100, 65536, 132, true},
           span_row("sm_clock_under_wgmma_streamed_l2_matched_span", "sm_clock_under_wgmma_streamed_l2_matched_capped",
                    25000, 256),
           LoadedClock{"sm_clock_under_wgmma_streamed_hbm_matched_capped",
                       "operands streamed: 4 boxes of 32 KiB in flight from a 1-GiB (HBM) footprint, each read by the "
                       "wgmmas, the streaming ending with the wgmmas (9500 rounds), the 101st launch back to back",
                       4, 9500, 32768, 100, 65536, 132, true},
           span_row("sm_clock_under_wgmma_streamed_hbm_matched_span", "sm_clock_under_wgmma_streamed_hbm_matched_capped",
                    9500, 32768),
           // The bytes a second each matched row streams over its launch (the longer of the wgmma
           // warps' span and the streamer's), held at the limit as the row itself: what the clock
           // rule's streaming terms are measured in (one fresh launch, at a higher clock, read 9564
           // GB/s on the H100 where the held one streams about 8640: 2026-12-05, call 7).
           LoadedClock{"sm_clock_under_wgmma_streamed_l2_matched_gbs", "sm_clock_under_wgmma_streamed_l2_matched_capped",
                       4, 25000, 256, 100, 65536, 132, true, 0, true, false, 0, false, true},
           LoadedClock{"sm_clock_under_wgmma_streamed_hbm_matched_gbs",
                       "sm_clock_under_wgmma_streamed_hbm_matched_capped", 4, 9500, 32768, 100, 65536, 132, true, 0, true,
                       false, 0, false, true},
           // The clock against the time under load, from rest: 3 s idle, then launches of about
           // 1.5 ms back to back (as bench's rounds at 8192^3; operands streamed from L2), the clock
           // of the last one. Bench's rounds last about 10 ms at 4096^3 and 80 ms at 8192^3, the
           // power soak and the _capped rows 1.3-2 s: where on this curve each sits.
           LoadedClock{"sm_clock_ramp_1", "operands streamed from L2, the 1st launch of about 1.5 ms after 3 s idle",
                       4, 1875, 256, 0, 2560, 132, true, 3000},
           LoadedClock{"sm_clock_ramp_7", "the same, the 7th launch back to back (about 10 ms of load)", 4, 1875, 256,
                       6, 2560, 132, true, 3000},
           LoadedClock{"sm_clock_ramp_20", "the same, the 20th launch (about 30 ms)", 4, 1875, 256, 19, 2560, 132,
                       true, 3000},
           LoadedClock{"sm_clock_ramp_54", "the same, the 54th launch (about 80 ms)", 4, 1875, 256, 53, 2560, 132, true,
                       3000},
           LoadedClock{"sm_clock_ramp_200", "the same, the 200th launch (about 300 ms)", 4, 1875, 256, 199, 2560, 132,
                       true, 3000},
           LoadedClock{"sm_clock_ramp_700", "the same, the 700th launch (about 1 s)", 4, 1875, 256, 699, 2560, 132,
                       true, 3000},
           LoadedClock{"sm_clock_ramp_1400", "the same, the 1400th launch (about 2 s)", 4, 1875, 256, 1399, 2560, 132,
                       true, 3000},
  };
  // A row held at the limit (`kind`, named BASE_capped) and the rows read from one launch of its
  // kind: its cycles a repetition (_rep), its bytes streamed a second (_gbs), the share of the
  // streaming's span the wgmmas run (_span).
  struct Family {
    bool rep = true, gbs = true, span = true;
  };
  const auto family = [&rows](const std::string& base, LoadedClock kind, Family f) {
    kind.name = base + "_capped";
    rows.push_back(kind);
    const auto one_launch = [&](const char* suffix, auto set) {
      LoadedClock r = kind;
      r.name = base + suffix, r.what = base + "_capped";
      set(r);
      rows.push_back(r);
    };
    if (f.rep) one_launch("_rep", [](LoadedClock& r) { r.timed_launches = 0, r.rep_cycles = true; });
    if (f.gbs) one_launch("_gbs", [](LoadedClock& r) { r.stream_gbs = true; });
    if (f.span) one_launch("_span", [](LoadedClock& r) { r.timed_launches = 0, r.span = true; });
  };
  // The matched L2 row's kind (4 boxes of 32 KiB in flight from an 8-MiB footprint, streamed into
  // the wgmmas, the streaming ending with them), held at the limit: the rows below vary one thing.
  const LoadedClock matched{.name = {}, .what = {}, .stages = 4, .rounds = 25000, .boxes = 256, .timed_launches = 100,
                            .reps = 65536, .ctas = 132, .streamed = true};
  // Several CTAs an SM (2026-12-06): steps 10-12, whose clocks the rule gives 1.10-1.24 x too high
  // (H200, 2026-12-05), are the ones that run 2, 8 and 3 CTAs an SM. The matched L2 row's load at
  // N = 128 as one CTA an SM of two wgmma warpgroups (`_n128_`) and as two CTAs of one each
  // (`_n128_2ctas_`, 2 stages each: the same boxes in flight and bytes an SM, the same wgmmas an SM).
  for (const bool two : {false, true}) {
    LoadedClock kind = matched;
    kind.what = fmt::format(
        "operands streamed as the matched L2 row, wgmma m64n128k16 (twice the repetitions), {}, the 101st launch "
        "back to back",
        two ? "two CTAs an SM, each one wgmma warpgroup and 2 boxes in flight" : "one CTA an SM of two wgmma warpgroups, 4 boxes in flight");
    kind.stages = two ? 2u : 4u, kind.reps = 131072, kind.ctas = two ? 264u : 132u, kind.mma_groups = two ? 1u : 2u,
    kind.n = 128;
    family(two ? "sm_clock_under_wgmma_streamed_l2_matched_n128_2ctas" : "sm_clock_under_wgmma_streamed_l2_matched_n128",
           kind, {.span = false});
  }
  // Step 11's wgmma shape (2026-12-06, evening): m64n64k16, a quarter of N = 256's multiply-adds for
  // the same A read from shared memory. The clock rule's wgmma term is N = 256's draw per busy cycle;
  // step 11's SMs hold 1.2 x below what it gives them. Alone on random tiles and as the matched L2
  // row, four times the repetitions (the same multiply-adds if N = 64 keeps N = 256's rate: `_rep`
  // says), one CTA an SM of two warpgroups.
  for (const bool streamed : {false, true}) {
    LoadedClock kind = matched;
    kind.what = streamed ? "operands streamed as the matched L2 row, wgmma m64n64k16 (four times the repetitions), "
                           "the 101st launch back to back"
                         : "wgmma m64n64k16 alone on random bf16 tiles (four times the repetitions of "
                           "sm_clock_under_wgmma_alone_capped), the 101st launch back to back";
    kind.reps = 262144, kind.n = 64, kind.streamed = streamed, kind.rounds = streamed ? 25000u : 2u;
    family(streamed ? "sm_clock_under_wgmma_streamed_l2_matched_n64" : "sm_clock_under_wgmma_alone_n64", kind,
           {.gbs = streamed, .span = streamed});
  }
  // A GEMM's epilogue (2026-12-06): today's H100 holds the persistent steps 4-9% below the clock
  // the rule gives for their tensor cores and streaming, while the matched rows hold theirs. These
  // are the matched L2 row with an epilogue: after every 64th repetition (a 128x256 tile's K of
  // 4096) or 16th (K of 1024) each wgmma thread stores its 128 accumulators with st.global.v4, a
  // warp 512 contiguous bytes an instruction, each tile to its own place (16 tiles a CTA deep,
  // 264 MiB: C goes on to HBM), the tensor cores idle meanwhile as in step 16's epilogue.
  for (const uint32_t every : {64u, 16u}) {
    LoadedClock kind = matched;
    kind.what = fmt::format("operands streamed as the matched L2 row, each wgmma thread storing its 128 accumulators "
                            "(f32) after every {}th repetition, the 101st launch back to back",
                            every);
    kind.store_every = every;
    family(fmt::format("sm_clock_under_wgmma_streamed_l2_matched_store{}", every), kind, {});
  }
  // Shared boxes (2026-12-06): the matched L2 row with the CTAs of a GEMM's wave that read one
  // panel reading each box together (step 16's grouped wave: an A panel read by about 8 CTAs, a B
  // panel by 16), where the matched row has every CTA read its own.
  for (const uint32_t share : {8u, 16u}) {
    LoadedClock kind = matched;
    kind.what = fmt::format("operands streamed as the matched L2 row, {} CTAs reading each box together, the 101st "
                            "launch back to back",
                            share);
    kind.share = share;
    family(fmt::format("sm_clock_under_wgmma_streamed_l2_matched_share{}", share), kind, {.rep = false});
  }
  // Each warpgroup its own A (2026-12-06): the rows above feed both wgmma warpgroups the same A
  // (the fixed tile, or the box's first 64 rows), where a GEMM's consumers each multiply their own
  // 64 rows against the same B. The alone, matched L2 and matched HBM rows (the three the clock
  // rule's wgmma, L2 and HBM terms come from) with warpgroup w reading rows 64w..
  enum class Twoa { alone, l2, hbm };
  for (const Twoa t : {Twoa::alone, Twoa::l2, Twoa::hbm}) {
    LoadedClock kind = matched;
    kind.what = t == Twoa::alone ? "wgmma alone on random bf16 tiles as sm_clock_under_wgmma_alone_capped, each "
                                   "warpgroup its own A tile, the 101st launch back to back"
                : t == Twoa::l2  ? "operands streamed as the matched L2 row, each wgmma warpgroup its own 64 rows of "
                                   "the box as A, the 101st launch back to back"
                                 : "operands streamed as the matched HBM row (9500 rounds from a 1-GiB footprint), each "
                                   "wgmma warpgroup its own 64 rows of the box as A, the 101st launch back to back";
    kind.rounds = t == Twoa::alone ? 2u : t == Twoa::l2 ? 25000u : 9500u;
    kind.boxes = t == Twoa::hbm ? 32768u : 256u;
    kind.streamed = t != Twoa::alone, kind.distinct_a = true;
    const bool streamed = kind.streamed;
    family(t == Twoa::alone ? "sm_clock_under_wgmma_alone_twoa"
           : t == Twoa::l2  ? "sm_clock_under_wgmma_streamed_l2_matched_twoa"
                            : "sm_clock_under_wgmma_streamed_hbm_matched_twoa",
           kind, {.gbs = streamed, .span = streamed});
  }
  // The producer/consumer hand-off (2026-12-06): the rows above run the ring free (the streaming
  // lane refills a stage once its box has landed; the wgmmas read the stage their repetition
  // names without waiting), where a GEMM's consumers wait on each stage's full barrier and release
  // it on an empty one the producer waits on. Both at a box a repetition (16384 rounds of 4 stages
  // for 65536 repetitions, from the matched row's 8-MiB footprint), the bytes the two stream alike:
  // free (`_paced`) and with the hand-off (`_handoff`).
  for (const bool handoff : {false, true}) {
    LoadedClock kind = matched;
    kind.what = handoff ? "operands streamed from L2 at a box a repetition, the wgmmas waiting on each stage's full "
                          "barrier and releasing it on an empty one the streaming lane waits on, the 101st launch back "
                          "to back"
                        : "operands streamed from L2 at a box a repetition, the ring running free (no waits between the "
                          "wgmmas and the streaming lane), the 101st launch back to back";
    kind.rounds = 16384, kind.handoff = handoff;
    family(handoff ? "sm_clock_under_wgmma_streamed_l2_handoff" : "sm_clock_under_wgmma_streamed_l2_paced", kind, {});
  }
  // The hand-off in CTA pairs (2026-12-07): steps 17-19 read the shared operand's box once a pair
  // (multicast), and the clock rule takes the L2 bytes read as what L2 streaming draws, so it gives
  // them a higher clock than step 16 (H100, 2026-12-07: 1423-1446 MHz predicted, 1304-1374
  // counted, step 16 1383 / 1362). The hand-off row's load in clusters of two streaming the same
  // boxes, each stage released in both CTAs: `_pair` each CTA loading the whole box (L2 reads it
  // twice a pair), `_pairmc` each loading one half into both (once a pair); every SM receives the
  // same bytes. If the two hold the same clock, what draws is the bytes delivered, not L2's reads.
  using Pair = kernels::ClockLoadOptions::Pair;
  for (const Pair pair : {Pair::coupled, Pair::multicast}) {
    LoadedClock kind = matched;
    kind.what = pair == Pair::coupled
                    ? "the hand-off row's load in CTA pairs streaming the same boxes, each CTA loading every box itself "
                      "and releasing each stage in both CTAs, the 101st launch back to back"
                    : "the hand-off row's load in CTA pairs streaming the same boxes, each CTA loading one half of "
                      "every box into both (multicast) and releasing each stage in both CTAs, the 101st launch back "
                      "to back";
    kind.rounds = 16384, kind.handoff = true, kind.pair = pair;
    family(pair == Pair::coupled ? "sm_clock_under_wgmma_streamed_l2_handoff_pair"
                                 : "sm_clock_under_wgmma_streamed_l2_handoff_pairmc",
           kind, {});
  }
  // The tensor cores busy a share of the time with L2 streaming at its full rate (2026-12-06): the
  // clock rule scales all that wgmma alone draws by the tensor cores' busy share, and the _pause
  // rows below, which slow the streaming alike, cannot tell that apart from a part every SM draws
  // whatever its tensor cores do. Here only the wgmma threads pause (400 or 800 dependent fmas a
  // repetition: busy about 44% and 26%) while the streaming lane runs free from the matched row's
  // 8-MiB footprint, its rounds sized to span about as long (48000 and 76000 rounds of 4 boxes).
  for (const uint32_t pause : {400u, 800u}) {
    LoadedClock kind = matched;
    kind.what = fmt::format(
        "operands streamed from L2 at the streaming lane's own rate, each wgmma thread pausing {} dependent fmas "
        "after each repetition, the 101st launch back to back",
        pause);
    kind.rounds = pause == 400 ? 48000u : 76000u, kind.pause = pause, kind.streamer_unpaused = true;
    family(fmt::format("sm_clock_under_wgmma_streamed_l2_wgpause{}", pause), kind, {});
  }
  // The tensor cores busy a share of the time (2026-12-05, twenty-fifth session): the matched
  // rows from L2 with each wgmma thread pausing for `pause` dependent fmas after each
  // repetition and the streaming lane as long in all (half the repetitions and rounds: the
  // launches last about as long). The `_rep` rows: a wgmma thread's cycles a repetition in
  // one launch of the same kernel; against the row with no pause, the share of the time the
  // tensor cores are busy (the clock rule's busy term, timing::sustained_clock).
  // The rows of the matched L2 kind at half its repetitions and rounds (the launches last about as
  // long with a pause): with no pause the cycles a repetition only; with one, the clock, the
  // cycles a repetition and (at two of them) the span.
  const auto pause_row = [](std::string name, std::string what, uint32_t pause, int launches, bool rep_cycles,
                            bool span) {
    return LoadedClock{std::move(name), std::move(what), 4, 12500, 256, launches, 32768, 132, true, 0, true, span,
                       pause, rep_cycles};
  };
  rows.push_back(pause_row("sm_clock_under_wgmma_streamed_l2_matched_rep",
                           "sm_clock_under_wgmma_streamed_l2_matched_capped (no pause, half its repetitions)", 0, 0,
                           true, false));
  for (const uint32_t pause : {100u, 200u, 400u, 800u}) {
    const std::string base = fmt::format("sm_clock_under_wgmma_streamed_l2_pause{}", pause);
    rows.push_back(pause_row(base + "_capped",
                             fmt::format("operands streamed from L2 as the matched row, each repetition followed by {} "
                                         "dependent fmas, the streaming slowed alike, the 101st launch back to back",
                                         pause),
                             pause, 100, false, false));
    rows.push_back(pause_row(base + "_rep", base + "_capped", pause, 0, true, false));
    if (pause == 200 || pause == 800) rows.push_back(pause_row(base + "_span", base + "_capped", pause, 0, false, true));
  }
  for (const LoadedClock& l : rows) {
    const uint32_t boxes = quick ? std::min(l.boxes, 16u) : l.boxes;
    // The hand-off's repetitions are its rounds' stages (build_clock_under_load_probe).
    const uint32_t rounds = std::max(l.rounds / (q * q), 2u);
    const uint32_t reps = l.handoff ? rounds * l.stages : std::max(l.reps / (q * q), 1u);
    const uint32_t store_slots = quick ? 1 : 16;  // quick: one tile a CTA (the model's run keeps C small)
    Probe p{l.name,
            l.stream_gbs ? fmt::format("bytes a second the TMA streams over one launch of {}'s kind (the longer of the "
                                       "wgmma warps' and the streamer's %globaltimer spans)",
                                       l.what)
            : l.rep_cycles ? fmt::format("a wgmma thread's clock64 cycles a repetition (4 x m64n{}k16 from {} warpgroup{}) "
                                       "in one launch of {}'s kind",
                                       l.n, l.mma_groups, l.mma_groups == 1 ? "" : "s", l.what)
            : l.span ? fmt::format("share of the launch the wgmmas run: the wgmma warps' span over the streaming "
                                 "warp's in one launch of {}'s kind (%globaltimer spans)",
                                 l.what)
            : !l.mma
                ? fmt::format("SM clock with every SM streaming TMA, {} (the streaming warp's clock64 over globaltimer)",
                              l.what)
                : fmt::format("SM clock with every SM running wgmma m64n{}k16 from {} warpgroup{} on random bf16 "
                              "tiles{}, {} (clock64 over globaltimer)",
                              l.n, l.mma_groups, l.mma_groups == 1 ? "" : "s",
                              l.rounds > 2 ? " while a warp streams TMA" : "", l.what),
            l.stream_gbs ? "GB/s" : l.rep_cycles ? "cycles" : l.span ? "%" : "MHz",
            kernels::build_clock_under_load_probe(l.ctas, reps, l.stages, rounds, boxes, true, l.streamed, l.mma,
                                                  l.pause, l.mma_groups, l.n,
                                                  {.store_every = l.store_every, .store_slots = store_slots,
                                                   .share = l.share, .distinct_a = l.distinct_a,
                                                   .handoff = l.handoff, .streamer_unpaused = l.streamer_unpaused,
                                                   .pair = l.pair}),
            {}, nullptr, false, l.timed_launches, quick ? 0 : l.idle_ms};
    p.make_buffers = [boxes, streamed = l.streamed](model::GemmBuffers& b) {
      b.a.assign(size_t(boxes) * 32768, 1);
      if (streamed) fill_random_bf16(b.a, 29);
    };
    p.buffers.c.assign(size_t(l.ctas) * l.threads() * kernels::kTimingOutBytes +
                           (l.store_every ? kernels::clock_under_load_store_bytes(l.ctas, l.mma_groups, l.n, store_slots) : 0),
                       0);
    // Thread 0's record is a wgmma warp's, the streaming warpgroup's first thread's the streaming
    // warp's: the figure is one record's cycles over its ns (the clock), or the wgmma warp's ns over
    // the streamer's (the span).
    const double cta_bytes = double(std::max(l.rounds / (q * q), 2u)) * l.stages * 32768;
    // The records only: with an epilogue (store_every) C holds the stored tiles after them.
    const size_t records = size_t(l.ctas) * l.threads() * kernels::kTimingOutBytes;
    p.figure = [mma = l.mma, span = l.span, per_rep = l.rep_cycles, reps, gbs = l.stream_gbs, cta_bytes, records,
                stride = size_t(l.threads()), streamer = size_t(l.streamer())](const std::vector<uint8_t>& all, double) {
      const std::vector<uint8_t> c(all.begin(), all.begin() + std::min(all.size(), records));
      const std::vector<uint64_t> cycles = field_of(c, 0), ns = field_of(c, 2);
      if (gbs) {  // every CTA's bytes over the longest span of any CTA's two records
        uint64_t longest = 0;
        size_t ctas = 0;
        for (size_t i = 0; i + stride <= ns.size(); i += stride, ++ctas) longest = std::max({longest, ns[i], ns[i + streamer]});
        return longest ? cta_bytes * double(ctas) / double(longest) : 0.0;  // bytes per ns = GB/s
      }
      if (per_rep) {  // the wgmma threads' (thread 0 of each CTA) cycles over the repetitions
        double sum = 0;
        uint32_t n = 0;
        for (size_t i = 0; i + stride <= cycles.size(); i += stride, ++n) sum += double(cycles[i]) / reps;
        return n ? sum / n : 0.0;
      }
      const size_t below = span || !mma ? streamer : 0;
      const std::vector<uint64_t>& above = span ? ns : cycles;
      const size_t at = span || mma ? 0 : streamer;
      const double scale = span ? 100.0 : 1e3;
      double sum = 0;
      uint32_t n = 0;
      for (size_t i = 0; i + stride <= cycles.size(); i += stride)
        if (ns[i + below] > 0) {
          sum += scale * double(above[i + at]) / double(ns[i + below]);
          ++n;
        }
      return n ? sum / n : 0.0;
    };
    probes.push_back(std::move(p));
  }
}

}  // namespace gs::probe_list

namespace gs::probe_list {

void add_fragment_clock_probes(std::vector<Probe>& probes, uint32_t q) {
  // What an Ampere main loop's parts draw (2026-12-05, twenty-seventh session): step 10 held 1386
  // MHz on an H200 at 335 TFLOP/s, as low as the Hopper steps at 600, where the clock rule's
  // tensor cores (mma.sync counted as wgmma) and L2 streaming say it draws half as much. mma.sync
  // from registers alone does not hold the clock down (sm_clock_under_mma_random_capped: 1810 on an
  // H100). These run step 10's k16 step on every SM's 8 warps without its ring: ldmatrix alone,
  // ldmatrix feeding mma.sync, cp.async from L2 alone, and all three (step 10's bytes a FLOP: 2 KiB
  // copied for 32 mma.sync a warp round, as its 128 x 128 tile reads), each held at the power limit
  // (101 launches back to back) and each with its cycles a round (`_rep`) or bytes a second (`_gbs`).
  // The combined load also as step 10 runs it: two CTAs of 4 warps an SM (its 128 x 128 tile, 200
  // registers a thread), and four of 2, the same warps and work an SM in more CTAs (`_2ctas`,
  // `_4ctas`); and with a bar.sync of the CTA each round as step 10's K step has (`_sync_2ctas`):
  // steps 10-12, the ones whose clocks the rule gives 1.10-1.24 x too high (H200, 2026-12-05), are
  // the ones with several CTAs an SM.
  struct Row {
    const char* name;
    const char* what;
    kernels::FragmentLoad load;
    uint32_t reps;
    uint32_t ctas = 132, warps = 8;
    // What the copies read: 0x01 bytes, or random bf16 in [-1, 1) as the matched L2 wgmma row's TMA
    // streams and a GEMM's A and B hold (`_random`, 2026-12-06): whether the bits the copies carry
    // draw power, as a GEMM's do.
    bool random_data = false;
  };
  constexpr uint32_t kL2 = 8u << 20;
  const char* const kMix =
      "step 10's k16 step (8 ldmatrix.x4, 32 mma.sync) and 4 cp.async.cg of 16 bytes a lane from an 8-MiB (L2) "
      "footprint a warp round";
  const Row rows[] = {
      {"sm_clock_under_ldmatrix", "8 ldmatrix.x4 a warp round from a random bf16 tile, XORed", {true, false, 0}, 262144},
      {"sm_clock_under_ldmatrix_mma", "8 ldmatrix.x4 and 32 mma.sync m16n8k16 on them a warp round (step 10's k16 step)",
       {true, true, 0}, 131072},
      {"sm_clock_under_cp_async_l2", "4 cp.async.cg of 16 bytes a lane a warp round from an 8-MiB (L2) footprint",
       {false, false, kL2}, 131072},
      {"sm_clock_under_ldmatrix_mma_cp_async", kMix, {true, true, kL2}, 131072},
      {"sm_clock_under_ldmatrix_mma_cp_async_2ctas", kMix, {true, true, kL2}, 131072, 264, 4},
      {"sm_clock_under_ldmatrix_mma_cp_async_4ctas", kMix, {true, true, kL2}, 131072, 528, 2},
      {"sm_clock_under_ldmatrix_mma_cp_async_sync_2ctas", kMix, {true, true, kL2, true}, 131072, 264, 4},
      // The copies as steps 10 and 09 read their tiles (2026-12-06): rows of 64 or 32 bytes, each at
      // the start of a line of its own, 8 or 16 lines a copy where the rows above read 4 whole
      // lines, the same bytes. Step 10 held 1449-1470 MHz on an H100 where its mix above held 1501-1508
      // and the rule gives it 1580: do a copy's lines, not only its bytes, draw?
      {"sm_clock_under_cp_async_l2_rows64",
       "4 cp.async.cg of 16 bytes a lane a warp round from an 8-MiB (L2) footprint, in rows of 64 bytes (8 lines a "
       "copy, as step 10's)",
       {false, false, kL2, false, 64}, 131072},
      {"sm_clock_under_cp_async_l2_rows32",
       "4 cp.async.cg of 16 bytes a lane a warp round from an 8-MiB (L2) footprint, in rows of 32 bytes (16 lines a "
       "copy, as step 09's)",
       {false, false, kL2, false, 32}, 131072},
      {"sm_clock_under_ldmatrix_mma_cp_async_rows64_sync_2ctas",
       "step 10's k16 step (8 ldmatrix.x4, 32 mma.sync) and 4 cp.async.cg of 16 bytes a lane from an 8-MiB (L2) "
       "footprint in rows of 64 bytes (8 lines a copy, as step 10's) a warp round",
       {true, true, kL2, true, 64}, 131072, 264, 4},
      {"sm_clock_under_cp_async_l2_random",
       "4 cp.async.cg of 16 bytes a lane a warp round from an 8-MiB (L2) footprint of random bf16", {false, false, kL2},
       131072, 132, 8, true},
      {"sm_clock_under_cp_async_l2_rows64_random",
       "4 cp.async.cg of 16 bytes a lane a warp round from an 8-MiB (L2) footprint of random bf16, in rows of 64 bytes "
       "(8 lines a copy, as step 10's)",
       {false, false, kL2, false, 64}, 131072, 132, 8, true},
      {"sm_clock_under_ldmatrix_mma_cp_async_rows64_sync_2ctas_random",
       "step 10's k16 step (8 ldmatrix.x4, 32 mma.sync) and 4 cp.async.cg of 16 bytes a lane from an 8-MiB (L2) "
       "footprint of random bf16 in rows of 64 bytes (8 lines a copy, as step 10's) a warp round",
       {true, true, kL2, true, 64}, 131072, 264, 4, true},
  };
  for (const Row& r : rows) {
    const uint32_t reps = std::max(r.reps / (q * q), 2u), ctas = r.ctas, warps = r.warps, threads = 32 * warps;
    const std::string layout =
        fmt::format("{} CTAs of {} warps{}", ctas, warps, r.load.sync ? ", a bar.sync each round" : "");
    const auto row = [&](std::string name, std::string what, std::string unit, int launches,
                         std::function<double(const std::vector<uint8_t>&, double)> figure) {
      Probe p{std::move(name), std::move(what), std::move(unit),
              kernels::build_fragment_power_probe(ctas, warps, reps, r.load), {}, nullptr, false, launches};
      p.buffers.c.assign(size_t(ctas) * threads * kernels::kTimingOutBytes, 0);
      // The kernel declares A whether or not it copies from it, and the GPU runner binds every
      // pointer it declares to a buffer: the ldmatrix-only rows get a small one (their first
      // card, 2026-12-06, refused them for the lack of it).
      p.a_bytes = r.load.copy_footprint ? r.load.copy_footprint : 4096;
      p.a_value = 1;
      if (r.random_data) p.make_buffers = [](model::GemmBuffers& b) { fill_random_bf16(b.a, 31); };
      p.figure = std::move(figure);
      probes.push_back(std::move(p));
    };
    row(fmt::format("{}_capped", r.name),
        fmt::format("SM clock with {} on every SM ({} an SM) running {}, the 101st launch back to back (each CTA's "
                    "clock64 span / launch time)",
                    layout, 8 / warps, r.what),
        "MHz", 100, [threads](const std::vector<uint8_t>& c, double ms) { return clock_mhz(c, ms, threads); });
    if (r.load.ldmatrix)
      row(fmt::format("{}_rep", r.name),
          fmt::format("a warp's clock64 cycles a round of {} ({}), one launch", r.what, layout), "cycles", 0,
          [reps](const std::vector<uint8_t>& c, double) { return mean_of_warps(field_of(c, 0)) / reps; });
    // The bytes a second over the 101st launch back to back, as the clock row holds (one fresh
    // launch, at a higher clock, read 11359 GB/s for the copies alone on the H100, 2026-12-06).
    if (r.load.copy_footprint)
      row(fmt::format("{}_gbs", r.name),
          fmt::format("bytes a second the cp.async copies move in the 101st launch back to back of {} ({})", r.what,
                      layout),
          "GB/s", 100,
          [reps, ctas, warps](const std::vector<uint8_t>&, double ms) {
            return ms > 0 ? double(ctas) * warps * reps * 2048.0 / (ms * 1e6) : 0.0;
          });
  }
}

}  // namespace gs::probe_list
