// The wgmma issue probes (kernels/timing_probes_wgmma.cpp): added to gemmscope_timing_probes'
// list by add_wgmma_issue_probes.
#include <algorithm>

#include <fmt/format.h>

#include "bench/probe_figures.hpp"
#include "bench/probe_list.hpp"
#include "kernels/timing_probes.hpp"

namespace gs::probe_list {

void add_wgmma_issue_probes(std::vector<Probe>& probes, uint32_t q) {
  // A burst's issue time against its length (one warpgroup; two, sharing the SM's tensor cores),
  // at N = 256 (128 tensor-core cycles a wgmma) and N = 64 (32), and the main-loop pattern of
  // steps 14-19 (two warpgroups, four wgmma m64n256k16 a K block) waiting for the block itself
  // (keep 0) or keeping one in flight (keep 1, step 19's wgmma_in_flight).
  struct IssueRow {
    uint32_t warpgroups, n, burst, keep;
  };
  const uint32_t rounds = std::max(2u, 16 / q);
  for (const IssueRow& r : {IssueRow{1, 256, 2, 0}, IssueRow{1, 256, 4, 0}, IssueRow{1, 256, 6, 0},
                            IssueRow{1, 256, 8, 0}, IssueRow{1, 256, 12, 0}, IssueRow{1, 256, 16, 0},
                            IssueRow{1, 256, 24, 0}, IssueRow{1, 256, 32, 0}, IssueRow{1, 64, 16, 0},
                            IssueRow{1, 64, 32, 0}, IssueRow{2, 256, 4, 0}, IssueRow{2, 256, 8, 0},
                            IssueRow{2, 256, 16, 0}, IssueRow{2, 256, 4, 1}, IssueRow{1, 256, 4, 1}}) {
    Probe p{fmt::format("wgmma_issue_b{}_n{}_{}wg{}", r.burst, r.n, r.warpgroups, r.keep ? "_keep1" : ""),
            fmt::format("{} wgmma m64n{}k16 back to back, {} warpgroup(s), wait_group {} after each: cycles a warp "
                        "spends issuing them",
                        r.burst, r.n, r.warpgroups, r.keep),
            "cycles", kernels::build_wgmma_issue_probe(r.warpgroups, r.n, r.burst, rounds, r.keep), {}, nullptr, true};
    p.buffers.c.assign(size_t(r.warpgroups) * 128 * kernels::kTimingOutBytes, 0);
    p.figure = [rounds](const std::vector<uint8_t>& c, double) {
      return probe_figures::mean_of_warps(probe_figures::cycles_of(c)) / rounds;
    };
    probes.push_back(std::move(p));
  }
  // The order the tensor cores take two warpgroups' wgmmas: warpgroup 1's one wgmma, issued while
  // warpgroup 0's burst of 8 or 16 waits for the tensor cores: its cycles from issue to the end of
  // its wait (warps 4-7).
  for (const uint32_t burst : {8u, 16u}) {
    Probe p{fmt::format("wgmma_order_b{}", burst),
            fmt::format("a second warpgroup's one wgmma m64n256k16, issued while the first's {} wait for the tensor "
                        "cores: cycles from its issue to its wait's end",
                        burst),
            "cycles", kernels::build_wgmma_order_probe(burst, 100), {}, nullptr, true};
    p.buffers.c.assign(256 * kernels::kTimingOutBytes, 0);
    p.figure = [](const std::vector<uint8_t>& c, double) {
      const std::vector<uint64_t> cycles = probe_figures::cycles_of(c);
      double sum = 0;
      for (uint32_t w = 4; w < 8; ++w) sum += double(cycles[32 * w]);
      return sum / 4;
    };
    probes.push_back(std::move(p));
  }
}

}  // namespace gs::probe_list
