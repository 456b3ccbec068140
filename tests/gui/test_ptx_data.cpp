// The PTX view's data: syntax classes of sample lines, line <-> instruction focus, and the
// execution counts drawn next to each line.
#include <catch2/catch.hpp>

#include <set>

#include "gui/core/ptx_data.hpp"
#include "gui/core/view_data.hpp"
#include "tests/gui/gui_fixture.hpp"

using namespace gs;
using namespace gs::gui;

namespace {

// (text, kind) of every non-blank token.
std::vector<std::pair<std::string, PtxTokenKind>> tokens_of(std::string_view line) {
  std::vector<std::pair<std::string, PtxTokenKind>> out;
  for (const PtxToken& t : tokenize_ptx_line(line)) {
    std::string s(line.substr(t.begin, t.length));
    if (s.find_first_not_of(" \t") == std::string::npos) continue;
    out.emplace_back(s, t.kind);
  }
  return out;
}

PtxTokenKind kind_of(std::string_view line, std::string_view token) {
  for (const auto& [s, k] : tokens_of(line))
    if (s == token) return k;
  FAIL("token '" << token << "' not found in '" << line << "'");
  return PtxTokenKind::count_;
}

}  // namespace

TEST_CASE("ptx: sample lines are classified by the op table", "[gui]") {
  const std::string guard = "\t@!%leader bra L_skip_0;";
  CHECK(kind_of(guard, "@!%leader") == PtxTokenKind::predicate);
  CHECK(kind_of(guard, "bra") == PtxTokenKind::op_control);
  CHECK(kind_of(guard, "L_skip_0") == PtxTokenKind::label);

  const std::string wait = "\tmbarrier.try_wait.parity.shared::cta.b64 %ready, [gs_smem+16384], %phase;";
  CHECK(kind_of(wait, "mbarrier.try_wait.parity.shared::cta.b64") == PtxTokenKind::op_mbarrier);
  CHECK(kind_of(wait, "%ready") == PtxTokenKind::reg);
  CHECK(kind_of(wait, "16384") == PtxTokenKind::immediate);
  CHECK(kind_of(wait, "%phase") == PtxTokenKind::reg);

  CHECK(opcode_kind("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes") ==
        PtxTokenKind::op_tma);
  CHECK(opcode_kind("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16") == PtxTokenKind::op_mma);
  CHECK(opcode_kind("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32") == PtxTokenKind::op_mma);
  CHECK(opcode_kind("ld.shared.v4.b32") == PtxTokenKind::op_memory);
  CHECK(opcode_kind("st.global.v2.f32") == PtxTokenKind::op_memory);
  CHECK(opcode_kind("ld.param.u64") == PtxTokenKind::op_memory);
  // "cvt" must not claim cvta.param, and both are conversions (ALU colour).
  CHECK(opcode_kind("cvta.param.u64") == PtxTokenKind::op_alu);
  CHECK(opcode_kind("setp.eq.u32") == PtxTokenKind::op_alu);
  CHECK(opcode_kind("bar.sync") == PtxTokenKind::op_sync);
  CHECK(opcode_kind("fence.proxy.async.shared::cta") == PtxTokenKind::op_sync);
  CHECK(opcode_kind("ret") == PtxTokenKind::op_control);

  const std::string decl = "\t.reg .u32 %tid_, %cta_y;";
  CHECK(kind_of(decl, ".reg") == PtxTokenKind::directive);
  CHECK(kind_of(decl, ".u32") == PtxTokenKind::directive);
  CHECK(kind_of(decl, "%tid_") == PtxTokenKind::reg);

  const std::string desc = "\tor.b64 %a_desc, %a_desc_start, 0x4000004000010000;\t// descriptor: SBO=1024";
  CHECK(kind_of(desc, "or.b64") == PtxTokenKind::op_alu);
  CHECK(kind_of(desc, "0x4000004000010000") == PtxTokenKind::immediate);
  CHECK(kind_of(desc, "// descriptor: SBO=1024") == PtxTokenKind::comment);

  CHECK(kind_of("L_kb:", "L_kb:") == PtxTokenKind::label);
  CHECK(kind_of("\tmov.u32 %tid_, %tid.x;", "%tid.x") == PtxTokenKind::reg);
  CHECK(kind_of("// hopper_tma_wgmma_64 - generated", "// hopper_tma_wgmma_64 - generated") == PtxTokenKind::comment);
  CHECK(kind_of("\tmov.b32 %f, 0f3F800000;", "0f3F800000") == PtxTokenKind::immediate);
}

TEST_CASE("ptx: tokens tile every line of the Hopper kernel and agree with its ops", "[gui]") {
  const auto& k = test::hopper_kernel();
  const PtxPrepared p = prepare_ptx(*k);
  REQUIRE(p.lines.size() == k->ptx_lines.size());
  for (size_t l = 0; l < p.lines.size(); ++l) {
    size_t at = 0;
    for (const PtxToken& t : p.lines[l].tokens) {
      REQUIRE(t.begin == at);
      at += t.length;
    }
    REQUIRE(at == k->ptx_lines[l].size());
  }
  // The opcode token of each instruction line has the colour of its op's family: the lexer and
  // the op table agree on every instruction the kernel has.
  const std::set<PtxTokenKind> opcodes{PtxTokenKind::op_alu,     PtxTokenKind::op_memory,  PtxTokenKind::op_tma,
                                       PtxTokenKind::op_mbarrier, PtxTokenKind::op_mma,     PtxTokenKind::op_control,
                                       PtxTokenKind::op_sync};
  uint32_t checked = 0;
  for (uint32_t i = 0; i < k->kernel().insts.size(); ++i) {
    const ir::Inst& inst = k->kernel().insts[i];
    if (inst.op == ir::Op::label) continue;
    const uint32_t line = k->line_of(i);
    REQUIRE(line > 0);
    const std::string& text = k->ptx_lines[line - 1];
    PtxTokenKind found = PtxTokenKind::count_;
    for (const PtxToken& t : p.lines[line - 1].tokens)
      if (opcodes.count(t.kind)) {
        found = t.kind;
        break;
      }
    INFO(text);
    CHECK(found == kind_of_family(inst.info().family));
    ++checked;
  }
  CHECK(checked > 50);
}

TEST_CASE("ptx: execution counts per line come from the trace", "[gui]") {
  const auto& k = test::hopper_kernel();
  const PtxPrepared& p = ptx_prepared(k);
  // Count independently: distinct non-label instructions issued by some warp.
  std::set<uint32_t> executed;
  for (uint32_t e : k->trace().of_kind(model::EventKind::warp_inst)) executed.insert(k->trace().events[e].inst);
  uint32_t non_label = 0;
  for (const ir::Inst& inst : k->kernel().insts) non_label += inst.op != ir::Op::label;
  CHECK(p.executed_lines == executed.size());
  CHECK(p.instruction_lines == non_label);
  // The K loop's wgmma runs once per K block per warp: 4 warps x K/64 blocks x 1.
  const uint32_t wgmma = [&] {
    for (uint32_t i = 0; i < k->kernel().insts.size(); ++i)
      if (k->kernel().insts[i].op == ir::Op::wgmma_mma_async) return i;
    return kNone;
  }();
  REQUIRE(wgmma != kNone);
  CHECK(p.lines[k->line_of(wgmma) - 1].executions == 4 * (k->request.shape.k / 64));
  CHECK(ptx_line_tooltip(*k, p, k->line_of(wgmma)).find(std::string(ir::op_info(ir::Op::wgmma_mma_async).summary)) !=
        std::string::npos);
}

TEST_CASE("ptx: clicking a line selects its instruction and jumps to an execution", "[gui]") {
  AppState app = test::hopper_app();
  const auto& k = *app.kernel;
  uint32_t commit = kNone;
  for (uint32_t i = 0; i < k.kernel().insts.size(); ++i)
    if (k.kernel().insts[i].op == ir::Op::wgmma_commit_group) commit = i;
  REQUIRE(commit != kNone);
  const uint32_t line = k.line_of(commit);
  REQUIRE(k.ptx_lines[line - 1].find("wgmma.commit_group") != std::string::npos);
  const uint32_t before = app.playback.position;
  app.select_ptx_line(line);
  CHECK(app.selection.inst == commit);
  const model::Event& e = k.trace().events[app.playback.position];
  CHECK(e.kind == model::EventKind::warp_inst);
  CHECK(e.inst == commit);
  CHECK(app.playback.position > before);
  const nlohmann::json j = describe_ptx(app);
  CHECK(j["selected_line"] == line);
  CHECK(j["current_line"] == line);
  CHECK(j["highlighted_lines"] == nlohmann::json::array({line}));
  // Clicking again goes to the next execution, later in the trace.
  const uint32_t first = app.playback.position;
  app.select_ptx_line(line);
  CHECK(app.playback.position > first);
  CHECK(k.trace().events[app.playback.position].inst == commit);
  // A line with no instruction (the .version directive) selects nothing and stays put.
  const uint32_t pos = app.playback.position;
  app.select_ptx_line(1);
  CHECK(app.playback.position == pos);
  CHECK(app.selection.inst == commit);
}

TEST_CASE("ptx: simt_naive prepares and focuses too", "[gui]") {
  AppState app;
  app.open_now({.kernel_id = "simt_naive", .only_traced_cta = true});
  REQUIRE(app.kernel);
  const nlohmann::json j = describe_ptx(app);
  CHECK(j["line_count"] == app.kernel->ptx_lines.size());
  CHECK(j["current_line"] == app.kernel->line_of(app.kernel->trace().events[app.playback.position].inst));
  CHECK(j["executed_lines_count"].get<uint32_t>() > 0);
}
