// Test helpers for kernels whose build parameters constrain one another (the SIMT steps' tiles,
// KernelInfo::check_params): every combination a kernel builds, a build that has a given value,
// and a small shape that build takes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kernels/registry.hpp"

namespace gs::test {

// Every combination of the kernel's declared values (the last parameter changing fastest) that
// resolve_params accepts. One empty combination for a kernel without parameters.
inline std::vector<kernels::ParamValues> valid_combinations(const kernels::KernelInfo& info) {
  std::vector<kernels::ParamValues> all{{}};
  for (const kernels::BuildParam& p : info.params) {
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

// A small shape the build takes: the kernel's example shape where it fits, else two CTA tiles
// each way and two K chunks.
inline kernels::GemmShape shape_for(const kernels::KernelInfo& info, const kernels::ParamValues& params) {
  try {
    kernels::check_build_shape(info, info.example_shape, params);
    return info.example_shape;
  } catch (const kernels::ConfigError&) {
  }
  const kernels::GemmShape t = kernels::tile_of(info, params);
  return {2 * t.m, 2 * t.n, 2 * t.k};
}

}  // namespace gs::test
