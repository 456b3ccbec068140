// Test helpers for kernels whose build parameters constrain one another (the SIMT steps' tiles,
// KernelInfo::check_params): every combination a kernel builds, a build that has a given value,
// and a small shape that build takes.
#pragma once

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kernels/registry.hpp"

namespace gs::test {

// Every combination of the kernel's declared values (the last parameter changing fastest) that
// resolve_params accepts; with `only`, of those parameters' values, the others at their
// defaults. One empty combination for a kernel without parameters.
inline std::vector<kernels::ParamValues> valid_combinations(const kernels::KernelInfo& info,
                                                            const std::vector<std::string>& only = {}) {
  std::vector<kernels::ParamValues> all{{}};
  for (const kernels::BuildParam& p : info.params) {
    if (!only.empty() && std::find(only.begin(), only.end(), p.name) == only.end()) continue;
    std::vector<kernels::ParamValues> next;
    for (const kernels::ParamValues& base : all)
      for (uint32_t v : p.choices) {
        kernels::ParamValues c = base;
        c[p.name] = v;
        next.push_back(std::move(c));
      }
    all = std::move(next);
  }
  std::vector<kernels::ParamValues> valid;
  for (const kernels::ParamValues& c : all) {
    try {
      valid.push_back(kernels::resolve_params(info, c));
    } catch (const kernels::ConfigError&) {
    }
  }
  return valid;
}

// `params` with name=value, where the kernel takes that combination; nullopt where it does not.
inline std::optional<kernels::ParamValues> with_value(const kernels::KernelInfo& info, kernels::ParamValues params,
                                                      const std::string& name, uint32_t value) {
  params[name] = value;
  try {
    return kernels::resolve_params(info, params);
  } catch (const kernels::ConfigError&) {
    return std::nullopt;
  }
}

// A build with name=value: the defaults with that one value where they combine, else the first
// valid combination that has it; nullopt when no combination has it.
inline std::optional<kernels::ParamValues> build_with(const kernels::KernelInfo& info, const std::string& name,
                                                      uint32_t value) {
  try {
    return kernels::resolve_params(info, {{name, value}});
  } catch (const kernels::ConfigError&) {
  }
  for (const kernels::ParamValues& c : valid_combinations(info))
    if (c.at(name) == value) return c;
  return std::nullopt;
}

// The combinations a kernel's tile tests run: for every declared value, the first build that
// has it (build_with), without repeats.
inline std::vector<kernels::ParamValues> covering_builds(const kernels::KernelInfo& info) {
  std::set<kernels::ParamValues> seen;
  std::vector<kernels::ParamValues> out;
  for (const kernels::BuildParam& p : info.params)
    for (uint32_t v : p.choices)
      if (const auto c = build_with(info, p.name, v); c && seen.insert(*c).second) out.push_back(*c);
  return out;
}

// A persistent kernel (one that declares "ctas") launched with `ctas` CTAs: its example's N and
// K (so each tile's K-blocks go round the ring as in the example) and only as many rows of tiles
// as give each CTA the tiles each of the default CTAs gets at the example shape. nullopt where
// the kernel declares no "ctas", or where that is not smaller than the example. Step 23's
// example (444 tiles for 148 CTAs, 1.9 G multiply-adds) took 14-18 s a whole-grid run under the
// sanitizers; with 16 CTAs each still takes three tiles (buffer 0, 1 and 0 again) in 48.
inline std::optional<kernels::GemmShape> persistent_shape(const kernels::KernelInfo& info, uint32_t ctas) {
  const auto p = std::find_if(info.params.begin(), info.params.end(),
                              [](const kernels::BuildParam& b) { return b.name == "ctas"; });
  if (p == info.params.end()) return std::nullopt;
  const kernels::GemmShape e = info.example_shape, t = kernels::tile_of(info, {});
  const uint32_t tiles_m = (e.m + t.m - 1) / t.m, tiles_n = (e.n + t.n - 1) / t.n;
  const uint32_t per_cta = (tiles_m * tiles_n + p->default_value - 1) / p->default_value;
  const uint32_t rows = (ctas * per_cta + tiles_n - 1) / tiles_n;
  if (rows >= tiles_m) return std::nullopt;
  const kernels::GemmShape s{rows * t.m, e.n, e.k};
  try {
    kernels::check_build_shape(info, s, {{"ctas", ctas}});
  } catch (const kernels::ConfigError&) {
    return std::nullopt;
  }
  return s;
}

// A small shape the build takes: the kernel's example shape where it fits (a persistent build's
// persistent_shape where that is smaller), else two CTA tiles each way and two K chunks.
inline kernels::GemmShape shape_for(const kernels::KernelInfo& info, const kernels::ParamValues& params) {
  if (const auto c = params.find("ctas"); c != params.end())
    if (const std::optional<kernels::GemmShape> s = persistent_shape(info, c->second)) return *s;
  try {
    kernels::check_build_shape(info, info.example_shape, params);
    return info.example_shape;
  } catch (const kernels::ConfigError&) {
  }
  const kernels::GemmShape t = kernels::tile_of(info, params);
  return {2 * t.m, 2 * t.n, 2 * t.k};
}

// A whole grid for the tests that run every kernel (and mistake): the example shape as the kernel
// ships, except a persistent kernel whose example persistent_shape makes smaller with its fewest
// CTAs (the smallest "ctas" value). Step 23's default at its example runs in its own tests.
struct WholeGrid {
  kernels::GemmShape shape;
  kernels::ParamValues params;
};
inline WholeGrid small_whole_grid(const kernels::KernelInfo& info) {
  for (const kernels::BuildParam& p : info.params)
    if (p.name == "ctas")
      if (const std::optional<kernels::GemmShape> s = persistent_shape(info, p.choices.front()))
        return {*s, {{"ctas", p.choices.front()}}};
  // A grid that hands out its tiles with clusterlaunchcontrol (step 24) has one CTA per tile and
  // no "ctas" to shrink: 3 x 4 tiles of its example's K (its own tests run the example's queue).
  const ir::Kernel k = kernels::build_kernel(info, {info.example_shape, {}});
  for (const ir::Inst& i : k.insts)
    if (i.op == ir::Op::clc_try_cancel) {
      const kernels::GemmShape t = kernels::tile_of(info, {});
      return {{3 * t.m, 4 * t.n, info.example_shape.k}, {}};
    }
  return {info.example_shape, {}};
}

}  // namespace gs::test
