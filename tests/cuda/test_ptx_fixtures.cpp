// The inline PTX the [gpu] tests JIT must be valid PTX, and the broken one broken where we say:
// ptxas (the toolkit's assembler, the same front end as the driver's JIT) is the judge. Runs on
// any machine with the CUDA toolkit; no GPU needed.
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "tests/cuda/gpu_test_support.hpp"

using namespace gs::cuda::test;
using Catch::Contains;

namespace {

std::string ptxas_path() {
#ifdef GEMMSCOPE_PTXAS_PATH
  return GEMMSCOPE_PTXAS_PATH;
#else
  return "/usr/local/cuda/bin/ptxas";
#endif
}

struct Assembled {
  int status = -1;
  std::string output;
};

// Assembles `ptx` for `arch` into /dev/null and returns ptxas's exit status and messages.
Assembled assemble(const std::string& ptx, const std::string& arch) {
  char path[] = "/tmp/gemmscope_fixture_XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  std::ofstream(path) << ptx;
  const std::string command = ptxas_path() + " -arch=" + arch + " " + path + " -o /dev/null 2>&1";
  Assembled result;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    std::size_t n = 0;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
    result.status = pclose(pipe);
  }
  unlink(path);
  return result;
}

}  // namespace

TEST_CASE("the [gpu] tests' PTX fixtures assemble with ptxas", "[cuda][ptxas]") {
  if (access(ptxas_path().c_str(), X_OK) != 0) {
    WARN("skipped: no ptxas at " << ptxas_path());
    return;
  }
  for (const auto& [name, ptx] :
       {std::pair{"write_tid", kWriteTidPtx}, std::pair{"probes", kProbesPtx},
        std::pair{"cluster_rank", kClusterProbePtx}}) {
    const Assembled a = assemble(ptx, "sm_90");
    INFO(name << ": " << a.output);
    CHECK(a.status == 0);
  }
  const Assembled broken = assemble(write_tid_ptx_with_syntax_error(), "sm_90");
  INFO(broken.output);
  CHECK(broken.status != 0);
  CHECK_THAT(broken.output, Contains("line 21") && Contains("error"));
}
