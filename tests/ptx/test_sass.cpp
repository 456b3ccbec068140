// The SASS listing: the cubin's line table (read without any disassembler), nvdisasm's
// listing format, the links from SASS to PTX lines, and ptxas's report. The real-disassembler
// test ([nvdisasm]) runs where the toolkit has nvdisasm (the GPU machine); elsewhere it warns
// and skips unless GEMMSCOPE_REQUIRE_NVDISASM=1.
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "engine/ptx/cubin_lines.hpp"
#include "engine/ptx/ptxas.hpp"
#include "engine/ptx/sass.hpp"
#include "run/sass_job.hpp"
#include "tests/support/ptxas_check.hpp"
#include "tests/support/scoped_env.hpp"
#include "tests/support/scratch.hpp"

using namespace gs;
using Catch::Matchers::Contains;

namespace {

run::SassReport hopper_report() { return run::run_sass({.kernel_id = "hopper_tma_wgmma_64"}); }

// 1-based lines of `ptx` whose text contains `needle`.
std::vector<uint32_t> lines_containing(const std::string& ptx, const std::string& needle) {
  std::vector<uint32_t> out;
  uint32_t line = 1;
  size_t start = 0;
  while (start < ptx.size()) {
    const size_t nl = ptx.find('\n', start);
    const std::string text = ptx.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (text.find(needle) != std::string::npos && text.find("//") != 0) out.push_back(line);
    if (nl == std::string::npos) break;
    start = nl + 1;
    ++line;
  }
  return out;
}

}  // namespace

TEST_CASE("sass: ptxas's -v report is read, spills included", "[ptx][sass]") {
  const ptx::PtxasReport r = ptx::parse_ptxas_report(
      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
      "ptxas info    : Function properties for k\n"
      "    24 bytes stack frame, 16 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 1 barriers, 16392 bytes smem\n");
  CHECK(r.found);
  CHECK(r.registers == 255);
  CHECK(r.barriers == 1);
  CHECK(r.smem_bytes == 16392);
  CHECK(r.stack_bytes == 24);
  CHECK(r.spill_store_bytes == 16);
  CHECK(r.spill_load_bytes == 8);
  CHECK(r.spills());
  CHECK_FALSE(ptx::parse_ptxas_report("ptxas fatal   : Unresolved extern function").found);
}

TEST_CASE("sass: nvdisasm's listing is parsed into address, text and opcode", "[ptx][sass]") {
  // The layout nvdisasm -c and cuobjdump -sass print: an address comment, the instruction up to
  // ';', then (cuobjdump) the encoding in comments, on that line and the next.
  const auto insts = ptx::parse_disassembly(
      "\t.section\t.text.k,\"ax\",@progbits\n"
      ".L_x_0:\n"
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;          /* 0x00000a00ff017b82 */\n"
      "                                                                    /* 0x000fe20000000800 */\n"
      "        /*0490*/                   HGMMA.64x64x16.F32.BF16 R24, gdesc[UR4], RZ, !UPT ;\n"
      "        /*04a0*/              @!P0 BRA `(.L_x_3) ;\n"
      "        /*04b0*/                   STL.64 [R1+0x8], R4 ;\n"
      "        /*04c0*/                   LDL R7, [R1+0x8] ;\n");
  REQUIRE(insts.size() == 5);
  CHECK(insts[0].address == 0);
  CHECK(insts[0].text == "LDC R1, c[0x0][0x28]");
  CHECK(insts[0].opcode == "LDC");
  CHECK(insts[1].address == 0x490);
  CHECK(insts[1].opcode == "HGMMA.64x64x16.F32.BF16");
  CHECK(insts[2].opcode == "BRA");  // the predicate is not the opcode
  CHECK(insts[2].text == "@!P0 BRA `(.L_x_3)");
  CHECK_FALSE(insts[1].local_memory);
  CHECK(insts[3].local_memory);
  CHECK(insts[4].local_memory);
}

TEST_CASE("sass: signature opcodes get their PTX operation's line when the line table gives a neighbour's",
          "[ptx][sass]") {
  const std::string ptx =
      "  wgmma.fence.sync.aligned;\n"                  // 1
      "  wgmma.mma_async.sync.aligned.m64n64k16 a;\n"  // 2
      "  add.u64 %d1, %d, 2;\n"                        // 3
      "  wgmma.mma_async.sync.aligned.m64n64k16 b;\n"  // 4
      "  add.u32 %kb, %kb, 1;\n"                       // 5
      "L_wait:\n"                                      // 6
      "  mbarrier.try_wait.parity.shared::cta.b64 %r, [m], %p;\n"  // 7
      "  @!%r bra L_wait;\n";                          // 8
  std::vector<ptx::SassInstruction> insts(6);
  const char* opcodes[] = {"WARPGROUP.ARRIVE", "HGMMA.64x64x16.F32.BF16", "UIADD3", "HGMMA.64x64x16.F32.BF16",
                           "SYNCS.PHASECHK.TRANS64.TRYWAIT", "SYNCS.PHASECHK.TRANS64.TRYWAIT"};
  for (size_t i = 0; i < insts.size(); ++i) insts[i].address = uint32_t(16 * i), insts[i].opcode = opcodes[i];
  // As ptxas does on step 11: the HGMMAs carry the lines of instructions near them.
  const std::vector<ptx::SassLineRow> rows = {{0, 1}, {0x10, 5}, {0x20, 3}, {0x40, 8}, {0x50, 7}};
  ptx::link_to_ptx(insts, rows, ptx);
  CHECK(insts[0].ptx_line == 1);
  CHECK(insts[0].link == ptx::LineLink::line_table);
  CHECK(insts[1].ptx_line == 2);  // the first HGMMA with the first wgmma line
  CHECK(insts[1].link == ptx::LineLink::opcode_match);
  CHECK(insts[2].ptx_line == 3);
  CHECK(insts[3].ptx_line == 4);  // the second with the second
  CHECK(insts[3].link == ptx::LineLink::opcode_match);
  CHECK(insts[4].ptx_line == 7);  // two SYNCS for one try_wait: the nearest try_wait line
  CHECK(insts[4].link == ptx::LineLink::opcode_match);
  CHECK(insts[5].ptx_line == 7);
  CHECK(insts[5].link == ptx::LineLink::line_table);  // already right: left alone
}

TEST_CASE("sass: a malformed cubin is an error message, not a crash", "[ptx][sass]") {
  CHECK_THROWS_WITH(ptx::read_cubin_lines("not an ELF file"), Contains("no ELF header"));
  std::string elf(64, '\0');
  elf.replace(0, 6, "\x7f" "ELF\x02\x01");
  elf[0x3a] = 64;  // section header size; 0 sections, string table index 0: out of range
  CHECK_THROWS_WITH(ptx::read_cubin_lines(elf), Contains("section header table"));
  CHECK_THROWS_WITH(ptx::decode_line_program(std::string("\x40\0\0\0\x02\0", 6)), Contains("unit longer"));
}

TEST_CASE("sass: the cubin's line table links step 11's SASS addresses to its PTX lines", "[ptx][sass][ptxas]") {
  const run::SassReport r = hopper_report();
  if (r.listing.status == ptx::SassStatus::no_ptxas) {
    if (test::ptxas_required()) FAIL("GEMMSCOPE_REQUIRE_PTXAS=1 but " << r.listing.message);
    WARN("skipped: " << r.listing.message);
    return;
  }
  INFO(r.listing.ptxas_log << r.listing.message);
  REQUIRE(r.listing.status != ptx::SassStatus::ptxas_failed);
  CHECK(r.listing.report.found);
  CHECK(r.listing.report.registers > 0);
  CHECK(r.listing.report.smem_bytes == 16392);
  CHECK_FALSE(r.listing.report.spills());
  CHECK(r.listing.lines.line_section == ".nv_debug_line_sass");
  REQUIRE(r.listing.lines.text_size > 0);
  const uint32_t n_lines = uint32_t(r.module.line_to_inst.size());
  for (const ptx::SassLineRow& row : r.listing.lines.rows) {
    CHECK(row.address % 16 == 0);
    CHECK(row.address < r.listing.lines.text_size);
    CHECK(row.line >= 1);
    CHECK(row.line <= n_lines);
  }
  // Each of the 16 st.global.v2 lines has its own STG, in order: the rows are PTX lines.
  const std::vector<uint32_t> stores = lines_containing(r.module.text, "st.global.v2.f32");
  REQUIRE(stores.size() == 16);
  std::vector<uint32_t> addresses;
  for (uint32_t line : stores) {
    uint32_t found = UINT32_MAX;
    for (const ptx::SassLineRow& row : r.listing.lines.rows)
      if (row.line == line) found = row.address;
    INFO("st.global on PTX line " << line);
    REQUIRE(found != UINT32_MAX);
    addresses.push_back(found);
  }
  for (size_t i = 1; i < addresses.size(); ++i) CHECK(addresses[i] == addresses[i - 1] + 16);
}

TEST_CASE("sass: without the toolkit the listing says what to install", "[ptx][sass]") {
  const gs::test::ScopedEnv no_ptxas("GEMMSCOPE_PTXAS", "/nonexistent/ptxas");
  const run::SassReport r = hopper_report();
  CHECK(r.listing.status == ptx::SassStatus::no_ptxas);
  CHECK_THAT(r.listing.message, Contains("CUDA toolkit") && Contains("nvdisasm"));
  CHECK(r.listing.instructions.empty());
  CHECK_THAT(run::sass_report_text(r), Contains("no ptxas"));
}

TEST_CASE("sass: a disassembler's listing is parsed and linked end to end", "[ptx][sass][ptxas]") {
  if (!ptx::find_ptxas()) {
    if (test::ptxas_required()) FAIL("GEMMSCOPE_REQUIRE_PTXAS=1 but no ptxas");
    WARN("skipped: no ptxas");
    return;
  }
  // A stand-in nvdisasm: checks it was asked for the code of a cubin, prints an instruction at
  // every 16 bytes of it (so the links come from the real line table).
  uint64_t code_bytes = 0;
  {
    const gs::test::ScopedEnv none("GEMMSCOPE_NVDISASM", "/nonexistent/nvdisasm");
    const gs::test::ScopedEnv no_cuobjdump("GEMMSCOPE_CUOBJDUMP", "/nonexistent/cuobjdump");
    code_bytes = hopper_report().listing.lines.text_size;
  }
  REQUIRE(code_bytes > 0);
  test::ScratchDir dir;
  const std::string script = dir.write("nvdisasm",
                                       "#!/bin/sh\n"
                                       "[ \"$1\" = -c ] || { echo \"expected -c, got $1\" >&2; exit 9; }\n"
                                       "a=0; while [ $a -lt " + std::to_string(code_bytes) +
                                           " ]; do printf '        /*%04x*/    FAKE.OP R%d ;\\n' $a $a; "
                                       "a=$((a+16)); done\n");
  ::chmod(script.c_str(), 0755);
  const gs::test::ScopedEnv fake("GEMMSCOPE_NVDISASM", script);
  const run::SassReport r = hopper_report();
  INFO(r.listing.message << "\n" << r.listing.disassembler_log);
  REQUIRE(r.listing.ok());
  CHECK(r.listing.instructions.size() == code_bytes / 16);
  CHECK_THAT(r.listing.disassembler_command, Contains(script) && Contains(" -c "));
  for (uint32_t line : lines_containing(r.module.text, "st.global.v2.f32"))
    CHECK(r.listing.instructions_of_line(line).size() == 1);
  const std::string text = run::sass_report_text(r);
  CHECK_THAT(text, Contains("PTX") && Contains("st.global.v2.f32") && Contains("FAKE.OP R") && Contains("no spills"));

  SECTION("a failing disassembler is reported with its exit code and output") {
    const std::string broken = dir.write("broken", "#!/bin/sh\necho 'nvdisasm fatal: cannot read' >&2\nexit 3\n");
    ::chmod(broken.c_str(), 0755);
    const gs::test::ScopedEnv env("GEMMSCOPE_NVDISASM", broken);
    const run::SassReport b = hopper_report();
    CHECK(b.listing.status == ptx::SassStatus::disassembler_failed);
    CHECK_THAT(b.listing.message, Contains("broken exited with status 3: nvdisasm fatal: cannot read"));
  }

  SECTION("a listing that is not the cubin's code is a failure, not an empty or made-up listing") {
    // Junk with the listing's shape: one instruction, at an address the code does not have.
    const std::string junk = dir.write("junk", "#!/bin/sh\necho '/*0ff0*/ JUNK ;'\necho 'more junk'\n");
    ::chmod(junk.c_str(), 0755);
    const gs::test::ScopedEnv env("GEMMSCOPE_NVDISASM", junk);
    const run::SassReport j = hopper_report();
    CHECK(j.listing.status == ptx::SassStatus::disassembler_failed);
    CHECK_THAT(j.listing.message, Contains("not the cubin's code") && Contains("0xff0"));
    CHECK(j.listing.instructions.empty());
    // Too few instructions: the first half of the code only.
    const std::string half = dir.write("half", "#!/bin/sh\nprintf '/*0000*/ NOP ;\\n/*0010*/ NOP ;\\n'\n");
    ::chmod(half.c_str(), 0755);
    const gs::test::ScopedEnv env2("GEMMSCOPE_NVDISASM", half);
    CHECK_THAT(hopper_report().listing.message, Contains("2 instructions listed, but the cubin holds"));
  }

  SECTION("a disassembler that never returns is stopped at the time limit, naming it") {
    const std::string hang = dir.write("nvdisasm-hang", "#!/bin/sh\nsleep 60\n");
    ::chmod(hang.c_str(), 0755);
    const gs::test::ScopedEnv env("GEMMSCOPE_NVDISASM", hang);
    const gs::test::ScopedEnv limit("GEMMSCOPE_TOOL_TIMEOUT", "0.5");
    const auto t0 = std::chrono::steady_clock::now();
    const run::SassReport h = hopper_report();
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20));
    CHECK(h.listing.status == ptx::SassStatus::disassembler_failed);
    CHECK_THAT(h.listing.message, Contains("nvdisasm-hang did not finish in 500 ms"));
  }
}

TEST_CASE("sass: step 11's wgmma lines become HGMMA, its TMA loads UTMALDG, no spills", "[ptx][sass][nvdisasm]") {
  const bool required = [] {
    const char* v = std::getenv("GEMMSCOPE_REQUIRE_NVDISASM");
    return v && std::string(v) == "1";
  }();
  const run::SassReport r = hopper_report();
  if (!r.listing.ok() && !required) {
    WARN("skipped (needs ptxas and nvdisasm or cuobjdump): " << r.listing.message);
    return;
  }
  INFO(r.listing.message << "\n" << run::sass_report_text(r));
  REQUIRE(r.listing.ok());
  auto opcodes_of = [&](uint32_t line) {
    std::vector<std::string> out;
    for (size_t i : r.listing.instructions_of_line(line)) out.push_back(r.listing.instructions[i].opcode);
    return out;
  };
  auto has = [](const std::vector<std::string>& ops, const std::string& prefix) {
    for (const std::string& op : ops)
      if (op.rfind(prefix, 0) == 0) return true;
    return false;
  };
  const std::vector<uint32_t> wgmma = lines_containing(r.module.text, "wgmma.mma_async");
  REQUIRE(wgmma.size() == 4);
  for (uint32_t line : wgmma) {
    INFO("wgmma on PTX line " << line);
    CHECK(has(opcodes_of(line), "HGMMA"));
  }
  const std::vector<uint32_t> tma = lines_containing(r.module.text, "cp.async.bulk.tensor");
  REQUIRE(tma.size() == 2);
  for (uint32_t line : tma) {
    INFO("TMA load on PTX line " << line);
    CHECK(has(opcodes_of(line), "UTMALDG"));
  }
  const std::vector<uint32_t> waits = lines_containing(r.module.text, "mbarrier.try_wait");
  REQUIRE(!waits.empty());
  CHECK(has(opcodes_of(waits.front()), "SYNCS"));
  CHECK(r.listing.local_memory_count() == 0);
}

TEST_CASE("sass: a quote in a tool's path is a character of the path, never shell syntax", "[ptx][sass]") {
  // GEMMSCOPE_PTXAS="/x/a';touch INJECTED;'/ptxas" ran `touch` through the shell.
  test::ScratchDir dir;
  const std::filesystem::path folder = dir.dir / "a';touch \"$GS_INJECT\";'";
  std::filesystem::create_directories(folder);
  const std::string fake = (folder / "ptxas").string();
  std::ofstream(fake) << "#!/bin/sh\necho 'fake ptxas ran' >&2\nexit 5\n";
  ::chmod(fake.c_str(), 0755);
  const gs::test::ScopedEnv tool("GEMMSCOPE_PTXAS", fake);
  const gs::test::ScopedEnv inject("GS_INJECT", dir.path("INJECTED"));
  const run::SassReport r = hopper_report();
  CHECK(r.listing.status == ptx::SassStatus::ptxas_failed);
  CHECK_THAT(r.listing.message, Contains("ptxas exited with status 5: fake ptxas ran"));
  CHECK_FALSE(std::filesystem::exists(dir.path("INJECTED")));
}

TEST_CASE("sass: a ptxas that never returns is stopped, and its temporary folder goes", "[ptx][sass]") {
  test::ScratchDir dir, tmp;
  const std::string hang = dir.write("ptxas", "#!/bin/sh\nsleep 60\n");
  ::chmod(hang.c_str(), 0755);
  const gs::test::ScopedEnv tool("GEMMSCOPE_PTXAS", hang);
  const gs::test::ScopedEnv limit("GEMMSCOPE_TOOL_TIMEOUT", "0.5");
  const gs::test::ScopedEnv tmpdir("TMPDIR", tmp.dir.string());
  const auto t0 = std::chrono::steady_clock::now();
  const run::SassReport r = hopper_report();
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20));
  CHECK(r.listing.status == ptx::SassStatus::ptxas_failed);
  CHECK_THAT(r.listing.message, Contains("ptxas did not finish in 500 ms: killed"));
  CHECK(std::filesystem::is_empty(tmp.dir));
  // The same for ptxas killed by a signal, and for a ptxas that exits 0 without a cubin.
  for (const char* body : {"kill -KILL $$\n", "exit 0\n"}) {
    dir.write("ptxas", std::string("#!/bin/sh\n") + body);
    const run::SassReport k = hopper_report();
    CHECK(k.listing.status == ptx::SassStatus::ptxas_failed);
    CHECK(std::filesystem::is_empty(tmp.dir));
  }
}
