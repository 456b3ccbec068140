#include <cstdio>
#include "run/sim_job.hpp"
#include "kernels/registry.hpp"
using namespace gs;
int main() {
  for (const auto& info : kernels::all_kernels()) {
    double f[2];
    for (int t = 0; t < 2; ++t) {
      run::SimRequest r = run::prediction_request(info.id, {4096, 4096, 4096});
      r.trace = t == 1;
      f[t] = run::run_sim(r).result.stats.predicted_tflops;
    }
    std::printf("%02d %-30s untraced %8.1f traced %8.1f  %+.1f%%\n", info.step, info.id.c_str(), f[0], f[1], 100 * (f[1] / f[0] - 1));
  }
}
