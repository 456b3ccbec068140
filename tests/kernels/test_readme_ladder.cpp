// The README's ladder table and its --param text name what the registry declares: every step
// of the ladder has its row, and every build parameter its range and its default.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "kernels/registry.hpp"

namespace {

std::string readme() {
  std::ifstream f(std::string(GEMMSCOPE_SOURCE_DIR) + "/README.md");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("README: the ladder table has a row for every step", "[kernels][readme]") {
  const std::string text = readme();
  REQUIRE_FALSE(text.empty());
  for (const gs::kernels::KernelInfo& k : gs::kernels::all_kernels()) {
    if (k.step == 0) continue;  // probes are not ladder steps
    const std::string row = fmt::format("| {:02} | `{}` | {} |", k.step, k.id, gs::ir::arch_name(k.arch));
    INFO(row);
    CHECK(text.find(row) != std::string::npos);
  }
}

TEST_CASE("README: --param states each kernel's range and default as the kernel declares them", "[kernels][readme]") {
  const std::string text = readme();
  for (const gs::kernels::KernelInfo& k : gs::kernels::all_kernels())
    for (const gs::kernels::BuildParam& p : k.params) {
      const std::string said = fmt::format("`{}` ({} {}–{}, default {}", k.id, p.name, p.choices.front(),
                                           p.choices.back(), p.default_value);
      INFO(said);
      CHECK(text.find(said) != std::string::npos);
    }
}
