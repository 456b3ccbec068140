// Test helper for kernels whose tile is a build parameter: run one build on the model over its
// whole grid with integer inputs and check C exactly.
#pragma once

#include <catch2/catch.hpp>

#include "kernels/registry.hpp"
#include "run/sim_job.hpp"

namespace gs::test {

// C equals the reference bit for bit with no hazards and every element written, and the build's
// tile is the declared output tiling's. Returns the report for the caller's own checks.
inline run::SimReport check_build_on_model(const kernels::KernelInfo& info, const kernels::ParamValues& params,
                                           kernels::GemmShape shape) {
  const kernels::GemmShape t = kernels::tile_of(info, params);
  INFO(info.id << " " << kernels::params_text(kernels::resolve_params(info, params)) << " at " << shape.m << "x"
               << shape.n << "x" << shape.k);
  run::SimRequest req;
  req.kernel_id = info.id;
  req.shape = shape;
  req.params = params;
  req.trace = false;
  run::SimReport r = run::run_sim(req);
  CHECK(r.result.completed);
  CHECK(r.result.hazards.empty());
  CHECK(r.cmp.correct);
  CHECK(r.cmp.mismatches == 0);
  CHECK(r.cmp.unwritten == 0);
  CHECK(r.kernel.output.tile_rows == t.m);
  CHECK(r.kernel.output.tile_cols == t.n);
  return r;
}

}  // namespace gs::test
