#include "run/published_figures.hpp"


#include <fmt/format.h>

namespace gs::run {

namespace {

constexpr PublishedFigure kFigures[] = {
#define PUBLISHED(id, step, source, date, url, card, m, n, k, stage, tflops, cublas, differs) \
  {#id, step, source, date, url, card, {m, n, k}, stage, tflops, cublas, differs},
#include "run/published_figures.def"
#undef PUBLISHED
};

std::string shape_text(kernels::GemmShape s) {
  return s.m == s.n && s.n == s.k ? fmt::format("{}³", s.m) : fmt::format("{}x{}x{}", s.m, s.n, s.k);
}

}  // namespace

std::span<const PublishedFigure> published_figures() { return kFigures; }

std::vector<const PublishedFigure*> published_for_step(int step) {
  std::vector<const PublishedFigure*> out;
  if (step <= 0) return out;
  for (const PublishedFigure& f : kFigures)
    if (f.step == step) out.push_back(&f);
  return out;
}

std::string published_line(const PublishedFigure& f) {
  return fmt::format("{:.0f} TFLOP/s: {}, {}, {}, {}, {}", f.tflops, f.source, f.stage, f.card, shape_text(f.shape),
                     f.date);
}

}  // namespace gs::run
