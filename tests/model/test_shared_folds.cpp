// ptxas folds narrow ld.shared of one base register into one wider load (LDS.64/LDS.128); the
// model charges them as that load: the folds are read from ptxas's line table, change what the
// shared-memory pipe is charged and nothing the kernel computes.
#include <catch2/catch.hpp>

#include <algorithm>

#include "engine/model/decode.hpp"
#include "engine/ptx/emit.hpp"
#include "engine/ptx/registers.hpp"
#include "engine/ptx/sass.hpp"
#include "kernels/registry.hpp"
#include "run/sim_job.hpp"
#include "tests/model/model_fixture.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;

namespace {

std::vector<uint32_t> shared_loads(const ir::Kernel& k) {
  std::vector<uint32_t> pcs;
  for (uint32_t pc = 0; pc < k.insts.size(); ++pc)
    if (k.insts[pc].op == ir::Op::ld_shared) pcs.push_back(pc);
  return pcs;
}

const ir::Operand& address_of(const ir::Inst& in) { return in.operands.at(std::max<uint32_t>(in.vec, 1)); }

}  // namespace

TEST_CASE("SASS per PTX line: each line-table row covers its 16-byte instructions", "[ptx][sass]") {
  // Rows: line 3 at 0x00 (2 instructions), line 5 at 0x20 (1), line 3 again at 0x30 (3, to the end).
  const std::vector<ptx::SassLineRow> rows = {{0x00, 3}, {0x20, 5}, {0x30, 3}};
  const std::vector<uint16_t> n = ptx::sass_per_line(rows, 0x60, 6);
  CHECK(n == std::vector<uint16_t>{0, 0, 5, 0, 1, 0});
  // A row past the lines known, or line 0, counts nowhere.
  CHECK(ptx::sass_per_line({{0x00, 9}, {0x10, 0}}, 0x20, 4) == std::vector<uint16_t>{0, 0, 0, 0});
}

TEST_CASE("shared-load folds: a load without SASS rides on the load of its window that has some", "[model][folds]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("simt_blocktile_1d");
  const ir::Kernel k = kernels::build_kernel(info, {info.example_shape, {}, {}});
  const std::vector<uint32_t> loads = shared_loads(k);
  REQUIRE(loads.size() >= 8);
  // Unknown counts, or every load with its own SASS: nothing folds.
  for (const model::SharedLoadFold& f : model::shared_load_folds(k, {})) CHECK(f.leader == ir::kNone);
  for (const model::SharedLoadFold& f : model::shared_load_folds(k, std::vector<uint16_t>(k.insts.size(), 1)))
    CHECK(f.leader == ir::kNone);
  // Find four loads of one base register whose offsets lie in one 16-byte window, and give only
  // the lowest a SASS instruction: the others fold into it, which then loads 16 B a lane.
  std::vector<uint32_t> group;
  for (uint32_t a : loads) {
    group = {a};
    for (uint32_t b : loads)
      if (b > a && address_of(k.insts[b]).id == address_of(k.insts[a]).id &&
          address_of(k.insts[b]).kind == address_of(k.insts[a]).kind &&
          address_of(k.insts[b]).imm / 16 == address_of(k.insts[a]).imm / 16 &&
          address_of(k.insts[a]).imm % 16 == 0)
        group.push_back(b);
    if (group.size() == 4) break;
  }
  REQUIRE(group.size() == 4);
  std::vector<uint16_t> sass(k.insts.size(), 1);
  for (size_t i = 1; i < group.size(); ++i) sass[group[i]] = 0;
  const std::vector<model::SharedLoadFold> folds = model::shared_load_folds(k, sass);
  CHECK(folds[group[0]].leader == ir::kNone);
  CHECK(folds[group[0]].members == 3);
  CHECK(folds[group[0]].bytes == 16);
  CHECK(folds[group[0]].shift == 0);
  for (size_t i = 1; i < group.size(); ++i) CHECK(folds[group[i]].leader == group[0]);
  // With the second load the only one with SASS, the first (below it) folds into it too: the
  // wider load starts 4 bytes below the leader's own address.
  std::vector<uint16_t> second(k.insts.size(), 1);
  sass = second;
  sass[group[0]] = sass[group[2]] = sass[group[3]] = 0;
  const std::vector<model::SharedLoadFold> g = model::shared_load_folds(k, sass);
  CHECK(g[group[0]].leader == group[1]);
  CHECK(g[group[1]].bytes == 16);
  CHECK(g[group[1]].shift == address_of(k.insts[group[0]]).imm - address_of(k.insts[group[1]]).imm);
  // Counts of another kernel's length are not this kernel's: ignored.
  for (const model::SharedLoadFold& f : model::shared_load_folds(k, std::vector<uint16_t>(3, 0)))
    CHECK(f.leader == ir::kNone);
}

TEST_CASE("shared-load folds: ptxas's own folds of steps 03-05 make the model's LDS count ptxas's", "[model][folds][ptxas]") {
  for (const char* id : {"simt_smem_tiling", "simt_blocktile_1d", "simt_blocktile_2d", "simt_vectorized"}) {
    INFO(id);
    const kernels::KernelInfo& info = kernels::kernel_or_throw(id);
    const ir::Kernel k = kernels::build_kernel(info, {{1024, 1024, 1024}, {}, {}});
    const ptx::CompiledKernel c = ptx::compiled_kernel(k);
    if (c.sass_per_inst.empty()) {
      if (test::ptxas_required()) FAIL("GEMMSCOPE_REQUIRE_PTXAS=1 but " << c.sass_source);
      WARN("skipped: " << c.sass_source);
      return;
    }
    REQUIRE(c.sass_per_inst.size() == k.insts.size());
    const std::vector<model::SharedLoadFold> folds = model::shared_load_folds(k, c.sass_per_inst);
    uint32_t with_sass = 0, folded = 0, unexplained = 0;
    for (uint32_t pc : shared_loads(k)) {
      if (c.sass_per_inst[pc] > 0) ++with_sass;
      if (folds[pc].leader != ir::kNone) {
        ++folded;
        const ir::Inst& leader = k.insts.at(folds[pc].leader);
        CHECK(leader.op == ir::Op::ld_shared);
        CHECK(c.sass_per_inst[folds[pc].leader] > 0);
        CHECK(address_of(leader).id == address_of(k.insts[pc]).id);
        CHECK(folds[folds[pc].leader].bytes > 4);
      } else if (c.sass_per_inst[pc] == 0) {
        ++unexplained;
      }
    }
    // Every load without SASS of its own is explained by a fold (none was dropped as dead).
    CHECK(unexplained == 0);
    CHECK(with_sass + folded == shared_loads(k).size());
    if (std::string(id) == "simt_vectorized") CHECK(folded == 0);  // it loads .v4 already
    else CHECK(folded > 0);
  }
}

TEST_CASE("ptxas: -lineinfo changes no code, the same registers and instructions with and without it", "[ptx][ptxas]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("simt_blocktile_2d");
  const ir::Kernel k = kernels::build_kernel(info, {{1024, 1024, 1024}, {}, {}});
  const std::string text = ptx::emit(k).text;
  ptx::PtxasOptions plain, lines;
  plain.keep_cubin = lines.keep_cubin = true;
  lines.line_info = true;
  const ptx::PtxasResult a = ptx::run_ptxas(text, ptx::occupancy_arch(k), plain);
  if (!a.ran) {
    if (test::ptxas_required()) FAIL("GEMMSCOPE_REQUIRE_PTXAS=1 but " << a.log);
    WARN("skipped: no ptxas");
    return;
  }
  const ptx::PtxasResult b = ptx::run_ptxas(text, ptx::occupancy_arch(k), lines);
  REQUIRE(a.ok);
  REQUIRE(b.ok);
  CHECK(ptx::parse_ptxas_report(a.log).registers == ptx::parse_ptxas_report(b.log).registers);
  CHECK(ptx::read_cubin_lines(a.cubin).text_size == ptx::read_cubin_lines(b.cubin).text_size);
  CHECK(ptx::read_cubin_lines(a.cubin).rows.empty());
  CHECK_FALSE(ptx::read_cubin_lines(b.cubin).rows.empty());
}

TEST_CASE("sim: the folded loads cost the shared-memory pipe one wider load, and C is unchanged", "[model][folds][ptxas]") {
  run::SimRequest req{.kernel_id = "simt_blocktile_1d", .shape = {256, 256, 64}};
  const run::SimReport r = run::run_sim(req);
  REQUIRE(r.ok());
  if (r.sass_source.find("ptxas") != 0) {
    if (test::ptxas_required()) FAIL("GEMMSCOPE_REQUIRE_PTXAS=1 but " << r.sass_source);
    WARN("skipped: " << r.sass_source);
    return;
  }
  REQUIRE(r.shared_loads_folded > 0);
  CHECK(r.shared_load_leaders > 0);
  CHECK(r.shared_load_leaders < r.shared_loads_folded + r.shared_load_leaders);
  // The same kernel with every load charged as written.
  model::SimOptions plain;
  plain.traced_cta = r.cta;
  test::ModelRun unfolded = test::run_model("simt_blocktile_1d", {256, 256, 64}, true, 1, {}, plain);
  model::SimOptions folded_opt = plain;
  folded_opt.sass_per_inst = ptx::compiled_kernel(unfolded.kernel).sass_per_inst;
  test::ModelRun folded = test::run_model("simt_blocktile_1d", {256, 256, 64}, true, 1, {}, folded_opt);
  REQUIRE(folded.result.completed);
  CHECK(folded.bufs.c == unfolded.bufs.c);
  CHECK(folded.mismatches == 0);
  CHECK(folded.result.stats.smem_wavefronts < unfolded.result.stats.smem_wavefronts);
  CHECK(folded.result.stats.smem_accesses == unfolded.result.stats.smem_accesses);
  // The trace says which loads rode on which.
  REQUIRE(folded.result.trace.smem.size() == unfolded.result.trace.smem.size());
  uint32_t riders = 0, leaders = 0;
  for (const model::SmemAccess& a : folded.result.trace.smem) {
    if (a.folded_into != ir::kNone) {
      ++riders;
      CHECK(a.wavefronts == 0);
      CHECK(folded.kernel.insts.at(a.folded_into).op == ir::Op::ld_shared);
    }
    if (a.folded_loads > 0) {
      ++leaders;
      CHECK(a.bytes > 4);
    }
  }
  CHECK(riders > 0);
  CHECK(leaders > 0);
  // The report says so.
  CHECK_THAT(run::sim_report_table(r), Catch::Contains("ptxas folds"));
  CHECK(run::sim_report_json(r)["prediction"]["shared_load_folds"]["folded"] == r.shared_loads_folded);
}
