// The published figures set beside the Blackwell steps' predictions (run/published_figures.def):
// each row names a step of ours that is a Blackwell step, a source with a dated version and an
// address, and a figure a B200 can reach (below the machine description's rated dense bf16 peak,
// and below cuBLAS where the source gives cuBLAS beside it, except where the source says it beat
// cuBLAS).
#include <catch2/catch.hpp>

#include <cctype>
#include <set>
#include <string>

#include "engine/model/machine_ceilings.hpp"
#include "kernels/registry.hpp"
#include "run/published_figures.hpp"

using namespace gs;

namespace {

bool is_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

const kernels::KernelInfo* step_info(int step) {
  for (const kernels::KernelInfo& k : kernels::all_kernels())
    if (k.step == step) return &k;
  return nullptr;
}

}  // namespace

TEST_CASE("published figures: every row is a dated, addressed figure of a Blackwell step a B200 can reach",
          "[run][published]") {
  const double peak = model::timing::kB200Ceilings.tensor_tflops;
  std::set<std::string_view> ids;
  REQUIRE(run::published_figures().size() >= 6);
  for (const run::PublishedFigure& f : run::published_figures()) {
    INFO(f.id);
    CHECK(ids.insert(f.id).second);
    CHECK(is_date(f.date));
    CHECK(f.url.starts_with("https://"));
    CHECK_FALSE(f.source.empty());
    CHECK_FALSE(f.stage.empty());
    CHECK(f.card.find("B200") != std::string_view::npos);
    CHECK(f.shape.m > 0);
    CHECK(f.tflops > 0.0);
    CHECK(f.tflops < peak);
    CHECK(f.cublas_tflops < peak);
    if (f.cublas_tflops > 0.0) CHECK(f.tflops < f.cublas_tflops);  // none of these rows beat cuBLAS
    if (f.step != 0) {
      const kernels::KernelInfo* k = step_info(f.step);
      REQUIRE(k);
      CHECK(k->family == kernels::Family::blackwell);
    }
  }
}

TEST_CASE("published figures: a step's rows come in the table's order, and a step nobody published has none",
          "[run][published]") {
  // Step 26 (persistent on the 2-SM pair) is gau-nernst's v6, in both the README and the write-up.
  const auto v6 = run::published_for_step(26);
  REQUIRE(v6.size() == 2);
  CHECK(v6[0]->id == "gau_readme_v6");
  CHECK(v6[1]->id == "gau_blog_v6");
  CHECK(run::published_line(*v6[0]) ==
        "1273 TFLOP/s: gau-nernst, learn-cuda 02e_matmul_sm100 README, v6 (persistent w/ static scheduling), B200 "
        "(Modal), 4096³, 2026-04-05");
  // Cluster launch control: Modular's Part 4.
  const auto clc = run::published_for_step(24);
  REQUIRE(clc.size() == 1);
  CHECK(clc[0]->tflops == 1772.0);
  // The Hopper steps have none, and 0 (the rows kept for context) is no step.
  CHECK(run::published_for_step(19).empty());
  CHECK(run::published_for_step(23).empty());  // persistent on one SM: nobody published that stage
  CHECK(run::published_for_step(0).empty());
}
