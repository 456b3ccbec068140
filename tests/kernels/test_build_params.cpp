// Build parameters (KernelInfo::params, "stages" of the ring kernels): every declared value
// builds, assembles and computes C correctly on the model; bad names and values are refused
// with messages naming what is valid; the declared stage count is the ring the kernel gets.
#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/ptx/emit.hpp"
#include "kernels/registry.hpp"
#include "run/sim_job.hpp"
#include "tests/support/param_combos.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;

namespace {

// The stage count of the kernel's A tiles, as it declared them (b.operand_stages).
uint32_t a_stages(const ir::Kernel& k) {
  for (const ir::SharedAlloc& a : k.smem)
    if (a.use == ir::SmemUse::tile && a.operand == ir::GemmOperand::a) return a.stages;
  return 0;
}

}  // namespace

TEST_CASE("every build parameter declares a default among its ascending choices", "[kernels][params]") {
  int with_stages = 0;
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    for (const kernels::BuildParam& p : info.params) {
      INFO(info.id << " " << p.name);
      CHECK(!p.description.empty());
      REQUIRE(!p.choices.empty());
      CHECK(std::is_sorted(p.choices.begin(), p.choices.end()));
      CHECK(std::adjacent_find(p.choices.begin(), p.choices.end()) == p.choices.end());
      CHECK(std::find(p.choices.begin(), p.choices.end(), p.default_value) != p.choices.end());
      with_stages += p.name == "stages";
    }
  }
  // The Ampere ldmatrix ring and the Hopper rings of steps 13-16 at least.
  CHECK(with_stages >= 5);
}

TEST_CASE("every value of every build parameter builds the ring it names and assembles", "[kernels][params][ptxas]") {
  // No sections: Catch2 runs a test case again for each of its sections, which emptied the set of
  // texts already assembled each time (177 runs of ptxas where 110 texts differ). A value that
  // gives the same PTX as another (e.g. more CTAs than tiles) is assembled once.
  std::set<std::string> assembled;
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    for (const kernels::BuildParam& p : info.params) {
      for (uint32_t v : p.choices) {
        INFO(info.id << " " << p.name << "=" << v);
        // The defaults with this value, or the first combination that builds with it (the SIMT
        // tiles constrain one another); every declared value builds in some combination.
        const std::optional<kernels::ParamValues> params = test::build_with(info, p.name, v);
        REQUIRE(params);
        const ir::Kernel k = kernels::build_kernel(info, {test::shape_for(info, *params), {}, *params});
        if (p.name == "stages") CHECK(a_stages(k) == v);
        const std::string text = ptx::emit(k).text;
        if (assembled.insert(text).second) test::check_assembles(text, info.arch, info.id);
      }
    }
  }
  // The tensor-core steps' tiles: every valid combination of the parameters that shape the tile
  // (the others at their defaults), each also with the shallowest and the deepest ring it takes
  // (a ring's depth changes only its sizes: every depth of the default tile is assembled above).
  struct Combined {
    std::string_view id;
    std::vector<std::string> names;
  };
  const Combined combined[] = {{"ampere_ldmatrix", {"bm", "bn", "wm", "wn"}},
                               {"hopper_producer_consumer", {"bn"}},
                               {"hopper_two_consumers", {"bn"}},
                               {"hopper_persistent", {"bn"}},
                               {"hopper_fewer_arrivals", {"bn"}},
                               {"hopper_cluster_multicast", {"bn"}},
                               {"hopper_tma_store", {"bn"}},
                               {"hopper_stmatrix_epilogue", {"bm", "bn", "share"}}};
  for (const Combined& c : combined) {
    const kernels::KernelInfo& info = kernels::kernel_or_throw(c.id);
    const kernels::BuildParam& stages = kernels::require_param(info, "stages");
    int built = 0;
    for (const kernels::ParamValues& tile : test::valid_combinations(info, c.names)) {
      std::vector<kernels::ParamValues> rings{tile};
      for (auto depth = stages.choices.begin(); depth != stages.choices.end(); ++depth)  // the shallowest
        if (const auto p = test::with_value(info, tile, "stages", *depth)) {
          rings.push_back(*p);
          break;
        }
      for (auto depth = stages.choices.rbegin(); depth != stages.choices.rend(); ++depth)  // the deepest
        if (const auto p = test::with_value(info, tile, "stages", *depth)) {
          rings.push_back(*p);
          break;
        }
      for (const kernels::ParamValues& params : rings) {
        INFO(info.id << " " << kernels::params_text(params));
        const std::string text = ptx::emit(kernels::build_kernel(info, {test::shape_for(info, params), {}, params})).text;
        if (assembled.insert(text).second)
          test::check_assembles(text, info.arch, info.id + " " + kernels::params_text(params));
        ++built;
      }
    }
    INFO(c.id);
    CHECK(built >= 6);
  }
}

TEST_CASE("the shallowest and deepest ring compute C exactly on the model", "[kernels][params][model]") {
  // The default is run by every other kernel test; the two ends of each range here.
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    for (const kernels::BuildParam& p : info.params) {
      for (uint32_t v : {p.choices.front(), p.choices.back()}) {
        if (v == p.default_value) continue;
        DYNAMIC_SECTION(info.id << " " << p.name << "=" << v) {
          // A value that builds the kernel as it ships (ctas above the example's tiles) is run
          // by every other kernel test.
          const std::optional<kernels::ParamValues> params = test::build_with(info, p.name, v);
          REQUIRE(params);
          const kernels::GemmShape shape = test::shape_for(info, *params);
          const std::string text = ptx::emit(kernels::build_kernel(info, {shape, {}, *params})).text;
          const auto as_shipped = [&]() -> std::string {
            try {
              return ptx::emit(kernels::build_kernel(info, {shape, {}, {}})).text;
            } catch (const kernels::ConfigError&) {  // a shape only the other tile takes
              return {};
            }
          };
          if (text == as_shipped()) continue;
          run::SimRequest req;
          req.kernel_id = info.id;
          req.shape = shape;
          req.params = *params;
          req.trace = false;
          const run::SimReport r = run::run_sim(req);
          CHECK(r.params.at(p.name) == v);
          CHECK(r.result.hazards.empty());
          CHECK(r.result.completed);
          CHECK(r.cmp.correct);
          CHECK(r.cmp.mismatches == 0);
        }
      }
    }
  }
}

TEST_CASE("build parameters: unknown names and values are refused naming the valid ones", "[kernels][params][errors]") {
  const kernels::KernelInfo& ring = kernels::kernel_or_throw("hopper_two_consumers");
  const kernels::KernelInfo& naive = kernels::kernel_or_throw("simt_naive");
  CHECK_THROWS_WITH(kernels::resolve_params(ring, {{"stages", 10}}),
                    "stages=10 is not a value hopper_two_consumers takes: choose one of 2, 3, 4, 5, 6, 7, 8, 9 "
                    "(default 3)");
  CHECK_THROWS_WITH(kernels::resolve_params(ring, {{"stage", 3}}),
                    "unknown build parameter 'stage' for hopper_two_consumers: valid parameters are bn, stages");
  CHECK_THROWS_WITH(kernels::resolve_params(naive, {{"stages", 2}}),
                    "unknown build parameter 'stages' for simt_naive: this kernel has no build parameters");
  CHECK_THROWS_AS(kernels::build_kernel(ring, {ring.example_shape, {}, {{"stages", 1}}}), kernels::ConfigError);
  // Unset parameters take their defaults; the texts name all of them, or only what differs.
  const kernels::ParamValues all = kernels::resolve_params(ring, {});
  CHECK(all == kernels::ParamValues{{"bn", 256}, {"stages", 3}});
  CHECK(kernels::params_text(all) == "bn=256 stages=3");
  CHECK(kernels::non_default_params_text(ring, all).empty());
  CHECK(kernels::non_default_params_text(ring, {{"bn", 256}, {"stages", 2}}) == "stages=2");
  CHECK(kernels::resolve_params(naive, {}).empty());
  // A build function that reads a parameter its kernel never declared is a bug, not bad input.
  kernels::GemmConfig cfg;
  CHECK_THROWS_AS(cfg.param("stages"), std::logic_error);
}
