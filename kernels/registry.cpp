#include "kernels/registry.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

namespace {

// The step files' infos, checked once: each id is its file's name, ids unique, steps (the files'
// NN) increasing with the file order.
// A mistake here is a programming error in a step file, reported at the first use of the
// registry with the step's id.
std::vector<KernelInfo> checked_ladder() {
  std::vector<KernelInfo> kernels;
  for (LadderStep& s : ladder_steps()) {
    if (s.info.id != s.file_name)
      throw std::logic_error(fmt::format("the step file kernels/NN_{}.cpp declares the id '{}': a step's id is its file name",
                                         s.file_name, s.info.id));
    s.info.step = s.step;
    kernels.push_back(std::move(s.info));
  }
  for (size_t i = 0; i < kernels.size(); ++i) {
    for (size_t j = 0; j < i; ++j)
      if (kernels[j].id == kernels[i].id)
        throw std::logic_error(fmt::format("two ladder steps have the id '{}'", kernels[i].id));
    if (i > 0 && kernels[i].step <= kernels[i - 1].step)
      throw std::logic_error(fmt::format("ladder step '{}' has step {}, not after '{}' (step {}): two step files "
                                         "share an NN prefix",
                                         kernels[i].id, kernels[i].step, kernels[i - 1].id, kernels[i - 1].step));
  }
  return kernels;
}

}  // namespace

std::span<const KernelInfo> all_kernels() {
  static const std::vector<KernelInfo> kernels = checked_ladder();
  return kernels;
}

GemmShape KernelInfo::resolve(const GemmShape& r) const {
  return {r.m ? r.m : example_shape.m, r.n ? r.n : example_shape.n, r.k ? r.k : example_shape.k};
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

void require_tiles(std::string_view kernel, const GemmShape& s, const GemmShape& tile) {
  require_multiple(kernel, 'M', s.m, tile.m, fmt::format("the {}-row tile", tile.m));
  require_multiple(kernel, 'N', s.n, tile.n, fmt::format("the {}-column tile", tile.n));
  require_multiple(kernel, 'K', s.k, tile.k, fmt::format("the {}-element K step", tile.k));
  require_range(kernel, 'M', s.m, tile.m, kMaxGemmDimension);
  require_range(kernel, 'N', s.n, tile.n, kMaxGemmDimension);
  require_range(kernel, 'K', s.k, tile.k, kMaxGemmDimension);
}

CtaTile tile_of_block(const GemmShape& shape, const GemmShape& tile, uint32_t row_block, uint32_t col_block) {
  const auto clip = [](uint64_t v, uint32_t limit) { return uint32_t(std::min<uint64_t>(v, limit)); };
  return {clip(uint64_t(row_block) * tile.m, shape.m), clip(uint64_t(row_block + 1ull) * tile.m, shape.m),
          clip(uint64_t(col_block) * tile.n, shape.n), clip(uint64_t(col_block + 1ull) * tile.n, shape.n)};
}

void require_mistakes(const KernelInfo& info, const std::set<std::string>& mistakes) {
  for (const std::string& m : mistakes) {
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
}

uint32_t GemmConfig::param(std::string_view name) const {
  auto it = params.find(name);
  if (it == params.end())
    throw std::logic_error(fmt::format("build parameter '{}' read but not declared by the kernel (or not resolved)", name));
  return it->second;
}

BuildParam stages_param(uint32_t default_value, uint32_t first, uint32_t last, uint32_t stage_bytes) {
  BuildParam p{"stages", fmt::format("shared-memory stages in the ring ({} KiB each)", stage_bytes / 1024), default_value, {}};
  for (uint32_t s = first; s <= last; ++s) p.choices.push_back(s);
  return p;
}

uint32_t log2_exact(uint32_t v) {
  if (v == 0 || (v & (v - 1)) != 0)
    throw std::logic_error(fmt::format("{} is not a power of two: a tile parameter shifted by is one", v));
  uint32_t n = 0;
  while ((1u << n) != v) ++n;
  return n;
}

BuildParam persistent_ctas_param() {
  return {"ctas",
          "persistent CTAs in the grid: 132 is one per SM of an H100 SXM; fewer leave SMs idle but, when "
          "the tiles do not divide evenly, may end the last round sooner; a cluster launch also needs "
          "whole clusters to fit in one GPC each",
          128,
          {64, 96, 120, 128, 132}};
}

BuildParam c_dtype_param() {
  return {"c_dtype",
          "C's element type: 32 f32 (compared with cuBLAS's f32 output), 16 bf16 (half the bytes stored; compared "
          "with cuBLAS's bf16 output); c_dtype=f32 and c_dtype=bf16 name them",
          32,
          {16, 32}};
}

DType c_dtype_of(const KernelInfo& info, const ParamValues& params) {
  const auto declared =
      std::find_if(info.params.begin(), info.params.end(), [](const BuildParam& p) { return p.name == "c_dtype"; });
  if (declared == info.params.end()) return info.c_dtype;
  const auto it = params.find("c_dtype");
  // The kernel's own default: step 19 declares bf16, the type its stmatrix stores.
  const uint32_t bits = it != params.end() ? it->second : declared->default_value;
  return bits == 16 ? DType::bf16 : DType::f32;
}

namespace {

struct NamedValue {
  std::string_view param, value;
  uint32_t number;
};
// Each parameter's names in the order its values are listed.
constexpr NamedValue kNamedValues[] = {
    {"c_dtype", "f32", 32},        {"c_dtype", "bf16", 16},           {"order", "row", 0},
    {"order", "grouped", 1},       {"order", "hilbert", 2},           {"c_store_hint", "none", 0},
    {"c_store_hint", "evict_first", 1}, {"store_barrier", "consumers", 0}, {"store_barrier", "warpgroup", 1},
    {"staging", "chunks", 0},      {"staging", "slab", 1},            {"share", "b", 0},
    {"share", "a", 1}};

}  // namespace

std::optional<uint32_t> named_param_value(std::string_view param, std::string_view value) {
  for (const NamedValue& n : kNamedValues)
    if (n.param == param && n.value == value) return n.number;
  return std::nullopt;
}

std::string named_param_values_text() {
  std::string text;
  for (size_t i = 0; i < std::size(kNamedValues); ++i) {
    const NamedValue& n = kNamedValues[i];
    const bool first = i == 0 || kNamedValues[i - 1].param != n.param;
    const bool last = i + 1 == std::size(kNamedValues) || kNamedValues[i + 1].param != n.param;
    if (first) text += fmt::format("{}{}={}", text.empty() ? "" : ", ", n.param, n.value);
    else text += fmt::format("{}{}", last ? " or " : ", ", n.value);
  }
  return text;
}

const BuildParam& require_param(const KernelInfo& info, std::string_view name) {
  auto it = std::find_if(info.params.begin(), info.params.end(), [&](const BuildParam& p) { return p.name == name; });
  if (it == info.params.end()) {
    std::string valid;
    for (const BuildParam& p : info.params) valid += (valid.empty() ? "" : ", ") + p.name;
    throw ConfigError(fmt::format("unknown build parameter '{}' for {}: {}", name, info.id,
                                  valid.empty() ? "this kernel has no build parameters" : "valid parameters are " + valid));
  }
  return *it;
}

void require_param_value(const KernelInfo& info, std::string_view name, uint32_t value) {
  const BuildParam& p = require_param(info, name);
  if (std::find(p.choices.begin(), p.choices.end(), value) == p.choices.end())
    throw ConfigError(fmt::format("{}={} is not a value {} takes: choose one of {} (default {})", name, value, info.id,
                                  fmt::join(p.choices, ", "), p.default_value));
}

ParamValues resolve_params(const KernelInfo& info, const ParamValues& requested) {
  for (const auto& [name, value] : requested) require_param_value(info, name, value);
  ParamValues all;
  for (const BuildParam& p : info.params) {
    auto it = requested.find(p.name);
    all[p.name] = it != requested.end() ? it->second : p.default_value;
  }
  if (info.check_params)
    if (const std::optional<std::string> why = info.check_params(all))
      throw ConfigError(fmt::format("{} cannot be built with {}: {}", info.id, params_text(all), *why));
  return all;
}

GemmShape tile_of(const KernelInfo& info, const ParamValues& params) {
  if (!info.build_tile) {
    resolve_params(info, params);  // the same refusals for every kernel
    return info.tile;
  }
  return info.build_tile(resolve_params(info, params));
}

void check_build_shape(const KernelInfo& info, const GemmShape& shape, const ParamValues& params) {
  const GemmShape tile = tile_of(info, params);
  if (info.check_shape) info.check_shape(shape, tile);
}

std::optional<CtaTile> cta_tile_of(const KernelInfo& info, const ParamValues& params, const GemmShape& shape,
                                   const std::array<uint32_t, 3>& ctaid) {
  if (!info.cta_tile) return std::nullopt;
  return info.cta_tile(shape, tile_of(info, params), ctaid);
}

std::string params_text(const ParamValues& values) {
  std::string out;
  for (const auto& [name, value] : values) out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, value);
  return out;
}

std::string non_default_params_text(const KernelInfo& info, const ParamValues& values) {
  ParamValues changed;
  for (const auto& [name, value] : values) {
    const bool is_default = std::any_of(info.params.begin(), info.params.end(),
                                        [&](const BuildParam& p) { return p.name == name && p.default_value == value; });
    if (!is_default) changed[name] = value;
  }
  return params_text(changed);
}

ir::Kernel build_kernel(const KernelInfo& info, const GemmConfig& requested) {
  GemmConfig config = requested;
  config.params = resolve_params(info, requested.params);
  const GemmShape tile = info.build_tile ? info.build_tile(config.params) : info.tile;
  info.check_shape(requested.shape, tile);
  require_mistakes(info, requested.mistakes);
  ir::Kernel k = info.build(config);
  // C's tiling, from what every step declares (its tile and C's type), for the model's record of
  // which CTA wrote which tile (model::CSchedule).
  std::vector<uint32_t> walk = std::move(k.output.walk);  // a persistent kernel's own declaration
  k.output = {config.shape.m, config.shape.n, c_dtype_of(info, config.params) == DType::f32 ? 4u : 2u, tile.m, tile.n};
  k.output.walk = std::move(walk);
  ir::verify(k);
  return k;
}

}  // namespace gs::kernels
