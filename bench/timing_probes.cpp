// gemmscope_timing_probes: the microbenchmarks behind the machine description
// (engine/model/machines.def), run on GPU 0 and on the model, printed as a table and JSON.
//
// Each probe is a kernel of kernels/timing_probes.hpp, built with the builder and launched
// through the same driver path as the ladder (run::run_kernel_once, a child process per
// launch). Per probe the table gives what it measures, the GPU's figure and, for the probes of
// one CTA, the model's figure from the same kernel (its clock64 reads modeled cycles).
//
//   gemmscope_timing_probes [--json FILE] [--quick] [--only PREFIX...] [--ptx DIR]
//   gemmscope_timing_probes --against FILE   (an earlier run's JSON against its card's description)
//
// --quick runs every probe with small counts (a smoke test, the figures are not meaningful).
// Exit status: 0 measured, 1 a launch failed, 2 bad usage, 3 no GPU.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <tuple>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/ir/bf16.hpp"
#include "engine/model/machine_ceilings.hpp"
#include "engine/model/machines.hpp"
#include "engine/model/model.hpp"
#include "engine/ptx/emit.hpp"
#include "engine/ptx/registers.hpp"
#include "bench/probe_figures.hpp"
#include "bench/probe_list.hpp"
#include "kernels/timing_probes.hpp"
#include "run/gpu_launch.hpp"
#include "run/output_file.hpp"

using namespace gs;
using namespace gs::probe_figures;
using gs::probe_list::Probe;
using gs::probe_list::add_sm_probes;
using gs::probe_list::add_l2_gemm_probes;
using gs::probe_list::add_wgmma_issue_probes;
using gs::probe_list::add_stamped_tma_probes;
using gs::probe_list::add_sync_probes;
using gs::probe_list::add_fragment_clock_probes;
using gs::probe_list::add_wgmma_clock_probes;

namespace {


Probe chain(std::string name, std::string what, kernels::ChainOp op, uint32_t ctas, uint32_t warps, uint32_t chains,
            uint32_t length, uint32_t reps, bool rate) {
  Probe p{std::move(name), std::move(what), rate ? "warp-inst/cycle" : "cycles",
          kernels::build_chain_probe(op, ctas, warps, chains, length, reps), {}, nullptr, ctas == 1};
  p.buffers.c.assign(size_t(ctas) * warps * 32 * kernels::kTimingOutBytes, 0);
  const double per_warp = double(chains) * length * reps;
  if (rate)  // warp-instructions per cycle of the whole CTA, first start to last end
    p.figure = [per_warp, warps](const std::vector<uint8_t>& c, double) { return warps * per_warp / span_of_warps(c); };
  else
    p.figure = [per_warp](const std::vector<uint8_t>& c, double) { return mean_of_warps(cycles_of(c)) / per_warp; };
  return p;
}

// A random cycle through `lines` lines of `stride` bytes starting at offset 0, in A (u64 offsets).
Probe global_chase(std::string name, std::string what, uint64_t footprint, uint32_t stride, uint32_t warm,
                   uint32_t hops, bool quick) {
  Probe p{std::move(name), std::move(what), "cycles", kernels::build_global_chase_probe(warm, hops), {}, nullptr, !quick};
  p.make_buffers = [footprint, stride](model::GemmBuffers& b) {
    const uint64_t lines = footprint / stride;
    b.a.assign(footprint, 0);
    std::vector<uint64_t> order(lines);
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(29);
    std::shuffle(order.begin() + 1, order.end(), rng);
    for (uint64_t i = 0; i < lines; ++i) {
      const uint64_t from = order[i] * stride, to = order[(i + 1) % lines] * stride;
      std::memcpy(b.a.data() + from, &to, 8);
    }
  };
  p.buffers.c.assign(32 * kernels::kTimingOutBytes, 0);
  p.figure = [hops](const std::vector<uint8_t>& c, double) { return double(cycles_of(c)[0]) / hops; };
  return p;
}

Probe stream(std::string name, std::string what, uint32_t ctas, uint32_t rounds, uint32_t blocks) {
  Probe p{std::move(name), std::move(what), "GB/s", kernels::build_stream_probe(ctas, rounds, blocks), {}, nullptr,
          false};
  p.a_bytes = size_t(blocks) * 4096;
  p.a_value = 1;
  p.buffers.c.assign(size_t(ctas) * 256 * kernels::kTimingOutBytes, 0);
  const double bytes = double(ctas) * rounds * 4 * 4096;  // four 4096-byte blocks a round
  p.figure = [bytes](const std::vector<uint8_t>&, double ms) { return bytes / (ms * 1e6); };
  return p;
}

Probe store_stream(std::string name, std::string what, uint32_t ctas, uint32_t rounds, uint32_t blocks,
                   bool scattered = false) {
  Probe p{std::move(name), std::move(what), "GB/s",
          kernels::build_store_stream_probe(ctas, rounds, blocks, scattered), {}, nullptr, false};
  p.a_bytes = size_t(blocks) * 4096;
  p.buffers.c.assign(size_t(ctas) * 256 * kernels::kTimingOutBytes, 0);
  const double bytes = double(ctas) * rounds * 4 * 4096;  // four 4096-byte blocks a round
  p.figure = [bytes](const std::vector<uint8_t>&, double ms) { return bytes / (ms * 1e6); };
  return p;
}

// TMA boxes of box_rows x 128 bytes; `unit`: "cycles" (thread 0's cycles per round, one CTA),
// "B/cycle" (bytes over thread 0's cycles, one CTA) or "GB/s" (bytes over the launch's time).
Probe tma(std::string name, std::string what, std::string unit, uint32_t ctas, uint32_t stages, uint32_t rounds,
          uint32_t box_rows, uint32_t boxes, uint32_t share = 1) {
  Probe p{std::move(name), std::move(what), unit,
          kernels::build_tma_probe(ctas, stages, rounds, box_rows, boxes, share), {}, nullptr, ctas == 1};
  p.a_bytes = size_t(boxes) * box_rows * 128;
  p.a_value = 1;
  p.buffers.c.assign(size_t(ctas) * 32 * kernels::kTimingOutBytes, 0);
  const double bytes = double(ctas) * rounds * stages * box_rows * 128;
  if (unit == "cycles")
    p.figure = [rounds](const std::vector<uint8_t>& c, double) { return double(cycles_of(c)[0]) / rounds; };
  else if (unit == "B/cycle")
    p.figure = [bytes](const std::vector<uint8_t>& c, double) { return bytes / double(cycles_of(c)[0]); };
  else
    p.figure = [bytes](const std::vector<uint8_t>&, double ms) { return bytes / (ms * 1e6); };
  return p;
}

// The card's machine description against today's run: every figure whose source names one of
// these probes ("probe l2_latency: 291.85, H200, ...", engine/model/machines.hpp), so a device
// check shows whether the description still holds on the card it ran on. Where the source gives
// the probe's own reading ("probe NAME: 336.8 cycles, less the model's own 59 ..."), today's
// reading is set against that one, so a figure derived from its probe compares like with like;
// else against the figure itself. Prints the table; returns its rows (empty for a card the model
// has no description of).
nlohmann::json against_description(const std::string& device, const nlohmann::json& rows) {
  nlohmann::json table = nlohmann::json::array();
  const model::timing::Machine* card = model::timing::machine_named_in(device);
  if (!card) {
    std::cout << fmt::format("\nno machine description for '{}': nothing to compare\n", device);
    return table;
  }
  std::cout << fmt::format("\nthe {} description against this run (figures whose source names a probe run here)\n",
                           card->name)
            << fmt::format("{:<28} {:>10} {:<8} {:<34} {:>10} {:>7}\n", "figure", "then", "reading", "probe", "GPU now",
                           "ratio");
  model::timing::for_each_figure(*card->desc, [&](const model::timing::FigureRow& f) {
    const std::string_view source = f.figure->source;
    if (source.rfind("probe ", 0) != 0) return;
    const std::string_view rest = source.substr(6);
    const std::string probe(rest.substr(0, rest.find_first_of(":, ")));
    // The source names the probe or the prefix of a family ("l1_loads_stride4"): the first row
    // whose name starts with it and that has a GPU figure.
    const auto row = std::find_if(rows.begin(), rows.end(), [&](const nlohmann::json& r) {
      return r["name"].get<std::string>().rfind(probe, 0) == 0 && r.contains("gpu");
    });
    if (row == rows.end()) return;
    // "NAME: 336.8 ..." or "NAME / 32 / 128: 0.85, ...": the reading right after the first colon.
    double recorded = 0;
    bool has_recorded = false;
    if (const size_t colon = rest.find(':'); colon != std::string_view::npos) {
      const std::string after(rest.substr(colon + 1, 32));
      char* end = nullptr;
      recorded = std::strtod(after.c_str(), &end);
      has_recorded = end != after.c_str() && recorded != 0;
    }
    const double now = (*row)["gpu"].get<double>(), described = has_recorded ? recorded : f.figure->value;
    // A figure worked out from a probe of another unit, with no reading given (wgmma_latency from
    // the tensor cores' rate), is not comparable: its source says how it was derived.
    const bool comparable = has_recorded || (*row).value("unit", "") == f.unit;
    const double ratio = comparable && described != 0 ? now / described : 0.0;
    std::cout << fmt::format("{:<28} {:>10.4g} {:<8} {:<34} {:>10.4g} {:>7}{}\n", f.name, described,
                             has_recorded ? "probe" : "figure", (*row)["name"].get<std::string>(), now,
                             comparable ? fmt::format("{:.3f}", ratio) : "-",
                             !comparable                      ? "  derived from it (its source says how)"
                             : std::abs(ratio - 1.0) > 0.1 ? "  differs by more than 10%"
                                                              : "");
    table.push_back({{"figure", f.name},
                     {"value", f.figure->value},
                     {"compared_with", has_recorded ? "the probe's recorded reading" : "the figure"},
                     {"described", described},
                     {"probe", (*row)["name"]},
                     {"gpu", now},
                     {"ratio", comparable ? nlohmann::json(ratio) : nlohmann::json(nullptr)},
                     {"source", source}});
  });
  return table;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Timing microbenchmarks of GPU 0 (and the model): latencies, issue rates, bandwidths, clock"};
  std::string json_path;
  bool quick = false;
  app.add_option("--json", json_path, "also write the results as JSON to this file");
  app.add_flag("--quick", quick, "small counts: a smoke test of every probe (figures not meaningful)");
  std::vector<std::string> only;
  app.add_option("--only", only, "run only the probes whose names start with one of these");
  std::string ptx_dir;
  app.add_option("--ptx", ptx_dir, "also write each probe's PTX into this folder (NAME.ptx), to read or disassemble");
  std::string against;
  app.add_option("--against", against,
                 "run nothing: set the probes of an earlier --json FILE against its card's machine description");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!against.empty()) {
    std::ifstream in(against);
    nlohmann::json earlier = nlohmann::json::parse(in, nullptr, false);
    if (!in || earlier.is_discarded() || !earlier.contains("device") || !earlier["device"].is_string() ||
        !earlier.contains("probes") || !earlier["probes"].is_array()) {
      std::cerr << fmt::format("gemmscope_timing_probes: {} is not a --json file of this program (it needs "
                               "\"device\" and \"probes\")\n",
                               against);
      return 2;
    }
    against_description(earlier["device"].get<std::string>(), earlier["probes"]);
    return 0;
  }
  using kernels::ChainOp;
  const uint32_t q = quick ? 16 : 1;  // divides the counts
  std::vector<Probe> probes;
  probes.push_back(chain("ffma_latency", "fma.rn.f32 dependent chain: cycles per instruction", ChainOp::ffma, 1, 1, 1,
                         512, 64 / q, false));
  probes.push_back(chain("imad_latency", "mad.lo.u32 dependent chain", ChainOp::imad, 1, 1, 1, 512, 64 / q, false));
  probes.push_back(chain("iadd_latency", "add.u32 dependent chain", ChainOp::iadd, 1, 1, 1, 512, 64 / q, false));
  probes.push_back(chain("hmma_latency", "mma.sync m16n8k16 dependent chain", ChainOp::mma_sync, 1, 1, 1, 64, 64 / q,
                         false));
  probes.push_back(chain("ffma_issue_1warp", "FFMA, 8 independent chains, 1 warp: warp-inst/cycle", ChainOp::ffma, 1, 1,
                         8, 128, 32 / q, true));
  probes.push_back(chain("ffma_issue_4warps", "FFMA, 8 chains x 4 warps (one per scheduler): per SM", ChainOp::ffma, 1,
                         4, 8, 128, 32 / q, true));
  probes.push_back(chain("ffma_issue_32warps", "FFMA, 4 chains x 32 warps: per SM", ChainOp::ffma, 1, 32, 4, 64,
                         16 / q, true));
  probes.push_back(chain("imad_issue_32warps", "IMAD, 4 chains x 32 warps: per SM", ChainOp::imad, 1, 32, 4, 64, 16 / q,
                         true));
  probes.push_back(chain("iadd_issue_32warps", "IADD, 4 chains x 32 warps: per SM", ChainOp::iadd, 1, 32, 4, 64, 16 / q,
                         true));
  probes.push_back(chain("hmma_issue_8warps", "mma.sync, 8 chains x 8 warps: per SM", ChainOp::mma_sync, 1, 8, 8, 8,
                         64 / q, true));
  {
    Probe p{"lds_latency", "ld.shared.u32 pointer chase: cycles per hop", "cycles",
            kernels::build_shared_chase_probe(1024, 4096 / q), {}, nullptr, true};
    p.buffers.c.assign(32 * kernels::kTimingOutBytes, 0);
    const double hops = 4096 / q;
    p.figure = [hops](const std::vector<uint8_t>& c, double) { return double(cycles_of(c)[0]) / hops; };
    probes.push_back(std::move(p));
  }
  // The shared-memory pipe's rate: 32 warps of 4 independent chases of 32-, 64- or 128-bit loads
  // a lane (1, 2 or 4 wavefronts a warp-load), and 8 warps of 32-bit ones.
  // And 32-bit ones with 2- and 4-way bank conflicts (steps 05 and 09 have them; does a conflict's
  // wavefront cost the pipe what a conflict-free one does?).
  struct LdsRate {
    uint32_t warps, vec, ways = 1;
  };
  for (const auto& [warps, vec, ways] : {LdsRate{32, 1}, LdsRate{32, 2}, LdsRate{32, 4}, LdsRate{8, 1},
                                         LdsRate{32, 1, 2}, LdsRate{32, 1, 4}}) {
    const uint32_t chains = 4, length = 16, reps = 64 / q;
    Probe p{ways == 1 ? fmt::format("lds_rate_v{}_{}warps", vec, warps)
                      : fmt::format("lds_rate_v{}_{}way_{}warps", vec, ways, warps),
            fmt::format("ld.shared{} chases, {} warps x {} chains, {} ({} wavefront(s) a load): warp-loads "
                        "per cycle of the SM",
                        vec == 1 ? ".u32" : fmt::format(".v{}.u32", vec), warps, chains,
                        ways == 1 ? "conflict-free" : fmt::format("{}-way bank conflicts", ways), vec * ways),
            "warp-inst/cycle", kernels::build_shared_rate_probe(warps, vec, chains, length, reps, ways), {}, nullptr,
            true};
    p.buffers.c.assign(size_t(warps) * 32 * kernels::kTimingOutBytes, 0);
    const double loads = double(warps) * chains * length * reps;
    p.figure = [loads](const std::vector<uint8_t>& c, double) { return loads / span_of_warps(c); };
    probes.push_back(std::move(p));
  }
  probes.push_back(global_chase("l1_latency", "ld.global chase, 8 KiB of 128-B lines, warm: L1 hits", 8192, 128, 64,
                                4096 / q, quick));
  probes.push_back(global_chase("l2_latency", "ld.global chase, 4 MiB of 128-B lines, warm: L2 hits", 4u << 20, 128,
                                quick ? 64 : 32768, 8192 / q, quick));
  probes.push_back(global_chase("hbm_latency", "ld.global chase, 1 GiB of 4-KiB-spaced lines, cold: HBM",
                                quick ? (8u << 20) : (1ull << 30), 4096, 0, 4096 / q, quick));
  probes.push_back(stream("hbm_read_bw", "16-B loads over 1 GiB (twice), 1056 CTAs: HBM read bandwidth", 1056,
                          128 / q, quick ? 1024 : 262144));
  probes.push_back(stream("l2_read_bw", "16-B loads over 8 MiB, 1056 CTAs, 4 in flight a thread: L2 read bandwidth",
                          1056, 512 / q, 2048));
  // Stride 0: every lane reads the same word (one sector, a broadcast), as the SIMT steps' loads of A.
  for (const uint32_t stride : {0u, 4u, 32u, 128u}) {
    Probe p{fmt::format("l1_loads_stride{}", stride),
            fmt::format("ld.global u32, lanes {} B apart ({} line(s) a load), 8 warps, warm L1: warp-loads/cycle",
                        stride, std::max(1u, 32 * stride / 128)),
            "warp-inst/cycle", kernels::build_l1_stride_probe(8, stride, 256 / q), {}, nullptr, true};
    p.buffers.a.assign(7 * 1024 + 32 * stride + 64, 1);
    p.buffers.c.assign(8 * 32 * kernels::kTimingOutBytes, 0);
    const double per_warp = 8.0 * (256 / q);
    p.figure = [per_warp](const std::vector<uint8_t>& c, double) { return 8 * per_warp / span_of_warps(c); };
    probes.push_back(std::move(p));
  }
  // The same one-line global loads with as many conflict-free ld.shared.u32 between them, from 32
  // warps (enough to keep both kinds of load in flight), and those global loads alone from 32
  // warps: the two kinds share the L1's data path if together they reach about the rate one kind
  // reaches alone (and lds_rate_v1_32warps), and not if each keeps its own.
  {
    Probe p{"l1_loads_stride0_32warps", "ld.global u32, every lane the same word (a broadcast), 32 warps, warm L1: warp-loads/cycle",
            "warp-inst/cycle", kernels::build_l1_stride_probe(32, 0, 256 / q), {}, nullptr, true};
    p.buffers.a.assign(7 * 1024 + 64, 1);
    p.buffers.c.assign(32 * 32 * kernels::kTimingOutBytes, 0);
    const double per_warp = 8.0 * (256 / q);
    p.figure = [per_warp](const std::vector<uint8_t>& c, double) { return 32 * per_warp / span_of_warps(c); };
    probes.push_back(std::move(p));
  }
  // Co-resident CTAs: one, two and four CTAs an SM (their shared memory lets no more in) of a SIMT
  // GEMM's K loop, one mix bound by the L1's data path (8 ld.shared.v4 of 8 FFMAs each a round,
  // as step 06) and one by issue (4 of 32, as step 07): each CTA's span is the time its SM took
  // for the CTAs it held. The model's column is its prediction for that many CTAs an SM (the
  // traced CTA alone, then timing::predict_gemm's co-resident time), to set against the card.
  for (const auto& [lds, ffma, mix] : {std::tuple{8u, 8u, "datapath"}, std::tuple{4u, 32u, "issue"}})
    for (const uint32_t r : {1u, 2u, 4u}) {
      const uint32_t warps = 8, threads = 32 * warps, ctas = 132 * r;
      const uint32_t smem = r == 1 ? 150 * 1024 : r == 2 ? 100 * 1024 : 50 * 1024;
      Probe p{fmt::format("coresident_{}_{}ctas", mix, r),
              fmt::format("{} CTAs an SM ({} KiB of shared memory each), 8 warps, rounds of a 16-B copy and {} "
                          "ld.shared.v4 x {} FFMA between bar.syncs: cycles of each CTA's span",
                          r, smem / 1024, lds, ffma),
              "cycles", kernels::build_coresident_probe(ctas, warps, smem, lds, ffma, 256 / q), {}, nullptr, true};
      p.buffers.a.assign(4 * threads * 16, 0);
      p.buffers.c.assign(size_t(ctas) * threads * kernels::kTimingOutBytes, 0);
      p.figure = [threads](const std::vector<uint8_t>& c, double) { return mean_cta_span(c, threads); };
      p.model_figure = [ctas](const model::SimResult& s, const model::timing::Machine& m) {
        return model::timing::predict_gemm(s.stats.traced_cost, ctas, 1.0, m).parts.cta_alone;
      };
      probes.push_back(std::move(p));
    }
  add_sm_probes(probes, q);
  // Loads whose lines the L1 does not hold (each line read once, from L2): what taking a line in
  // costs the L1's data path beside the wavefront that reads it out, alone and between
  // conflict-free ld.shared, with one line a load (u32) and four (v4.u32).
  struct Fill {
    const char* name;
    uint32_t warps, vec, shared;
    bool same = false;
  };
  for (const Fill& f : {Fill{"l1_fill_v1_8warps", 8, 1, 0}, Fill{"l1_fill_v1_32warps", 32, 1, 0},
                        Fill{"l1_fill_v1_lds8_32warps", 32, 1, 8}, Fill{"l1_fill_v4_32warps", 32, 4, 0},
                        Fill{"l1_fill_v4_lds8_32warps", 32, 4, 8}, Fill{"l1_fill_same_v1_32warps", 32, 1, 0, true},
                        Fill{"l1_fill_same_v1_8warps", 8, 1, 0, true}}) {
    const uint32_t reps = (f.vec == 1 ? 256 : 64) / q;
    Probe p{f.name,
            fmt::format("ld.global{} ({} line(s) a load), {} from L2, {} warps{}: warp-loads "
                        "({}) per cycle",
                        f.vec == 1 ? " u32" : ".v4.u32", f.vec,
                        f.same ? "every warp the same new lines a round" : "every line read once", f.warps,
                        f.shared ? ", each beside a conflict-free ld.shared.u32" : "",
                        f.shared ? "both kinds" : "global"),
            "warp-inst/cycle", kernels::build_l1_fill_probe(f.warps, f.vec, reps, f.shared, f.same), {}, nullptr, true};
    p.buffers.a.assign(size_t(reps) * (f.same ? 1 : f.warps) * 8 * 128 * f.vec + 1024, 1);
    p.buffers.c.assign(size_t(f.warps) * 32 * kernels::kTimingOutBytes, 0);
    const double loads = double(f.warps) * (8.0 + f.shared) * reps;
    p.figure = [loads](const std::vector<uint8_t>& c, double) { return loads / span_of_warps(c); };
    probes.push_back(std::move(p));
  }
  // The copies alone and beside conflict-free ld.shared; with rows of 32 or 64 bytes as steps 09
  // and 10 copy (16 or 8 lines a copy, one or two sectors each; the plain copy's 512 contiguous
  // bytes are 4 whole lines).
  // With 80 ld.shared a round, the data path has more to carry than the copies' lines take the
  // L1's tag stage (4 x 16 lines): what of a copy holds the path the ld.shared need.
  for (const uint32_t row : {0u, 32u, 64u})
    for (const uint32_t shared : {0u, 8u, 80u}) {
      if (row == 64 && shared) continue;
      const uint32_t reps = 64 / q;
      const std::string lines = row ? fmt::format("{} B a row: {} lines a copy", row, 512 / row) : "4 lines a copy";
      Probe p{fmt::format("cp_async_fill{}{}_32warps", row ? fmt::format("_rows{}", row) : "",
                          shared ? fmt::format("_lds{}", shared) : ""),
              shared ? fmt::format("cp.async.cg 16 B a lane ({}) from L2, 4 a round, and {} conflict-free "
                                   "ld.shared.u32 a round, 32 warps: warp-instructions (both kinds) per cycle",
                                   lines, shared)
                     : fmt::format("cp.async.cg 16 B a lane ({}) from L2, 4 a round, 32 warps: warp-copies per cycle",
                                   lines),
              "warp-inst/cycle", kernels::build_cp_async_fill_probe(32, reps, shared, row), {}, nullptr, true};
      p.buffers.a.assign(size_t(reps) * 32 * 4 * (row ? 512 / row * 128 : 512) + 1024, 1);
      p.buffers.c.assign(32 * 32 * kernels::kTimingOutBytes, 0);
      const double insts = 32.0 * (4.0 + shared) * reps;
      p.figure = [insts](const std::vector<uint8_t>& c, double) { return insts / span_of_warps(c); };
      probes.push_back(std::move(p));
    }
  // Step 09's mix: its copies (rows of 32 bytes) beside ld.shared of 2 wavefronts (its fragment
  // reads), and of 4: on the card its LDS and LDGSTS wait for each other in the MIO queue
  // (docs/results/2026-12-03-lines), which the conflict-free rows above do not show.
  // With a bar.sync each round (`_sync_`, 2026-12-06): the warps' copies asked for together, then
  // their loads, as step 09's K step does (its cycles 12-18% more than the model's on the H200).
  // In 8 groups of 4 warps, each meeting at a barrier of its own (`_8groups`, 2026-12-06): step 09's
  // co-resident CTAs of 4 warps on one SM, drifting apart; 48 loads of 2 wavefronts a round beside
  // the 4 copies are step 09's share of loads to copies (its data path 1.6 times its tag stage).
  struct Mix {
    uint32_t ways, shared;
    bool sync = false;
    uint32_t groups = 1;
  };
  for (const Mix& m : {Mix{2, 8}, Mix{2, 20}, Mix{4, 8}, Mix{4, 20}, Mix{1, 20, true}, Mix{2, 20, true},
                       Mix{2, 20, true, 8}, Mix{2, 48}, Mix{2, 48, true}, Mix{2, 48, true, 8}, Mix{2, 48, true, 2}}) {
    const uint32_t ways = m.ways, shared = m.shared;
    const uint32_t reps = 64 / q;
    Probe p{fmt::format("cp_async_fill_rows32_lds{}{}{}{}_32warps", shared, ways > 1 ? fmt::format("_c{}", ways) : "",
                        m.sync ? "_sync" : "", m.groups > 1 ? fmt::format("_{}groups", m.groups) : ""),
            fmt::format("cp.async.cg 16 B a lane (32 B a row: 16 lines a copy) from L2, 4 a round, and {} "
                        "ld.shared.u32 of {} wavefront(s) ({}-way bank conflicts) a round{}, 32 warps: "
                        "warp-instructions (both kinds) per cycle",
                        shared, ways, ways,
                        !m.sync           ? ""
                        : m.groups == 1 ? ", a bar.sync after each round's wait"
                                        : fmt::format(", after each round's wait a bar.sync in {} groups of {} warps "
                                                      "(a named barrier each)",
                                                      m.groups, 32 / m.groups)),
            "warp-inst/cycle", kernels::build_cp_async_fill_probe(32, reps, shared, 32, ways, m.sync, m.groups), {},
            nullptr, true};
    p.buffers.a.assign(size_t(reps) * 32 * 4 * (512 / 32 * 128) + 1024, 1);
    p.buffers.c.assign(32 * 32 * kernels::kTimingOutBytes, 0);
    const double insts = 32.0 * (4.0 + shared) * reps;
    p.figure = [insts](const std::vector<uint8_t>& c, double) { return insts / span_of_warps(c); };
    probes.push_back(std::move(p));
  }
  for (const uint32_t shared : {0u, 8u}) {
    Probe p{shared ? "l1_shared_mix_32warps" : "l1_loads_stride4_32warps",
            shared ? "ld.global u32 (1 line a load, warm L1) and ld.shared.u32 (1 wavefront) in turn, 8 of each a "
                     "round, 32 warps: warp-loads (both kinds) per cycle"
                   : "ld.global u32, lanes 4 B apart (1 line a load), 32 warps, warm L1: warp-loads/cycle",
            "warp-inst/cycle", kernels::build_l1_stride_probe(32, 4, 256 / q, shared), {}, nullptr, true};
    p.buffers.a.assign(7 * 1024 + 32 * 4 + 64, 1);
    p.buffers.c.assign(32 * 32 * kernels::kTimingOutBytes, 0);
    const double per_warp = (8.0 + shared) * (256 / q);
    p.figure = [per_warp](const std::vector<uint8_t>& c, double) { return 32 * per_warp / span_of_warps(c); };
    probes.push_back(std::move(p));
  }
  for (const uint32_t n : {64u, 128u, 256u}) {
    for (const uint32_t groups : {1u, 2u}) {
      Probe p{fmt::format("wgmma_n{}_{}wg", n, groups),
              fmt::format("wgmma m64n{}k16, {} warpgroup(s), 4 a commit group, waited: FLOP/cycle/SM", n, groups),
              "FLOP/cycle", kernels::build_wgmma_probe(groups, n, 256 / q), {}, nullptr, true};
      p.buffers.c.assign(size_t(groups) * 128 * kernels::kTimingOutBytes, 0);
      const double flops = double(groups) * (256 / q) * 4 * 2 * 64 * n * 16;
      p.figure = [flops](const std::vector<uint8_t>& c, double) { return flops / span_of_warps(c); };
      probes.push_back(std::move(p));
    }
  }
  // Two warpgroups reading a ring's stages in turn, as steps 14-19's consumers read theirs (1 stage:
  // the same tiles every round, as wgmma_n256_2wg but each warpgroup its own rows of A); on random
  // bf16 as well, the bits a GEMM multiplies. On the H100 step 15's consumers' batches end 528
  // cycles apart where their wgmmas take 512 (2026-12-06).
  for (const bool random : {false, true})
    for (const uint32_t stages : {1u, 3u, 4u}) {
      Probe p{fmt::format("wgmma_n256_2wg_stages{}{}", stages, random ? "_random" : ""),
              fmt::format("wgmma m64n256k16, 2 warpgroups, 4 a commit group, waited, round r reading stage r % {} of "
                          "A and B{}: cycles a round",
                          stages, random ? " (random bf16)" : ""),
              "cycles", kernels::build_wgmma_stages_probe(stages, 256 / q, random), {}, nullptr, true};
      p.buffers.c.assign(256 * kernels::kTimingOutBytes, 0);
      p.figure = [rounds = 256 / q](const std::vector<uint8_t>& c, double) { return span_of_warps(c) / rounds; };
      probes.push_back(std::move(p));
    }
  probes.push_back(store_stream("hbm_write_bw", "16-B stores over 1 GiB, 1056 CTAs: write bandwidth to HBM", 1056,
                                128 / q, quick ? 1024 : 262144));
  probes.push_back(store_stream("hbm_write_bw_scattered",
                                "8-B stores, 8 lines a warp-store (an epilogue's pattern), 1 GiB: to HBM", 1056, 128 / q,
                                quick ? 1024 : 262144, true));
  probes.push_back(store_stream("l2_write_bw", "16-B stores over 8 MiB, 1056 CTAs: L2 write bandwidth", 1056, 512 / q,
                                2048));
  probes.push_back(store_stream("l2_write_bw_scattered",
                                "8-B stores, 8 lines a warp-store (an epilogue's pattern), over 8 MiB, 1056 CTAs: into L2",
                                1056, 512 / q, 2048, true));
  // One SM storing alone (its CTA's 8 warps), as a persistent GEMM's CTA stores a tile while the
  // other SMs compute: what its own path takes when it has L2's write bandwidth to itself, in
  // bytes a cycle of thread 0's span (the stores of a 16-KiB round behind it), both patterns.
  for (const bool scattered : {false, true}) {
    Probe p = store_stream(scattered ? "store_sm_bw_scattered" : "store_sm_bw",
                           fmt::format("{} stores from one CTA of 256 threads over 8 MiB: its SM's own store path, "
                                       "bytes a cycle",
                                       scattered ? "8-B scattered" : "16-B"),
                           1, 512 / q, 2048, scattered);
    p.unit = "B/cycle";
    const double bytes = double(512 / q) * 4 * 4096;
    p.figure = [bytes](const std::vector<uint8_t>& c, double) { return bytes / double(cycles_of(c)[0]); };
    p.on_model = true;
    probes.push_back(std::move(p));
  }
  probes.push_back(tma("tma_latency_1k", "TMA 1-KiB box, one in flight, 16 KiB footprint (L2): issue to land",
                       "cycles", 1, 1, 512 / q, 8, 16));
  probes.push_back(tma("tma_latency_32k", "TMA 32-KiB box, one in flight, 512 KiB footprint (L2): issue to land",
                       "cycles", 1, 1, 256 / q, 256, 16));
  // The same latency under load: every CTA keeps its one 32-KiB box in flight, so CTA 0's time a
  // round is what a box takes while the other CTAs' boxes share L2 (8-MiB footprint) or HBM
  // (1 GiB) with it. Not in the machine description: what they show is in
  // docs/results/2026-12-04-wgmma-queue (L2) and docs/results/2026-12-03-validation (HBM).
  // Fewer CTAs with a box in flight from HBM (16..99 of the 132 SMs): the latency as the load on
  // HBM grows towards its bandwidth, where a GEMM's ring must cover it.
  // And the same from L2 (16..99 and 264: two CTAs an SM), the latency as the load on L2 grows.
  for (const auto& [ctas, hbm] : {std::pair{132u, false}, std::pair{528u, false}, std::pair{132u, true},
                                  std::pair{528u, true}, std::pair{16u, true}, std::pair{33u, true},
                                  std::pair{66u, true}, std::pair{99u, true}, std::pair{16u, false},
                                  std::pair{33u, false}, std::pair{66u, false}, std::pair{99u, false},
                                  std::pair{264u, false}})
    probes.push_back(tma(fmt::format("tma_latency_32k_loaded{}{}", ctas, hbm ? "_hbm" : ""),
                         fmt::format("TMA 32-KiB box, one in flight in each of {} CTAs, {} footprint: CTA 0's issue to "
                                     "land",
                                     ctas, hbm ? "1-GiB (HBM)" : "8-MiB (L2)"),
                         "cycles", ctas, 1, 256 / q, 256, quick ? 256 : (hbm ? 32768 : 256)));
  // The spread of the loaded latency and a GEMM wave's own boxes, stamped (timing_probes_tma.cpp).
  add_stamped_tma_probes(probes, q, quick);
  // And with the boxes shared: groups of `share` CTAs (consecutive, as a GEMM wave's neighbours)
  // ask for the same box at about the same time, as a GEMM's A and B panels are read.
  for (const uint32_t share : {8u, 66u})
    probes.push_back(tma(fmt::format("tma_latency_32k_loaded528_share{}", share),
                         fmt::format("TMA 32-KiB box, one in flight in each of 528 CTAs, {} CTAs reading each box "
                                     "together, 8-MiB (L2) footprint: CTA 0's issue to land",
                                     share),
                         "cycles", 528, 1, 256 / q, 256, 256, share));
  probes.push_back(tma("tma_sm_bw", "TMA 32-KiB boxes, 4 in flight, one SM, 2 MiB footprint (L2): bytes per cycle",
                       "B/cycle", 1, 4, 256 / q, 256, 64));
  probes.push_back(tma("tma_l2_bw", "TMA 32-KiB boxes, 4 in flight, 264 CTAs, 8 MiB footprint: L2 bandwidth", "GB/s",
                       264, 4, 256 / q, 256, 256));
  // L2 to the SMs by how many CTAs read each box together (264 CTAs, two per SM; 16-KiB boxes,
  // a GEMM's A or B box, 8 in flight each, 8 MiB footprint); and the same over 8 waves (1056
  // CTAs of one per SM: each wave's CTAs start as the previous wave's end, not all at once as the
  // first wave's do), with 8 CTAs a box and with every CTA its own boxes.
  struct ShareRow {
    uint32_t ctas, share;
  };
  std::vector<ShareRow> share_rows;
  for (const uint32_t share : {1u, 2u, 4u, 8u, 16u, 33u, 66u, 132u, 264u}) share_rows.push_back({264, share});
  for (const uint32_t share : {1u, 8u}) share_rows.push_back({1056, share});
  for (const ShareRow& r : share_rows)
    probes.push_back(tma(fmt::format("tma_l2_bw_share{}{}", r.share, r.ctas == 264 ? "" : "_8waves"),
                         fmt::format("TMA 16-KiB boxes, 8 in flight, {} CTAs{}, {} CTA(s) reading each box together, "
                                     "8 MiB: L2 to the SMs",
                                     r.ctas, r.ctas == 264 ? "" : " (8 waves)", r.share),
                         "GB/s", r.ctas, 8, 256 / q, 128, 512, r.share));
  // How much of L2 a footprint every SM reads may take before the reads go to HBM: one CTA an SM
  // sweeps the footprint in 16-KiB boxes (8 in flight), each box read again by another SM a
  // sweep later, as a GEMM's waves read its panels (LRU keeps all or nothing of a cyclic sweep).
  // If each of L2's two partitions keeps its own copy of lines both halves of the chip read, the
  // bandwidth falls to HBM's at half the L2's size, not at its size.
  for (const uint32_t mib : {16u, 24u, 28u, 32u, 40u, 48u, 56u, 80u})
    probes.push_back(tma(fmt::format("tma_l2_bw_footprint{}m", mib),
                         fmt::format("TMA 16-KiB boxes, 8 in flight, 132 CTAs, every CTA its own boxes, swept over "
                                     "{} MiB: L2 to the SMs, or HBM where L2 does not keep the footprint",
                                     mib),
                         "GB/s", 132, 8, 256 / q, 128, mib * 64));
  // A GEMM wave of small tiles (step 11's CTA: two 8-KiB boxes a K step, eight CTAs an SM): the
  // same copies without the wgmmas between them, by how many CTAs read each box together (64: a
  // tile row of 64x64 tiles at 4096^3), one wave and four (as step 11's 4096 CTAs).
  for (const auto& [ctas, share] : {std::pair{1056u, 1u}, std::pair{1056u, 8u}, std::pair{1056u, 64u},
                                    std::pair{4224u, 64u}})
    probes.push_back(tma(fmt::format("tma_l2_bw_8k_x8_share{}{}", share, ctas == 1056 ? "" : "_4waves"),
                         fmt::format("TMA 8-KiB boxes, 2 in flight, {} CTAs of 8 an SM{}, {} CTA(s) reading each box "
                                     "together, 8 MiB: L2 to the SMs",
                                     ctas, ctas == 1056 ? "" : " (4 waves)", share),
                         "GB/s", ctas, 2, 256 / q, 64, 1024, share));
  add_l2_gemm_probes(probes, q);
  add_wgmma_issue_probes(probes, q);
  // What a launch costs, timed back to back between events as `gemmscope bench` times a GEMM:
  // empty grids of one CTA per SM (as the persistent steps launch), with a GEMM CTA's shared
  // memory, and of 16384 CTAs (step 11's grid at 8192^3: the rate at which CTAs start).
  struct LaunchProbe {
    const char* name;
    uint32_t ctas, threads, smem;
  };
  for (const LaunchProbe& l : {LaunchProbe{"launch_132x128", 132, 128, 0},
                               LaunchProbe{"launch_132x384_smem200k", 132, 384, 200 * 1024},
                               LaunchProbe{"launch_1056x128", 1056, 128, 0},
                               LaunchProbe{"launch_16384x128", 16384, 128, 0},
                               LaunchProbe{"launch_16384x128_smem24k", 16384, 128, 24 * 1024}}) {
    Probe p{l.name,
            fmt::format("empty kernel, {} CTAs of {} threads{}, 200 launches back to back between events: us a launch",
                        l.ctas, l.threads, l.smem ? fmt::format(", {} KiB of dynamic shared memory", l.smem / 1024) : ""),
            "us", kernels::build_launch_probe(l.ctas, l.threads, l.smem), {}, nullptr, false, 200};
    p.buffers.c.assign(size_t(l.ctas) * kernels::kTimingOutBytes, 0);
    p.figure = [](const std::vector<uint8_t>&, double ms) { return ms * 1e3; };
    probes.push_back(std::move(p));
  }
  add_sync_probes(probes, q);
  probes.push_back(tma("tma_hbm_bw", "TMA 32-KiB boxes, 4 in flight, 264 CTAs, 1 GiB footprint: HBM bandwidth",
                       "GB/s", 264, 4, 128 / q, 256, quick ? 256 : 32768));
  add_wgmma_clock_probes(probes, q, quick);
  add_fragment_clock_probes(probes, q);
  {
    // The clock an SM holds under tensor-core load: every SM's 8 warps run mma.sync flat out
    // (as a GEMM's main loop does); cycles counted by clock64 over the launch's time.
    Probe p = chain("sm_clock_under_mma", "SM clock with every SM running mma.sync (each CTA's clock64 span / launch time)",
                    ChainOp::mma_sync, 132, 8, 8, 8, 131072 / (q * q), false);
    p.unit = "MHz";
    p.on_model = false;
    p.figure = [](const std::vector<uint8_t>& c, double ms) { return clock_mhz(c, ms, 8 * 32); };
    probes.push_back(p);
    // The same held at the power limit (2026-12-05): 101 launches back to back (about 75 ms each),
    // the clock of the last, as the `_capped` wgmma rows. Its operands are near zero (the chain's
    // A and B are the thread index's low bits), as wgmma's zero tiles: the H100 held 1859.8 MHz,
    // not at the limit (call 7); what mma.sync on random operands draws is not probed.
    p.name = "sm_clock_under_mma_capped";
    p.what = "SM clock with every SM running mma.sync, the 101st launch back to back (each CTA's clock64 span / "
             "launch time)";
    p.timed_launches = 100;
    probes.push_back(p);
    // On random operands (a hash of the thread index): what mma.sync draws against wgmma on random
    // tiles (sm_clock_under_wgmma_alone_capped), for the clock rule's tensor term.
    p.name = "sm_clock_under_mma_random_capped";
    p.what = "SM clock with every SM running mma.sync on random bf16 operands, the 101st launch back to back (each "
             "CTA's clock64 span / launch time)";
    p.kernel = kernels::build_chain_probe(kernels::ChainOp::mma_sync, 132, 8, 8, 8, 131072 / (q * q), true);
    probes.push_back(std::move(p));
  }
  {
    // The clock without the tensor cores: every SM's 32 warps run FFMA chains flat out (as the
    // SIMT steps' inner loops do).
    Probe p = chain("sm_clock_under_ffma", "SM clock with every SM running FFMA from 32 warps (clock64 span / launch time)",
                    ChainOp::ffma, 132, 32, 8, 8, 131072 / (q * q), false);
    p.unit = "MHz";
    p.on_model = false;
    p.figure = [](const std::vector<uint8_t>& c, double ms) { return clock_mhz(c, ms, 32 * 32); };
    probes.push_back(std::move(p));
  }

  nlohmann::json out = {{"probes", nlohmann::json::array()}};
  std::cout << fmt::format("{:<22} {:>12} {:>12}  {:<16} {}\n", "probe", "GPU", "model", "unit", "what");
  int status = 0;
  if (!only.empty()) {
    std::erase_if(probes, [&](const Probe& p) {
      return std::none_of(only.begin(), only.end(), [&](const std::string& o) { return p.name.rfind(o, 0) == 0; });
    });
    if (probes.empty()) {
      std::cerr << "gemmscope_timing_probes: no probe's name starts with any --only prefix given\n";
      return 2;
    }
  }
  for (Probe& p : probes) {
    nlohmann::json row = {{"name", p.name}, {"what", p.what}, {"unit", p.unit}, {"kernel", p.kernel.name}};
    if (!ptx_dir.empty()) {
      try {
        std::filesystem::create_directories(ptx_dir);
        run::write_output_file((std::filesystem::path(ptx_dir) / (p.name + ".ptx")).string(), ptx::emit(p.kernel).text, "probe PTX");
      } catch (const std::exception& e) {
        std::cerr << "gemmscope_timing_probes: " << e.what() << "\n";
        return 2;
      }
    }
    double gpu = 0, modeled = 0;
    if (p.a_bytes > 0) p.buffers.a.assign(p.a_bytes, p.a_value);
    if (p.c_bytes > 0) p.buffers.c.assign(p.c_bytes, 0);
    if (p.make_buffers) p.make_buffers(p.buffers);
    if (p.idle_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(p.idle_ms));
    const run::KernelRun r =
        run::run_kernel_once(p.kernel, p.buffers, {}, std::chrono::seconds(60), {}, p.timed_launches);
    if (r.job.ok()) {
      gpu = p.figure(r.c, r.kernel_ms);
      row["gpu"] = gpu;
      row["ms"] = r.kernel_ms;
      row["registers"] = r.registers;
      if (!out.contains("device")) {
        out["device"] = r.device.name;
        out["sms"] = r.device.sms;
        out["max_sm_clock_mhz"] = r.device.sm_clock_khz / 1000;
      }
    } else {
      row["gpu_error"] = r.job.error;
      if (r.job.no_gpu()) status = std::max(status, 3);
      else status = std::max(status, 1);
    }
    if (p.on_model) {
      try {
        model::SimOptions opt;
        opt.trace = true;  // the one CTA is the traced CTA, as in a prediction (its L1, timing.hpp)
        // The model of the card the probe ran on where it knows it (an H200: its figures).
        if (const model::timing::Machine* card = model::timing::card_named_in(r.device.name, p.kernel.target))
          opt.machine = card;
        opt.only_traced_cta = bool(p.model_figure);
        // Whole: a plain loop's fast-forward times the pass before its second one, whose loads
        // still miss the L1 here (the co-resident probes' first four rounds read new lines).
        opt.fast_forward = !p.model_figure;
        // What ptxas made of it, as a step's run has (run/sim_job.cpp): folded shared loads and
        // the SASS order its loads take their place in.
        const ptx::CompiledKernel compiled = ptx::compiled_kernel(p.kernel);
        opt.sass_per_inst = compiled.sass_per_inst;
        opt.sass_first = compiled.sass_first;
        const model::SimResult s = model::simulate(p.kernel, p.buffers, opt, 0.0);
        if (s.completed) {
          modeled = p.model_figure ? p.model_figure(s, opt.machine ? *opt.machine : model::timing::kH100)
                                   : p.figure(p.buffers.c, 0.0);
          row["model"] = modeled;
        } else {
          row["model_error"] = s.error;
        }
      } catch (const std::exception& e) {
        row["model_error"] = e.what();
      }
    }
    std::cout << fmt::format("{:<22} {:>12} {:>12}  {:<16} {}\n", p.name, r.job.ok() ? fmt::format("{:.2f}", gpu) : "-",
                             row.contains("model") ? fmt::format("{:.2f}", modeled) : "-", p.unit, p.what)
              << std::flush;
    if (!r.job.ok()) std::cout << "  GPU: " << r.job.error << "\n";
    out["probes"].push_back(row);
    if (p.a_bytes > 0 || p.make_buffers) std::vector<uint8_t>().swap(p.buffers.a);  // its footprint back
    if (p.make_buffers) std::vector<uint8_t>().swap(p.buffers.b);
    if (p.c_bytes > 0) std::vector<uint8_t>().swap(p.buffers.c);
  }
  if (status == 3) std::cerr << "gemmscope_timing_probes: no GPU; the model column alone is printed\n";
  if (out.contains("device")) out["description"] = against_description(out["device"].get<std::string>(), out["probes"]);
  if (!json_path.empty()) {
    try {
      run::write_output_file(json_path, out.dump(2) + "\n", "the results");
    } catch (const std::exception& e) {
      std::cerr << "gemmscope_timing_probes: " << e.what() << "\n";
      return 2;
    }
  }
  return status;
}
