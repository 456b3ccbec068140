#include "engine/ptx/ptxas.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace gs::ptx {

namespace fs = std::filesystem;

std::optional<std::string> find_ptxas() {
  if (const char* env = std::getenv("GEMMSCOPE_PTXAS"); env && *env && fs::exists(env)) return std::string(env);
#ifdef GEMMSCOPE_PTXAS_PATH
  if (fs::exists(GEMMSCOPE_PTXAS_PATH)) return std::string(GEMMSCOPE_PTXAS_PATH);
#endif
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      fs::path p = fs::path(dir) / "ptxas";
      if (!dir.empty() && ::access(p.c_str(), X_OK) == 0) return p.string();
    }
  }
  for (const char* p : {"/usr/local/cuda/bin/ptxas"})
    if (::access(p, X_OK) == 0) return std::string(p);
  return std::nullopt;
}

PtxasResult run_ptxas(const std::string& ptx, ir::Arch target) {
  PtxasResult r;
  const std::optional<std::string> ptxas = find_ptxas();
  if (!ptxas) {
    r.log = "ptxas not found (set GEMMSCOPE_PTXAS or install the CUDA toolkit)";
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
  r.command = fmt::format("'{}' -v -arch={} '{}' -o '{}'", *ptxas, ir::arch_name(target), in.string(), out.string());
  const int status = std::system((r.command + " > '" + log.string() + "' 2>&1").c_str());
  r.ran = true;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.ok = r.exit_code == 0 && fs::exists(out);
  std::ifstream lf(log);
  r.log.assign(std::istreambuf_iterator<char>(lf), std::istreambuf_iterator<char>());
  std::error_code ec;
  fs::remove_all(dir, ec);
  return r;
}

}  // namespace gs::ptx
