#include "engine/ptx/sass.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/ptx/ptxas.hpp"

namespace gs::ptx {

namespace fs = std::filesystem;

// Each pair read off a Hopper build of step 11 (four wgmma lines, four HGMMA) and the
// mnemonics the PTX ISA gives these operations. Only opcodes that no other PTX operation
// becomes are listed: a wrong correction would be worse than ptxas's neighbour line.
const std::vector<SignatureOp> kSignatureOps = {
    {"HGMMA", "wgmma.mma_async"},
    {"UTMALDG", "cp.async.bulk.tensor", ".shared::cluster.global"},  // a load: global -> shared
    {"UTMASTG", "cp.async.bulk.tensor", ".global.shared::cta"},      // a store: shared -> global
    {"SYNCS.PHASECHK", "mbarrier.try_wait"},
    {"HMMA", "mma.sync"},
    {"LDSM", "ldmatrix"},
    {"LDGSTS", "cp.async.c"},  // cp.async.ca / cp.async.cg, not cp.async.commit_group (".co")
};

namespace {

// The Volta-and-later encoding: every instruction is 16 bytes (the targets we build for are
// sm_80 and later).
constexpr uint32_t kInstructionBytes = 16;

uint64_t first_number(const std::string& log, const std::regex& re) {
  std::smatch m;
  return std::regex_search(log, m, re) ? std::strtoull(m[1].str().c_str(), nullptr, 10) : 0;
}

// The mnemonic of a PTX line ("wgmma.mma_async.sync.aligned.m64n64k16..."), "" for lines
// that are not instructions (labels, directives, braces, comments).
std::string_view ptx_mnemonic(std::string_view line) {
  const size_t start = line.find_first_not_of(" \t");
  if (start == std::string_view::npos) return {};
  line.remove_prefix(start);
  if (line.front() == '@') {  // a guard predicate: "@!%ready bra L_wait_3;"
    const size_t sp = line.find_first_of(" \t");
    if (sp == std::string_view::npos) return {};
    line.remove_prefix(line.find_first_not_of(" \t", sp));
  }
  const size_t end = line.find_first_of(" \t;");
  const std::string_view word = line.substr(0, end);
  if (word.empty() || word.front() == '.' || word.front() == '/' || word.front() == '{' || word.front() == '}' ||
      word.back() == ':' || word.front() == ')')
    return {};
  return word;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return lines;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

void correct_signature_op(std::vector<SassInstruction>& instructions, const SignatureOp& op,
                          const std::vector<std::string_view>& ptx_lines) {
  std::vector<uint32_t> op_lines;  // 1-based PTX lines of this operation, in order
  for (size_t i = 0; i < ptx_lines.size(); ++i)
    if (starts_with(ptx_mnemonic(ptx_lines[i]), op.ptx_prefix) &&
        ptx_lines[i].substr(0, ptx_lines[i].find("//")).find(op.ptx_contains) != std::string_view::npos)
      op_lines.push_back(uint32_t(i + 1));
  std::vector<SassInstruction*> sass;
  for (SassInstruction& inst : instructions)
    if (starts_with(inst.opcode, op.sass_prefix)) sass.push_back(&inst);
  if (op_lines.empty() || sass.empty()) return;
  auto is_op_line = [&](uint32_t line) { return std::binary_search(op_lines.begin(), op_lines.end(), line); };
  for (size_t i = 0; i < sass.size(); ++i) {
    SassInstruction& inst = *sass[i];
    if (is_op_line(inst.ptx_line)) continue;
    uint32_t line = 0;
    if (sass.size() == op_lines.size()) {
      line = op_lines[i];  // one SASS instruction per PTX line: the i-th with the i-th
    } else {
      // More or fewer (a retry loop's second try_wait): the nearest line of the operation.
      line = op_lines.front();
      for (uint32_t l : op_lines)
        if (inst.ptx_line && std::abs(int64_t(l) - inst.ptx_line) < std::abs(int64_t(line) - inst.ptx_line)) line = l;
    }
    inst.ptx_line = line;
    inst.link = LineLink::opcode_match;
  }
}

}  // namespace

std::string_view line_link_name(LineLink link) {
  switch (link) {
    case LineLink::none: return "none";
    case LineLink::line_table: return "line table";
    case LineLink::opcode_match: return "opcode";
  }
  return "?";
}

PtxasReport parse_ptxas_report(std::string_view log_view) {
  const std::string log(log_view);
  PtxasReport r;
  static const std::regex registers(R"(Used (\d+) registers)"), barriers(R"(used (\d+) barriers)"),
      smem(R"((\d+) bytes smem)"), stack(R"((\d+) bytes stack frame)"), stores(R"((\d+) bytes spill stores)"),
      loads(R"((\d+) bytes spill loads)");
  r.found = std::regex_search(log, registers);
  r.registers = uint32_t(first_number(log, registers));
  r.barriers = uint32_t(first_number(log, barriers));
  r.smem_bytes = first_number(log, smem);
  r.stack_bytes = first_number(log, stack);
  r.spill_store_bytes = first_number(log, stores);
  r.spill_load_bytes = first_number(log, loads);
  return r;
}

std::vector<SassInstruction> parse_disassembly(std::string_view listing) {
  std::vector<SassInstruction> out;
  for (std::string_view line : split_lines(listing)) {
    // "        /*0490*/                   HGMMA.64x64x16.F32.BF16 R24, gdesc[UR4], RZ, !UPT ;   /* 0x... */"
    const size_t open = line.find("/*");
    if (open == std::string_view::npos) continue;
    const size_t close = line.find("*/", open + 2);
    if (close == std::string_view::npos || close == open + 2) continue;
    const std::string_view hex = line.substr(open + 2, close - open - 2);
    if (hex.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos) continue;  // "/* 0x000f... */"
    std::string_view rest = line.substr(close + 2);
    const size_t semi = rest.find(';');
    if (semi == std::string_view::npos) continue;
    rest = rest.substr(0, semi);
    const size_t b = rest.find_first_not_of(" \t{"), e = rest.find_last_not_of(" \t");
    if (b == std::string_view::npos) continue;
    SassInstruction inst;
    inst.address = uint32_t(std::strtoul(std::string(hex).c_str(), nullptr, 16));
    inst.text = std::string(rest.substr(b, e - b + 1));
    std::string_view words = inst.text;
    if (!words.empty() && words.front() == '@') words.remove_prefix(std::min(words.size(), words.find(' ') + 1));
    inst.opcode = std::string(words.substr(0, words.find(' ')));
    inst.local_memory = starts_with(inst.opcode, "LDL") || starts_with(inst.opcode, "STL");
    out.push_back(std::move(inst));
  }
  return out;
}

void link_to_ptx(std::vector<SassInstruction>& instructions, const std::vector<SassLineRow>& rows,
                 std::string_view ptx) {
  for (SassInstruction& inst : instructions) {
    inst.ptx_line = ptx_line_at(rows, inst.address);
    inst.link = inst.ptx_line ? LineLink::line_table : LineLink::none;
  }
  const std::vector<std::string_view> ptx_lines = split_lines(ptx);
  for (const SignatureOp& op : kSignatureOps) correct_signature_op(instructions, op, ptx_lines);
}

std::vector<size_t> SassListing::instructions_of_line(uint32_t line) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < instructions.size(); ++i)
    if (line != 0 && instructions[i].ptx_line == line) out.push_back(i);
  return out;
}

size_t SassListing::local_memory_count() const {
  return size_t(std::count_if(instructions.begin(), instructions.end(),
                              [](const SassInstruction& i) { return i.local_memory; }));
}

std::string listing_mismatch(const std::vector<SassInstruction>& instructions, uint64_t text_size) {
  // The kernel's code is text_size bytes of 16-byte instructions, listed in address order.
  for (size_t i = 0; i < instructions.size(); ++i) {
    const uint64_t expected = uint64_t(i) * kInstructionBytes;
    if (instructions[i].address != expected)
      return fmt::format("instruction {} is at address {:#x}, where the code's instruction {} is at {:#x}", i + 1,
                         instructions[i].address, i + 1, expected);
  }
  if (text_size != 0 && instructions.size() * kInstructionBytes != text_size)
    return fmt::format("{} instructions listed, but the cubin holds {} bytes of code ({} instructions)",
                       instructions.size(), text_size, text_size / kInstructionBytes);
  return "";
}

SassListing compile_sass(const std::string& ptx, ir::Arch target) {
  SassListing s;
  s.arch = std::string(ir::arch_name(target));
  PtxasOptions options;
  options.line_info = true;
  options.keep_cubin = true;
  std::optional<std::string> disassembler = find_cuda_tool("nvdisasm", "GEMMSCOPE_NVDISASM");
  if (!disassembler) disassembler = find_cuda_tool("cuobjdump", "GEMMSCOPE_CUOBJDUMP");
  sys::ProcessResult disassembled;
  options.with_cubin = [&](const std::string& cubin_path) {
    if (!disassembler) return;
    const bool nvdisasm = fs::path(*disassembler).filename() == "nvdisasm";
    // nvdisasm -c prints only the code sections; cuobjdump -sass prints the code of every kernel.
    const std::vector<std::string> argv = {*disassembler, nvdisasm ? "-c" : "-sass", cubin_path};
    s.disassembler_command = sys::command_line(argv);
    disassembled = run_tool(argv);
  };
  const PtxasResult r = run_ptxas(ptx, target, options);
  s.ptxas_command = r.command;
  s.ptxas_log = r.log;
  if (!r.ran) {
    s.status = SassStatus::no_ptxas;
    s.message = "no ptxas: the SASS listing needs the CUDA toolkit (ptxas and nvdisasm, e.g. in /usr/local/cuda/bin; "
                "or set GEMMSCOPE_PTXAS and GEMMSCOPE_NVDISASM to them)";
    return s;
  }
  if (!r.ok) {
    s.status = SassStatus::ptxas_failed;
    s.message = fmt::format("ptxas could not assemble the PTX for {}: {}", s.arch, r.failure);
    return s;
  }
  s.report = parse_ptxas_report(r.log);
  try {
    s.lines = read_cubin_lines(r.cubin);
  } catch (const std::runtime_error& e) {
    s.status = SassStatus::disassembler_failed;
    s.message = fmt::format("cannot read the cubin ptxas wrote: {}", e.what());
    return s;
  }
  if (!disassembler) {
    s.status = SassStatus::no_disassembler;
    s.message = "no nvdisasm or cuobjdump: the PTX line of each SASS address is shown but not the instructions "
                "(install the CUDA toolkit's nvdisasm beside ptxas, or set GEMMSCOPE_NVDISASM to it)";
    for (uint32_t a = 0; a < s.lines.text_size; a += kInstructionBytes) s.instructions.push_back({.address = a});
  } else if (!disassembled.ok()) {
    s.status = SassStatus::disassembler_failed;
    s.disassembler_log = disassembled.output;
    s.message = disassembled.describe(fs::path(*disassembler).filename().string()) + " (" + s.disassembler_command + ")";
    return s;
  } else {
    s.instructions = parse_disassembly(disassembled.output);
    if (s.instructions.empty()) {
      s.status = SassStatus::disassembler_failed;
      s.disassembler_log = disassembled.output;
      s.message = fmt::format("{} printed no instructions", s.disassembler_command);
      return s;
    }
    if (const std::string mismatch = listing_mismatch(s.instructions, s.lines.text_size); !mismatch.empty()) {
      s.status = SassStatus::disassembler_failed;
      s.disassembler_log = disassembled.output;
      s.message = fmt::format("{} printed a listing that is not the cubin's code: {}", s.disassembler_command, mismatch);
      s.instructions.clear();
      return s;
    }
    s.status = SassStatus::ok;
  }
  link_to_ptx(s.instructions, s.lines.rows, ptx);
  return s;
}

}  // namespace gs::ptx
