// `gemmscope ptx --annotate` and `gemmscope diff`: the kernel's C++ next to its PTX, and what
// changed between two kernels or with a mistake switched on.
#include <sstream>

#include <catch2/catch.hpp>

#include "tests/support/cli_run.hpp"

namespace {
using Run = gs::test::CliRun;
Run run(const std::vector<std::string>& args) { return gs::test::run_cli(args); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}
}  // namespace

TEST_CASE("cli: ptx --annotate puts each source line before the PTX it produced", "[cli][source]") {
  const Run plain = run({"ptx", "simt_naive"});
  const Run annotated = run({"ptx", "simt_naive", "--annotate"});
  REQUIRE(plain.code == 0);
  REQUIRE(annotated.code == 0);
  // The PTX is unchanged: the annotated text less its "//>" lines is the plain text.
  std::string stripped;
  size_t notes = 0;
  const std::vector<std::string> lines = lines_of(annotated.out);
  for (const std::string& l : lines) {
    if (l.starts_with("//> ")) {
      ++notes;
      CHECK(l.starts_with("//> kernels/"));
      continue;
    }
    stripped += l + "\n";
  }
  CHECK(stripped == plain.out);
  CHECK(notes > 10);
  // The fma's source line comes right before it.
  bool found = false;
  for (size_t i = 0; i + 1 < lines.size(); ++i)
    if (lines[i].find("b.fma_into(acc, a, bv, acc);") != std::string::npos) {
      CHECK_THAT(lines[i], Catch::StartsWith("//> kernels/01_simt_naive.cpp:"));
      CHECK_THAT(lines[i + 1], Catch::Contains("fma.rn.f32"));
      found = true;
    }
  CHECK(found);
}

TEST_CASE("cli: diff of a mistake prints only the lines it changes", "[cli][source]") {
  const Run r = run({"diff", "hopper_tma_wgmma_64", "--mistake", "missing-init-fence", "--ptx"});
  REQUIRE(r.code == 0);
  std::vector<std::string> removed, added;
  for (const std::string& l : lines_of(r.out)) {
    if (l.starts_with("- ")) removed.push_back(l);
    if (l.starts_with("+ ")) added.push_back(l);
  }
  REQUIRE(removed.size() == 1);
  CHECK_THAT(removed[0], Catch::Contains("fence.mbarrier_init"));
  CHECK(added.empty());
  CHECK_THAT(r.out, Catch::Contains("renamed in order of appearance"));
  CHECK_THAT(r.out, !Catch::Contains("--- kernels/"));  // --ptx: no source diff
}

TEST_CASE("cli: diff against the step before, or a named kernel", "[cli][source]") {
  Run r = run({"diff", "simt_coalesced", "--source"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("simt_naive -> simt_coalesced: step 01 -> 02:") &&
                        Catch::Contains("--- kernels/01_simt_naive.cpp") &&
                        Catch::Contains("+++ kernels/02_simt_coalesced.cpp") && !Catch::Contains("PTX of"));
  r = run({"diff", "simt_naive", "hopper_tma_wgmma_64", "--ptx", "--context", "0"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("--- PTX of simt_naive") && Catch::Contains("+++ PTX of hopper_tma_wgmma_64"));
}

TEST_CASE("cli: diff's bad choices exit 2 naming the valid ones", "[cli][source][errors]") {
  Run r = run({"diff", "nope"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("'nope'") && Catch::Contains("simt_naive"));
  r = run({"diff", "hopper_tma_wgmma_64", "--mistake", "nope"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("nope") && Catch::Contains("missing-init-fence"));
  r = run({"diff", "simt_naive"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("first step"));
  r = run({"diff", "simt_naive", "--ptx", "--source"});
  CHECK(r.code == 2);
  r = run({"diff", "hopper_tma_wgmma_64", "simt_naive", "--mistake", "missing-init-fence"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--mistake"));
}
