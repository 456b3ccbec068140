// The probe cases that `gemmscope probe` and the tests run: kernel + inputs per case.
//
// These are inline on purpose: the probe kernels live in the gemmscope_kernels library, which
// links after gemmscope_engine's users but before gemmscope_engine itself (engine -> kernels is
// not declared, to keep the libraries acyclic). Building the kernels in the caller's object
// file (the command line, a test) makes that object pull the probe kernels into the link.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "run/probe_matrix.hpp"
#include "run/probe_run.hpp"
#include "kernels/probes.hpp"
#include "kernels/registry.hpp"

namespace gs::run {

// The names `gemmscope probe NAME` accepts.
inline std::vector<std::string> probe_group_names() {
  return {"tma", "mbarrier", "wgmma", "wgmma-desc", "mma", "ldmatrix", "cluster", "warpgroup", "all"};
}

// The descriptors `gemmscope probe wgmma-desc` puts to the tensor core, each reading a 16 KB
// region whose every bf16 names its own offset (probe_desc.hpp). Canonical tiles of every
// swizzle, K- and MN-major; LBO and SBO that are not the canonical ones (swapped roles, an LBO
// that K-major swizzled layouts must not read, an SBO off the repeat); and the base offset on
// tiles off their repeat. A is 64 rows (M), B up to 256 (N) so that MN-major 128B spans atoms.
inline std::vector<kernels::WgmmaDescProbe> wgmma_desc_probes() {
  using layout::Swizzle;
  // fields(swizzle, LBO, SBO, base offset); the start comes from start_offset at run time.
  const auto fields = [](Swizzle sw, uint32_t lbo, uint32_t sbo, uint32_t base = 0) {
    return layout::WgmmaDescriptor{0, lbo, sbo, base, sw};
  };
  const auto k_major = [&](std::string name, uint32_t start, layout::WgmmaDescriptor f, char operand = 'A',
                           uint32_t n = 16) {
    return kernels::WgmmaDescProbe{std::move(name), operand, n, true, start, f};
  };
  const auto mn_major = [&](std::string name, uint32_t start, layout::WgmmaDescriptor f, char operand = 'A',
                            uint32_t n = 16) {
    return kernels::WgmmaDescProbe{std::move(name), operand, n, false, start, f};
  };
  return {
      // K-major, canonical (facts §1.4): rows at the span, 8-row groups SBO = 8 x span apart.
      k_major("none-K", 0, fields(Swizzle::none, 128, 256)),
      k_major("32B-K", 0, fields(Swizzle::b32, 16, 256)),
      k_major("64B-K", 0, fields(Swizzle::b64, 16, 512)),
      k_major("128B-K", 0, fields(Swizzle::b128, 16, 1024)),
      k_major("128B-K +64", 64, fields(Swizzle::b128, 16, 1024)),  // the third k16 step of a 64-wide tile
      k_major("128B-K n128 B", 0, fields(Swizzle::b128, 16, 1024), 'B', 128),
      k_major("none-K n64 B", 0, fields(Swizzle::none, 128, 256), 'B', 64),
      // K-major, LBO and SBO off the canonical values.
      k_major("none-K swapped", 0, fields(Swizzle::none, 1024, 128)),  // K halves 1 KB apart, groups packed
      k_major("64B-K LBO4096", 0, fields(Swizzle::b64, 4096, 512)),     // swizzled K-major must ignore LBO
      k_major("128B-K SBO1152", 0, fields(Swizzle::b128, 16, 1152)),    // groups off the repeat: phase shifts
      // Base offset: tiles that start off their repeat, with and without the PTX ISA's value.
      k_major("128B-K @128", 128, fields(Swizzle::b128, 16, 1024)),
      k_major("128B-K @128 b1", 128, fields(Swizzle::b128, 16, 1024, 1)),
      k_major("128B-K @384 b3", 384, fields(Swizzle::b128, 16, 1024, 3)),
      k_major("128B-K b3", 0, fields(Swizzle::b128, 16, 1024, 3)),
      k_major("128B-K b1", 0, fields(Swizzle::b128, 16, 1024, 1)),
      k_major("128B-K @128 b5", 128, fields(Swizzle::b128, 16, 1024, 5)),
      k_major("64B-K b1", 0, fields(Swizzle::b64, 16, 512, 1)),
      k_major("64B-K b4", 0, fields(Swizzle::b64, 16, 512, 4)),  // bit 2 against a 2-bit phase
      k_major("32B-K b1", 0, fields(Swizzle::b32, 16, 256, 1)),
      k_major("64B-K @128 b1", 128, fields(Swizzle::b64, 16, 512, 1)),
      k_major("64B-K @640 b5", 640, fields(Swizzle::b64, 16, 512, 5)),
      k_major("32B-K @128 b1", 128, fields(Swizzle::b32, 16, 256, 1)),
      k_major("none-K b3", 0, fields(Swizzle::none, 128, 256, 3)),
      // MN-major (imm-trans = 1). none: SBO steps MN core matrices, LBO 8-K-row groups;
      // swizzled: LBO steps MN atoms, SBO 8-K-row groups (facts §1.4, CUTLASS).
      mn_major("none-MN", 0, fields(Swizzle::none, 1024, 128)),
      mn_major("none-MN interleaved", 0, fields(Swizzle::none, 128, 256)),
      mn_major("32B-MN", 0, fields(Swizzle::b32, 512, 256)),
      mn_major("64B-MN", 0, fields(Swizzle::b64, 1024, 512)),
      mn_major("128B-MN", 0, fields(Swizzle::b128, 8192, 1024)),  // M = 64 is one atom: LBO unread
      mn_major("128B-MN @128 b1", 128, fields(Swizzle::b128, 8192, 1024, 1)),
      mn_major("64B-MN @128 b1", 128, fields(Swizzle::b64, 1024, 512, 1)),
      mn_major("128B-MN n256 B", 0, fields(Swizzle::b128, 2048, 1024), 'B', 256),
      mn_major("none-MN n256 B", 0, fields(Swizzle::none, 128, 256), 'B', 256),
  };
}

// The cases of one group (a name of probe_group_names()) or of "all". Throws
// kernels::ConfigError naming the valid names for anything else.
inline std::vector<ProbeCase> probe_cases(std::string_view group) {
  const bool all = group == "all";
  const std::vector<std::string> names = probe_group_names();
  if (std::find(names.begin(), names.end(), group) == names.end())
    throw kernels::ConfigError(fmt::format("'{}' is not a probe: valid names are {}", group, fmt::join(names, ", ")));
  std::vector<ProbeCase> cases;
  if (all || group == "tma") {
    struct Box {
      uint32_t cols;
      layout::Swizzle swizzle;
    };
    // Each swizzle with the widest box its span allows, and the unswizzled layout at two widths
    // (the same boxes as tests/model/test_model_facts.cpp).
    for (const Box box : {Box{16, layout::Swizzle::b32}, Box{32, layout::Swizzle::b64}, Box{64, layout::Swizzle::b128},
                          Box{64, layout::Swizzle::none}, Box{16, layout::Swizzle::none}})
      cases.push_back(
          make_tma_probe_case(box.cols, box.swizzle, kernels::build_tma_placement_probe(box.cols, box.swizzle)));
  }
  if (all || group == "mbarrier") cases.push_back(make_mbarrier_probe_case(kernels::build_mbarrier_parity_probe()));
  if (all || group == "wgmma")
    for (const uint32_t n : {8u, 16u, 64u, 256u}) cases.push_back(make_wgmma_probe_case(n, kernels::build_wgmma_layout_probe(n)));
  if (all || group == "wgmma-desc")
    for (const kernels::WgmmaDescProbe& desc : wgmma_desc_probes())
      cases.push_back(make_wgmma_desc_probe_case(desc, kernels::build_wgmma_descriptor_probe(desc)));
  if (all || group == "mma") cases.push_back(make_mma_probe_case(kernels::build_mma_sync_probe()));
  if (all || group == "ldmatrix")
    for (const bool store : {false, true})
      for (const uint32_t num : {1u, 2u, 4u})
        for (const bool trans : {false, true})
          cases.push_back(make_matrix_probe_case(num, trans, store, kernels::build_matrix_probe(num, trans, store)));
  if (all || group == "cluster") cases.push_back(make_cluster_probe_case(kernels::build_cluster_probe()));
  if (all || group == "warpgroup") cases.push_back(make_warpgroup_probe_case(kernels::build_warpgroup_probe()));
  return cases;
}

}  // namespace gs::run
