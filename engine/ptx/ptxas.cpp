#include "engine/ptx/ptxas.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

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

int run_logged(const std::string& command, const std::string& log_path, std::string& log) {
  const int status = std::system((command + " > '" + log_path + "' 2>&1").c_str());
  log = read_file(log_path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

PtxasResult run_ptxas(const std::string& ptx, ir::Arch target, const PtxasOptions& options) {
  PtxasResult r;
  const std::optional<std::string> ptxas = find_ptxas();
  if (!ptxas) {
    r.log = "ptxas not found (install the CUDA toolkit, e.g. into /usr/local/cuda, or set GEMMSCOPE_PTXAS to its ptxas)";
    return r;
  }
  char dir_template[] = "/tmp/gemmscope-ptxas-XXXXXX";
  const char* dir = ::mkdtemp(dir_template);
  if (!dir) {
    r.log = "cannot create a temporary folder for ptxas";
    return r;
  }
  const fs::path in = fs::path(dir) / "kernel.ptx", out = fs::path(dir) / "kernel.cubin",
                 log = fs::path(dir) / "ptxas.log";
  std::ofstream(in) << ptx;
  r.command = fmt::format("'{}' -v{} -arch={} '{}' -o '{}'", *ptxas, options.line_info ? " -lineinfo" : "",
                          ir::arch_name(target), in.string(), out.string());
  r.exit_code = run_logged(r.command, log.string(), r.log);
  r.ran = true;
  r.ok = r.exit_code == 0 && fs::exists(out);
  if (r.ok && options.keep_cubin) r.cubin = read_file(out.string());
  if (r.ok && options.with_cubin) options.with_cubin(out.string());
  std::error_code ec;
  fs::remove_all(dir, ec);
  return r;
}

}  // namespace gs::ptx
