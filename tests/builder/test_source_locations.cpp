// Every instruction knows the kernel source line that recorded it (ir::Inst::src): the
// builder's methods take a defaulted std::source_location, the operators take it through
// their operand types, and a method recording several instructions gives them all its
// caller's line. Checked exactly on a small kernel written here, on step 01's file, and as a
// property of every instruction of every kernel with every mistake.
#include <algorithm>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "engine/builder/builder.hpp"
#include "kernels/registry.hpp"
#include "kernels/sources.hpp"

using namespace gs;
using builder::Builder;
using builder::Reg;
using ir::Type;

namespace {

// The line of an instruction, checking that it points into this file.
uint32_t line_in_this_file(const ir::Kernel& k, const ir::Inst& inst) {
  const std::string_view file = k.source_file(inst.src);
  CHECK(file.ends_with("tests/builder/test_source_locations.cpp"));
  return inst.src.line;
}

// The 1-based line of the one line of `text` holding `snippet`.
uint32_t line_holding(std::string_view text, std::string_view snippet) {
  const auto lines = kernels::source_lines(text);
  uint32_t found = 0;
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].find(snippet) != std::string_view::npos) {
      REQUIRE(found == 0);  // the snippet must name one line
      found = uint32_t(i + 1);
    }
  REQUIRE(found != 0);
  return found;
}

bool holds_code(std::string_view line) {
  const size_t start = line.find_first_not_of(" \t");
  if (start == std::string_view::npos) return false;
  return !line.substr(start).starts_with("//");
}

}  // namespace

TEST_CASE("operators and builder methods record the line that called them", "[builder][source]") {
  Builder b("lines", ir::Arch::sm_80);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  const uint32_t l0 = __LINE__;
  Reg tid = b.special(ir::Special::tid_x, "tid");  // l0 + 1
  Reg x = tid >> 5;                                // l0 + 2
  Reg y = ~x;                                      // l0 + 3
  x += 1;                                          // l0 + 4
  Reg p = x == y;                                  // l0 + 5
  Reg c = b.global_ptr(pc, "C_ptr");               // l0 + 6: two instructions
  b.if_(p, [&] {                                   // l0 + 7: the branch and the label
    b.bar_sync(0);                                 // l0 + 8
  });
  b.loop("i", 2, [&](const Reg& i) {               // l0 + 10: mov, label, add, setp, bra
    b.st_global(Type::u32, builder::Addr::at(c), {i ^ y});  // l0 + 11: xor and st
  });
  b.ret();  // l0 + 13
  const ir::Kernel k = b.finish();

  std::vector<uint32_t> lines;
  for (const ir::Inst& inst : k.insts) lines.push_back(line_in_this_file(k, inst) - l0);
  const std::vector<uint32_t> expected = {
      1, 2, 3, 4, 5,     // special, shr, not, add, setp
      6, 6,              // ld.param, cvta
      7, 8, 7,           // @!p bra, bar.sync, label
      10, 10, 11, 11,    // i = 0, label, xor, st.global
      10, 10, 10,        // i += 1, setp, bra
      13};               // ret
  CHECK(lines == expected);
  CHECK(k.source_files.size() == 1);  // one file, shared by every instruction
}

TEST_CASE("step 01's instructions point at the lines of its file that wrote them", "[builder][source]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("simt_naive");
  const ir::Kernel k = kernels::build_kernel(info, {info.example_shape, {}});
  const kernels::SourceFile* file = kernels::step_source("simt_naive");
  REQUIRE(file != nullptr);
  CHECK(file->path == "kernels/01_simt_naive.cpp");

  auto lines_of = [&](ir::Op op) {
    std::vector<uint32_t> out;
    for (const ir::Inst& inst : k.insts)
      if (inst.op == op) {
        CHECK(k.source_file(inst.src) == file->path);
        out.push_back(inst.src.line);
      }
    return out;
  };
  const uint32_t fma = line_holding(file->text, "b.fma_into(acc, a, bv, acc);");
  CHECK(lines_of(ir::Op::fma) == std::vector<uint32_t>{fma});
  CHECK(lines_of(ir::Op::st_global) == std::vector<uint32_t>{line_holding(file->text, "b.st_global(")});
  // The guard: two compares written as operators inside the call, and the and.pred itself.
  const uint32_t guard = line_holding(file->text, "Reg inside = b.alu(");
  const uint32_t loop = line_holding(file->text, "b.k_loop(\"i\", K,");
  CHECK(lines_of(ir::Op::setp) == std::vector<uint32_t>{guard, guard, loop});
  CHECK(lines_of(ir::Op::cvta_to_global).size() == 3);
  // `a_ptr += 4;` and `b_ptr += N * 4;` are adds on their own lines, in the loop's body.
  const std::vector<uint32_t> adds = lines_of(ir::Op::add);
  CHECK(std::count(adds.begin(), adds.end(), line_holding(file->text, "a_ptr += 4;")) == 1);
  CHECK(std::count(adds.begin(), adds.end(), line_holding(file->text, "b_ptr += N * 4;")) == 1);
}

TEST_CASE("every instruction of every kernel and mistake points at code in kernels/", "[builder][source]") {
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    std::vector<std::set<std::string>> builds = {{}};
    for (const kernels::Mistake& m : info.mistakes) builds.push_back({m.name});
    for (const auto& mistakes : builds) {
      const ir::Kernel k = kernels::build_kernel(info, {info.example_shape, mistakes});
      INFO(info.id << (mistakes.empty() ? "" : " with " + *mistakes.begin()));
      REQUIRE(!k.insts.empty());
      for (size_t i = 0; i < k.insts.size(); ++i) {
        const ir::SourceLoc& loc = k.insts[i].src;
        const std::string file(k.source_file(loc));
        INFO("instruction " << i << " at " << file << ":" << loc.line);
        REQUIRE(loc.known());
        REQUIRE(file.starts_with("kernels/"));
        const kernels::SourceFile* text = kernels::find_kernel_source(file);
        REQUIRE(text != nullptr);
        const auto lines = kernels::source_lines(text->text);
        REQUIRE(loc.line <= lines.size());
        REQUIRE(holds_code(lines[loc.line - 1]));
      }
    }
  }
}

TEST_CASE("the built-in sources are the files of kernels/", "[kernels][source]") {
  const auto files = kernels::kernel_sources();
  REQUIRE(files.size() >= kernels::all_kernels().size());
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    const kernels::SourceFile* f = kernels::step_source(info.id);
    REQUIRE(f != nullptr);
    CHECK(f->text.find(info.id + "_info()") != std::string_view::npos);
  }
  CHECK(kernels::find_kernel_source("kernels/hopper_parts.cpp") != nullptr);
  CHECK(kernels::find_kernel_source("kernels/nope.cpp") == nullptr);
  CHECK(kernels::step_source("nope") == nullptr);
  CHECK(kernels::source_lines("a\n\nb\n") == std::vector<std::string_view>{"a", "", "b"});
  CHECK(kernels::source_lines("a\nb") == std::vector<std::string_view>{"a", "b"});
}
