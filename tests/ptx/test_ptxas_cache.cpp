// $GEMMSCOPE_PTXAS_CACHE (engine/ptx/ptxas.hpp): a text ptxas accepted once is answered from the
// folder after, without starting ptxas; anything that changes the answer (the text, the target,
// the options, the ptxas binary) runs it again; failures and runs that hand the cubin's path out
// never come from it.
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "engine/ptx/emit.hpp"
#include "engine/ptx/ptxas.hpp"
#include "kernels/registry.hpp"
#include "tests/support/ptxas_check.hpp"
#include "tests/support/scoped_env.hpp"
#include "tests/support/scratch.hpp"

using namespace gs;

namespace {

size_t files_in(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) n += e.is_regular_file();
  return n;
}

}  // namespace

TEST_CASE("ptxas cache: a text assembled once is answered from the folder, anything else runs ptxas",
          "[ptx][ptxas]") {
  const std::optional<std::string> real = ptx::find_ptxas();
  if (!real) {
    if (test::ptxas_required()) FAIL("GEMMSCOPE_REQUIRE_PTXAS=1 but ptxas was not found");
    WARN("skipped: no ptxas");
    return;
  }
  test::ScratchDir dir("gemmscope_ptxas_cache");
  // A ptxas that counts its runs (a line each in `runs`) and then is the real one.
  const std::string runs = dir.path("runs");
  const std::string counting =
      dir.write("ptxas", "#!/bin/sh\necho run >> '" + runs + "'\nexec '" + *real + "' \"$@\"\n");
  ::chmod(counting.c_str(), 0755);
  const auto count = [&] { return test::read_file(runs).size() / 4; };
  const std::string cache = dir.path("cache");
  const test::ScopedEnv tool("GEMMSCOPE_PTXAS", counting);
  const test::ScopedEnv folder("GEMMSCOPE_PTXAS_CACHE", cache);

  const kernels::KernelInfo& info = kernels::kernel_or_throw("simt_naive");
  const std::string text = ptx::emit(kernels::build_kernel(info, {info.example_shape, {}})).text;
  const ptx::PtxasResult first = ptx::run_ptxas(text, info.arch);
  REQUIRE(first.ok);
  CHECK(count() == 1);
  CHECK(files_in(cache) == 1);
  const ptx::PtxasResult again = ptx::run_ptxas(text, info.arch);
  CHECK(again.ok);
  CHECK(again.ran);
  CHECK(again.exit_code == 0);
  CHECK(again.log == first.log);  // the -v report (registers, spills) as ptxas wrote it
  CHECK_THAT(again.command, Catch::Contains("GEMMSCOPE_PTXAS_CACHE"));
  CHECK(count() == 1);  // not run

  // Another text, another target, another option: each runs once, and is kept.
  const ptx::PtxasResult other = ptx::run_ptxas(text + "\n// one more line\n", info.arch);
  CHECK(other.ok);
  CHECK(count() == 2);
  const ptx::PtxasResult hopper = ptx::run_ptxas(text, ir::Arch::sm_90a);
  CHECK(hopper.ok);
  CHECK(count() == 3);
  const ptx::PtxasResult lines = ptx::run_ptxas(text, info.arch, {.line_info = true});
  CHECK(lines.ok);
  CHECK(count() == 4);
  CHECK(files_in(cache) == 4);

  // A run that keeps the cubin (as every simulation's register count does) runs once and is
  // kept whole: the same log and the same cubin bytes come back.
  const ptx::PtxasResult cubin = ptx::run_ptxas(text, info.arch, {.keep_cubin = true});
  CHECK(cubin.ok);
  CHECK_FALSE(cubin.cubin.empty());
  CHECK(count() == 5);
  CHECK(files_in(cache) == 5);
  const ptx::PtxasResult cubin_again = ptx::run_ptxas(text, info.arch, {.keep_cubin = true});
  CHECK(cubin_again.ok);
  CHECK(cubin_again.cubin == cubin.cubin);
  CHECK(cubin_again.log == cubin.log);
  CHECK_THAT(cubin_again.command, Catch::Contains("GEMMSCOPE_PTXAS_CACHE"));
  CHECK(count() == 5);
  // A kept file cut short (a full disk) is passed by: ptxas runs again.
  for (const auto& e : std::filesystem::directory_iterator(cache)) {
    const std::string kept = test::read_file(e.path().string());
    if (kept.size() > 21 && kept[20] == '\n') std::filesystem::resize_file(e.path(), 30);
  }
  const ptx::PtxasResult cubin_cut = ptx::run_ptxas(text, info.arch, {.keep_cubin = true});
  CHECK(cubin_cut.cubin == cubin.cubin);
  CHECK(count() == 6);
  // One that hands a disassembler the cubin's path always runs.
  bool handed = false;
  CHECK(ptx::run_ptxas(text, info.arch, {.keep_cubin = true, .with_cubin = [&](const std::string&) { handed = true; }}).ok);
  CHECK(handed);
  CHECK(count() == 7);

  // A failure is ptxas's own each time, never kept.
  const std::string broken = text + "\nthis is not ptx;\n";
  const ptx::PtxasResult bad = ptx::run_ptxas(broken, info.arch);
  CHECK_FALSE(bad.ok);
  CHECK(count() == 8);
  const ptx::PtxasResult bad_again = ptx::run_ptxas(broken, info.arch);
  CHECK_FALSE(bad_again.ok);
  CHECK_THAT(bad_again.log, Catch::Contains("syntax error") && !Catch::Contains("GEMMSCOPE_PTXAS_CACHE"));
  CHECK_THAT(bad_again.command, !Catch::Contains("GEMMSCOPE_PTXAS_CACHE"));
  CHECK(count() == 9);
  CHECK(files_in(cache) == 5);

  // Another ptxas binary (here: the same script, rewritten) is not answered from the first's runs.
  std::filesystem::last_write_time(counting,
                                   std::filesystem::last_write_time(counting) + std::chrono::seconds(5));
  CHECK(ptx::run_ptxas(text, info.arch).ok);
  CHECK(count() == 10);

  // Without the variable nothing is kept or read.
  {
    const test::ScopedEnv off("GEMMSCOPE_PTXAS_CACHE", "");
    CHECK(ptx::run_ptxas(text, info.arch).ok);
    CHECK(count() == 11);
  }
  CHECK(files_in(cache) == 6);
}
