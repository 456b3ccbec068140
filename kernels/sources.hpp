// The kernels' own C++ source, built into the binary (cmake/embed_sources.cmake writes the
// table at build time), so the Source view, `ptx --annotate` and the diff show the code that
// recorded each instruction (ir::Inst::src) in an installed app too.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ir/kernel.hpp"

namespace gs::kernels {

struct SourceFile {
  std::string_view path;  // relative to the source tree: "kernels/11_hopper_tma_wgmma_64.cpp"
  std::string_view text;
};

// Every kernels/*.cpp and kernels/*.hpp, sorted by path.
std::span<const SourceFile> kernel_sources();
// The file at `path` (as ir::Kernel::source_files names it); nullptr when it is not built in.
const SourceFile* find_kernel_source(std::string_view path);
// The text split at newlines: line n (1-based) is lines[n - 1]. A final newline adds no line.
std::vector<std::string_view> source_lines(std::string_view text);
// The file of a ladder step, e.g. "kernels/11_hopper_tma_wgmma_64.cpp" for step 11's id
// (nullptr when no built-in file is that step's).
const SourceFile* step_source(std::string_view kernel_id);
// The text of an instruction's source line without its indentation ("" when unknown).
std::string_view source_code_at(const ir::Kernel& k, const ir::SourceLoc& loc);
// "kernels/11_hopper_tma_wgmma_64.cpp:57  b.fence_mbarrier_init();"
std::string describe_source(const ir::Kernel& k, const ir::SourceLoc& loc);

}  // namespace gs::kernels
