#include "kernels/registry.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "engine/ir/verify.hpp"

namespace gs::kernels {

std::string_view family_name(Family f) {
  switch (f) {
    case Family::simt: return "simt";
    case Family::ampere: return "ampere";
    case Family::hopper: return "hopper";
    case Family::blackwell: return "blackwell";
  }
  return "?";
}

std::string_view dtype_name(DType d) { return d == DType::f32 ? "f32" : "bf16"; }
std::string_view b_layout_name(BLayout b) { return b == BLayout::nk ? "nk" : "kn"; }

std::span<const KernelInfo> all_kernels() {
  // Ordered by ladder step. Steps 02-04 (warp tiling, mma.sync, cp.async pipelining) and
  // 06+ (bigger tiles, warp specialisation, clusters, tcgen05) arrive with their issues.
  static const std::vector<KernelInfo> kernels{simt_naive_info(), hopper_tma_wgmma_64_info()};
  return kernels;
}

const KernelInfo* find_kernel(std::string_view id) {
  for (const KernelInfo& k : all_kernels())
    if (k.id == id) return &k;
  return nullptr;
}

const KernelInfo& kernel_or_throw(std::string_view id) {
  if (const KernelInfo* k = find_kernel(id)) return *k;
  std::string valid;
  for (const KernelInfo& k : all_kernels()) valid += (valid.empty() ? "" : ", ") + k.id;
  throw ConfigError(fmt::format("unknown kernel id '{}': valid ids are {} (see `gemmscope list`)", id, valid));
}

void require_multiple(std::string_view kernel, char dim, uint32_t value, uint32_t multiple, std::string_view what) {
  if (value == 0 || value % multiple != 0)
    throw ConfigError(fmt::format("{}={} is not a positive multiple of {} ({} of {})", dim, value, multiple, what, kernel));
}

void require_range(std::string_view kernel, char dim, uint32_t value, uint32_t lo, uint32_t hi) {
  if (value < lo || value > hi)
    throw ConfigError(fmt::format("{}={} is out of range for {}: {} must be in {}..{}", dim, value, kernel, dim, lo, hi));
}

CtaTile tile_of_block(const GemmShape& shape, const GemmShape& tile, uint32_t row_block, uint32_t col_block) {
  const auto clip = [](uint64_t v, uint32_t limit) { return uint32_t(std::min<uint64_t>(v, limit)); };
  return {clip(uint64_t(row_block) * tile.m, shape.m), clip(uint64_t(row_block + 1ull) * tile.m, shape.m),
          clip(uint64_t(col_block) * tile.n, shape.n), clip(uint64_t(col_block + 1ull) * tile.n, shape.n)};
}

ir::Kernel build_kernel(const KernelInfo& info, const GemmConfig& config) {
  info.check_shape(config.shape);
  for (const std::string& m : config.mistakes) {
    bool known = false;
    std::string valid;
    for (const Mistake& x : info.mistakes) {
      known = known || x.name == m;
      valid += (valid.empty() ? "" : ", ") + x.name;
    }
    if (!known)
      throw ConfigError(fmt::format("unknown mistake '{}' for {}: {}", m, info.id,
                                    valid.empty() ? "this kernel has no mistakes to switch on" : "valid mistakes are " + valid));
  }
  ir::Kernel k = info.build(config);
  ir::verify(k);
  return k;
}

}  // namespace gs::kernels
