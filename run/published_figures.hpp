// Published TFLOP/s of public Blackwell GEMM ladders (run/published_figures.def), each tied to
// the step of ours whose technique that kernel stops at. No Blackwell GPU was run here: these are
// other people's measurements, shown beside our model's B200 predictions and never in place of a
// measurement ("published, not measured here").
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/registry.hpp"

namespace gs::run {

struct PublishedFigure {
  std::string_view id;
  int step = 0;               // our ladder step (the NN of kernels/NN_*.cpp); 0: none of ours
  std::string_view source;    // who published it and where
  std::string_view date;      // YYYY-MM-DD of the version read
  std::string_view url;
  std::string_view card;      // "B200 (Modal)"
  kernels::GemmShape shape;
  std::string_view stage;     // the source's name for the kernel
  double tflops = 0.0;
  double cublas_tflops = 0.0; // cuBLAS in the same table; 0: none given
  std::string_view differs;   // how that kernel differs from our step ("" where it does not)
};

// Every row of the table, in its order.
std::span<const PublishedFigure> published_figures();
// The rows for one of our steps, in the table's order (empty: nothing published stops there).
std::vector<const PublishedFigure*> published_for_step(int step);

// "1273 TFLOP/s: gau-nernst, learn-cuda 02e_matmul_sm100 README, v6 (persistent w/ static
// scheduling), B200 (Modal), 4096³, 2026-04-05": the figure with where it comes from.
std::string published_line(const PublishedFigure& f);
// What every view and table says of these figures, once.
inline constexpr std::string_view kPublishedNotMeasured = "published, not measured here";

}  // namespace gs::run
