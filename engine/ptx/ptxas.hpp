// Running ptxas, the independent judge of emitted PTX (style.md: ptxas is our NASM).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/types.hpp"
#include "engine/sys/process.hpp"

namespace gs::ptx {

struct PtxasResult {
  bool ran = false;   // false when no ptxas was found
  bool ok = false;    // assembled without errors
  int exit_code = -1;
  std::string log;    // ptxas's messages (-v resource report included)
  std::string command;  // what ran, quoted for a reader to type (it never goes through a shell)
  std::string failure;  // when !ok: one sentence naming ptxas and what happened (a timeout included)
  std::string cubin;  // the assembled module, when PtxasOptions::keep_cubin asked for it
};

struct PtxasOptions {
  bool line_info = false;   // -lineinfo: the cubin maps each SASS address to its PTX line
  bool keep_cubin = false;  // return the cubin's bytes in PtxasResult::cubin
  // Called with the cubin's path after a successful run, before its temporary folder goes
  // (e.g. to disassemble it there).
  std::function<void(const std::string& cubin_path)> with_cubin;
};

// Where ptxas is: $GEMMSCOPE_PTXAS, the toolkit found at configure time, then $PATH, then
// /usr/local/cuda/bin. A $GEMMSCOPE_PTXAS that names no executable file means "no ptxas"
// (how the tests pretend the toolkit is missing).
std::optional<std::string> find_ptxas();

// A CUDA toolkit program (nvdisasm, cuobjdump): $`env_var` (as for ptxas), the folder ptxas
// was found in, $PATH, /usr/local/cuda/bin.
std::optional<std::string> find_cuda_tool(const std::string& name, const char* env_var);

// A file's bytes ("" when it cannot be read).
std::string read_file(const std::string& path);

// How long a toolkit program may run: $GEMMSCOPE_TOOL_TIMEOUT seconds (0.1 to 86400), else
// kDefaultToolLimit. A program still running then is killed and the result says so.
constexpr std::chrono::milliseconds kDefaultToolLimit{std::chrono::minutes(2)};
std::chrono::milliseconds tool_time_limit();
// Runs a toolkit program (argv[0] a path, no shell) under tool_time_limit(), its output captured.
sys::ProcessResult run_tool(const std::vector<std::string>& argv);

// Assembles `ptx` for `target` (with -v so the log carries registers/spills/smem). Where
// $GEMMSCOPE_PTXAS_CACHE names a folder (the test suite sets one in its build folder), a run that
// succeeds leaves its log (and the cubin, when it keeps one) there under a hash of the ptxas
// binary (path, size, modification time), the options, the target and the text; a later such run
// of the same is answered from it without starting ptxas (`command` then says so). Failures are
// not kept, and a run with `with_cubin` always starts ptxas.
PtxasResult run_ptxas(const std::string& ptx, ir::Arch target, const PtxasOptions& options = {});

}  // namespace gs::ptx
