#include "engine/ptx/ptxas.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "engine/sys/process.hpp"

namespace gs::ptx {

namespace fs = std::filesystem;

namespace {

bool is_executable(const fs::path& p) { return ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p); }

// $PATH's folders, then the toolkit's usual place.
std::optional<std::string> search_path(const std::string& name) {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      const fs::path p = fs::path(dir) / name;
      if (!dir.empty() && is_executable(p)) return p.string();
    }
  }
  const fs::path fallback = fs::path("/usr/local/cuda/bin") / name;
  if (is_executable(fallback)) return fallback.string();
  return std::nullopt;
}

// The environment variable decides alone when it is set: a path that is not an executable
// file means the tool is missing.
std::optional<std::optional<std::string>> from_environment(const char* env_var) {
  const char* env = std::getenv(env_var);
  if (!env || !*env) return std::nullopt;
  if (is_executable(env)) return std::optional<std::string>(env);
  return std::optional<std::string>();
}

}  // namespace

std::optional<std::string> find_ptxas() {
  if (auto env = from_environment("GEMMSCOPE_PTXAS")) return *env;
#ifdef GEMMSCOPE_PTXAS_PATH
  if (is_executable(GEMMSCOPE_PTXAS_PATH)) return std::string(GEMMSCOPE_PTXAS_PATH);
#endif
  return search_path("ptxas");
}

std::optional<std::string> find_cuda_tool(const std::string& name, const char* env_var) {
  if (auto env = from_environment(env_var)) return *env;
  // The toolkit ships its programs side by side: beside the ptxas we use is the right version.
  if (const std::optional<std::string> ptxas = find_ptxas()) {
    const fs::path beside = fs::path(*ptxas).parent_path() / name;
    if (is_executable(beside)) return beside.string();
  }
  return search_path(name);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

std::chrono::milliseconds tool_time_limit() {
  const char* env = std::getenv("GEMMSCOPE_TOOL_TIMEOUT");
  if (!env || !*env) return kDefaultToolLimit;
  char* end = nullptr;
  const double seconds = std::strtod(env, &end);
  // A value that is not a number of seconds from 0.1 to a day keeps the default.
  if (end == env || *end != '\0' || !(seconds >= 0.1 && seconds <= 86400.0)) return kDefaultToolLimit;
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000.0));
}

sys::ProcessResult run_tool(const std::vector<std::string>& argv) {
  return sys::run_process(argv, {.limit = tool_time_limit()});
}

namespace {

// $GEMMSCOPE_PTXAS_CACHE's file for one run: its name a hash of everything the answer depends on
// (the ptxas binary by path, size and modification time; the options; the target; the text).
// Two 64-bit hashes of different mixing: an accidental match of both over texts of kilobytes is
// out of reach (and a deliberate one is not this cache's concern: it is a test-suite folder).
std::optional<fs::path> cache_file(const std::string& ptxas, const std::vector<std::string>& options,
                                   const std::string& ptx) {
  const char* dir = std::getenv("GEMMSCOPE_PTXAS_CACHE");
  if (!dir || !*dir) return std::nullopt;
  std::error_code ec;
  const auto size = fs::file_size(ptxas, ec);
  if (ec) return std::nullopt;
  const auto mtime = fs::last_write_time(ptxas, ec).time_since_epoch().count();
  if (ec) return std::nullopt;
  uint64_t h1 = 0xcbf29ce484222325ull, h2 = 0x6a09e667f3bcc909ull;
  const auto add = [&](std::string_view bytes) {
    for (const unsigned char c : bytes) {
      h1 = (h1 ^ c) * 0x100000001b3ull;              // FNV-1a
      h2 = (h2 ^ c) * 0x9e3779b97f4a7c15ull;         // a multiplicative mix with a
      h2 ^= h2 >> 29;                                 // shift, unlike FNV's
    }
    h1 = (h1 ^ 0xff) * 0x100000001b3ull;  // a field's end: ("ab", "c") is not ("a", "bc")
    h2 = (h2 ^ 0xff) * 0x9e3779b97f4a7c15ull;
  };
  add(ptxas);
  add(fmt::format("{} {} {}", size, mtime, ptx.size()));
  for (const std::string& o : options) add(o);
  add(ptx);
  return fs::path(dir) / fmt::format("{:016x}{:016x}.log", h1, h2);
}

}  // namespace

PtxasResult run_ptxas(const std::string& ptx, ir::Arch target, const PtxasOptions& options) {
  PtxasResult r;
  const std::optional<std::string> ptxas = find_ptxas();
  if (!ptxas) {
    r.log = "ptxas not found (install the CUDA toolkit, e.g. into /usr/local/cuda, or set GEMMSCOPE_PTXAS to its ptxas)";
    r.failure = r.log;
    return r;
  }
  std::vector<std::string> flags = {"-v"};
  if (options.line_info) flags.push_back("-lineinfo");
  flags.push_back("-arch=" + std::string(ir::arch_name(target)));
  // A run may be answered from $GEMMSCOPE_PTXAS_CACHE, where an earlier run of the same text on the
  // same ptxas that succeeded left its log (how the test suite, which assembles many texts in more
  // than one file, runs ptxas once a text). Failures are never kept: each is ptxas's own, fresh.
  // A run that keeps the cubin (the register count and line table every simulation reads,
  // registers.cpp; 375 runs of ptxas in test_build_params alone) finds it in the same file after
  // the log: the log's length in 20 decimal digits and a newline, the log, the cubin. One that
  // hands the cubin's path out (with_cubin: a disassembler reads it there) always runs.
  const bool cacheable = !options.with_cubin;
  std::vector<std::string> keyed = flags;
  if (options.keep_cubin) keyed.push_back("+cubin");
  const std::optional<fs::path> cached = cacheable ? cache_file(*ptxas, keyed, ptx) : std::nullopt;
  const auto argv_for = [&](const std::string& in, const std::string& out) {
    std::vector<std::string> argv = {*ptxas};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {in, "-o", out});
    return argv;
  };
  // The cached answer, if there is a whole one: false leaves r as it was.
  const auto answered = [&]() {
    std::error_code ec;
    if (!cached || !fs::is_regular_file(*cached, ec)) return false;
    const std::string kept = read_file(cached->string());
    if (options.keep_cubin) {
      // A file that is not the layout above (cut short) is passed by: ptxas runs.
      constexpr size_t kHeader = 21;
      size_t log_size = 0;
      if (kept.size() < kHeader || kept[kHeader - 1] != '\n' ||
          std::sscanf(kept.c_str(), "%20zu", &log_size) != 1 || kept.size() - kHeader <= log_size)
        return false;
      r.log = kept.substr(kHeader, log_size);
      r.cubin = kept.substr(kHeader + log_size);
    } else {
      r.log = kept;
    }
    r.command = sys::command_line(argv_for("kernel.ptx", "kernel.cubin")) +
                "  # answered from $GEMMSCOPE_PTXAS_CACHE: " + cached->string();
    r.ran = r.ok = true;
    r.exit_code = 0;
    return true;
  };
  if (answered()) return r;
  // Removed with everything in it on every path out of here (a failed, killed or throwing tool).
  std::optional<sys::TempDir> dir;
  try {
    dir.emplace("gemmscope-ptxas-");
  } catch (const std::exception& e) {
    r.log = std::string("cannot create a temporary folder for ptxas: ") + e.what();
    r.failure = r.log;
    return r;
  }
  const std::string in = dir->file("kernel.ptx"), out = dir->file("kernel.cubin");
  std::ofstream(in) << ptx;
  const std::vector<std::string> argv = argv_for(in, out);
  r.command = sys::command_line(argv);
  const sys::ProcessResult p = run_tool(argv);
  r.log = p.output;
  r.exit_code = p.status == sys::ProcessResult::Status::exited ? p.exit_code : -1;
  r.ran = true;
  r.ok = p.ok() && fs::exists(out);
  if (!p.ok()) r.failure = p.describe("ptxas");
  else if (!r.ok) r.failure = "ptxas exited with status 0 but wrote no cubin";
  if (r.ok && options.keep_cubin) r.cubin = read_file(out);
  if (r.ok && cached) {  // written whole under another name, then renamed: a reader never sees half of it
    std::error_code ec;
    fs::create_directories(cached->parent_path(), ec);
    const fs::path part = cached->string() + fmt::format(".{}.part", ::getpid());
    bool written = false;
    {
      std::ofstream f(part, std::ios::binary);
      if (options.keep_cubin) f << fmt::format("{:020}\n", r.log.size()) << r.log << r.cubin;
      else f << r.log;
      f.close();
      written = bool(f) && (!options.keep_cubin || !r.cubin.empty());
    }
    if (written) fs::rename(part, *cached, ec);
    if (!written || ec) fs::remove(part, ec);
  }
  if (r.ok && options.with_cubin) options.with_cubin(out);
  return r;
}

}  // namespace gs::ptx
