// The straight path of an untraced whole warp's bar.sync (engine/model/exec_sync.cpp:
// direct_bar_sync, decoded by bar_sync_direct_for) against exec_bar (SimOptions::straight_barriers
// = false): the same C, statistics, cycles and hazards, for kernels whose bar.syncs are CTA-wide
// (the Ampere steps' four warps, one a scheduler; the SIMT steps' eight or more, several a
// scheduler) and named with a count (steps 18 and 19's consumers), with mistakes that take a
// barrier out or race across one, and the traced CTA's events (which keep exec_bar's); and which
// bar.syncs the decoder gives it.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "engine/builder/builder.hpp"
#include "engine/model/decode.hpp"
#include "tests/model/model_fixture.hpp"

using namespace gs;

TEST_CASE("bar.sync's straight path does what exec_bar does", "[model][barrier]") {
  struct Case {
    std::string id;
    kernels::GemmShape shape;
    std::set<std::string> mistakes;
    kernels::ParamValues params;
  };
  const std::vector<Case> cases = {
      {"ampere_cp_async", {128, 128, 256}, {}, {}},
      {"ampere_cp_async", {64, 64, 64}, {"no-sync-before-prefetch"}, {}},
      {"ampere_ldmatrix", {128, 128, 128}, {}, {}},
      {"simt_smem_tiling", {64, 64, 64}, {}, {}},
      {"simt_smem_tiling", {64, 64, 64}, {"no-sync-after-load"}, {}},
      {"simt_warptile", {128, 128, 64}, {}, {}},
      {"hopper_tma_store", {256, 256, 128}, {}, {{"cluster", 1}}},
      {"hopper_tma_store", {256, 256, 128}, {"missing-proxy-fence"}, {{"cluster", 1}}},
      {"hopper_stmatrix_epilogue", {256, 256, 128}, {}, {}},
  };
  for (const Case& k : cases)
    for (const bool trace : {false, true}) {
      INFO(test::case_label(k.id, k.shape, k.mistakes, trace));
      model::SimOptions opt;
      opt.trace = trace;
      opt.straight_barriers = false;
      const test::ModelRun exec = test::run_model(k.id, k.shape, true, 7, k.mistakes, opt, k.params);
      opt.straight_barriers = true;
      const test::ModelRun straight = test::run_model(k.id, k.shape, true, 7, k.mistakes, opt, k.params);
      CHECK(straight.bufs.c == exec.bufs.c);
      CHECK(straight.mismatches == exec.mismatches);
      test::check_same_run(straight.result, exec.result);
      CHECK(straight.result.completed);
      // The traced CTA keeps exec_bar and its events: the same events, barriers' among them.
      const model::Table<model::Event>& got = straight.result.trace.events;
      const model::Table<model::Event>& want = exec.result.trace.events;
      REQUIRE(got.size() == want.size());
      uint32_t differ = 0, barrier_events = 0;
      for (size_t i = 0; i < want.size(); ++i) {
        differ += got[i].cycle != want[i].cycle || got[i].kind != want[i].kind || got[i].warp != want[i].warp ||
                  got[i].inst != want[i].inst || got[i].payload != want[i].payload || got[i].a != want[i].a;
        barrier_events += got[i].kind == model::EventKind::bar_blocked || got[i].kind == model::EventKind::bar_released;
      }
      CHECK(differ == 0);
      CHECK((barrier_events > 0) == trace);
      if (k.mistakes.empty()) CHECK(straight.result.hazards.empty());
      else CHECK(!straight.result.hazards.empty());
    }
}

TEST_CASE("bar.sync's straight path is given to a bar.sync with no count or an immediate one", "[model][barrier]") {
  builder::Builder b("bars", ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {128, 1, 1}});
  const builder::Reg tid = b.special(ir::Special::tid_x, "tid");  // a register for the count below
  b.bar_sync(0);        // CTA-wide
  b.bar_sync(1, 64);    // named, 64 threads
  b.bar_arrive(2, 64);  // not a wait: exec_bar alone
  b.bar_sync(3, 96);    // its count turned into a register below
  b.ret();
  ir::Kernel k = b.finish();
  std::vector<uint32_t> at;
  for (uint32_t pc = 0; pc < k.insts.size(); ++pc)
    if (k.insts[pc].op == ir::Op::bar_sync || k.insts[pc].op == ir::Op::bar_arrive) at.push_back(pc);
  REQUIRE(at.size() == 4);
  ir::Operand& count = k.insts[at[3]].operands.back();
  count = ir::Operand::reg(tid.id());
  const model::Program p = model::decode_program(k);
  CHECK(p.insts[at[0]].direct != nullptr);
  CHECK(p.insts[at[0]].barrier_id == 0);
  CHECK(p.insts[at[0]].barrier_threads == model::DecodedInst::kEveryThread);
  CHECK(p.insts[at[1]].direct != nullptr);
  CHECK(p.insts[at[1]].barrier_id == 1);
  CHECK(p.insts[at[1]].barrier_threads == 64);
  CHECK(p.insts[at[2]].direct == nullptr);
  CHECK(p.insts[at[3]].direct == nullptr);
  // Off (SimOptions::straight_barriers), none has it.
  const model::Program off = model::decode_program(k, {}, {}, true, false);
  for (const uint32_t pc : at) CHECK(off.insts[pc].direct == nullptr);
}
