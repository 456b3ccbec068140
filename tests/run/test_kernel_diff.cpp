// "What changed": the line diff (a minimal edit script, checked against an LCS computed
// independently), the PTX comparison keys, and kernel diffs: a mistake's diff shows exactly
// the lines it changes, a step's diff is against the step before it, bad choices are named.
#include <random>

#include <catch2/catch.hpp>

#include "run/kernel_diff.hpp"
#include "run/ptx_diff.hpp"
#include "run/line_diff.hpp"

using namespace gs;

namespace {

size_t lcs_length(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::vector<size_t>> t(a.size() + 1, std::vector<size_t>(b.size() + 1, 0));
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j)
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
  return t[a.size()][b.size()];
}

std::vector<std::string> changed_lines(const run::TextDiff& d, run::DiffKind kind) {
  std::vector<std::string> out;
  for (const run::DiffRow& r : d.rows)
    if (r.kind == kind) out.push_back(kind == run::DiffKind::removed ? d.left[size_t(r.left)] : d.right[size_t(r.right)]);
  return out;
}

}  // namespace

TEST_CASE("diff: the edit script rebuilds both sides and is as short as the LCS allows", "[run][diff]") {
  std::mt19937 rng(19);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> a(rng() % 12), b(rng() % 12);
    for (auto& s : a) s = std::string(1, char('a' + rng() % 4));
    for (auto& s : b) s = std::string(1, char('a' + rng() % 4));
    const std::vector<run::DiffRow> rows = run::diff_lines(a, b);
    std::vector<std::string> left, right;
    int32_t next_left = 0, next_right = 0;
    for (const run::DiffRow& r : rows) {
      if (r.kind != run::DiffKind::added) {
        REQUIRE(r.left == next_left++);
        left.push_back(a[size_t(r.left)]);
      }
      if (r.kind != run::DiffKind::removed) {
        REQUIRE(r.right == next_right++);
        right.push_back(b[size_t(r.right)]);
      }
      if (r.kind == run::DiffKind::same) REQUIRE(a[size_t(r.left)] == b[size_t(r.right)]);
    }
    REQUIRE(left == a);
    REQUIRE(right == b);
    const run::DiffCount c = run::count_changes(rows);
    REQUIRE(c.removed + c.added == a.size() + b.size() - 2 * lcs_length(a, b));
  }
  CHECK(run::diff_lines(std::vector<std::string>{}, std::vector<std::string>{}).empty());
}

TEST_CASE("diff: PTX keys rename numbered registers and labels in order of appearance", "[run][diff]") {
  const std::vector<std::string_view> one = {"add.u32 %t7, %t3, %row;", "@!%p bra L_skip_4;", "mov.u32 %t3, 0x10;"};
  const std::vector<std::string_view> two = {"add.u32 %t8, %t5, %row;", "@!%p bra L_skip_2;", "mov.u32 %t5, 0x10;"};
  CHECK(run::ptx_compare_keys(one) == run::ptx_compare_keys(two));
  CHECK(run::ptx_compare_keys(one)[0] == "add.u32 %t#0, %t#1, %row;");
  // A different register where the first build had the same one is still a difference.
  const std::vector<std::string_view> three = {"add.u32 %t8, %t8, %row;", "@!%p bra L_skip_2;", "mov.u32 %t5, 0x10;"};
  CHECK(run::ptx_compare_keys(one) != run::ptx_compare_keys(three));
}

TEST_CASE("diff: PTX lines compare through their numbered names paired, not their numbers", "[run][diff]") {
  const std::vector<std::string_view> one = {"add.u32 %t7, %t3, %row;", "@!%p bra L_skip_4;", "mov.u32 %t3, 0x10;"};
  const std::vector<std::string_view> two = {"add.u32 %t8, %t5, %row;", "@!%p bra L_skip_2;", "mov.u32 %t5, 0x10;"};
  run::DiffCount c = run::count_changes(run::diff_ptx(one, two));
  CHECK(c.removed + c.added == 0);
  // A different register where the first build had the same one is still a difference.
  const std::vector<std::string_view> three = {"add.u32 %t8, %t8, %row;", "@!%p bra L_skip_2;", "mov.u32 %t5, 0x10;"};
  c = run::count_changes(run::diff_ptx(one, three));
  CHECK(c.removed == 1);
  CHECK(c.added == 1);
}

TEST_CASE("diff: one temporary less does not renumber the rest of the PTX into a change", "[run][diff]") {
  // The right side drops the instruction writing %t1 (and its use): every later temporary's
  // number shifts by one, but only the two lines that changed are shown.
  const std::vector<std::string_view> left = {"mov.u32 %t0, %tid.x;",  "add.u32 %t1, %t0, 4;", "mul.lo.u32 %t2, %t0, %t1;",
                                              "add.u32 %t3, %t2, 1;",  "shl.b32 %t4, %t3, 2;", "st.global.u32 [%t4], %t3;"};
  const std::vector<std::string_view> right = {"mov.u32 %t0, %tid.x;", "mul.lo.u32 %t1, %t0, %t0;", "add.u32 %t2, %t1, 1;",
                                               "shl.b32 %t3, %t2, 2;", "st.global.u32 [%t3], %t2;"};
  const run::DiffCount c = run::count_changes(run::diff_ptx(left, right));
  CHECK(c.removed == 2);
  CHECK(c.added == 1);
}

TEST_CASE("diff: a mistake's diff shows exactly the lines it changes", "[run][diff]") {
  const run::KernelDiff d = run::diff_kernels({.id = "hopper_tma_wgmma_64", .mistake = "missing-init-fence"});
  CHECK(d.right_name == "hopper_tma_wgmma_64 + missing-init-fence");
  CHECK(!d.summary.empty());
  const std::vector<std::string> ptx_removed = changed_lines(d.ptx, run::DiffKind::removed);
  REQUIRE(ptx_removed.size() == 1);
  CHECK(ptx_removed[0].find("fence.mbarrier_init") != std::string::npos);
  CHECK(changed_lines(d.ptx, run::DiffKind::added).empty());
  const std::vector<std::string> source_removed = changed_lines(d.source, run::DiffKind::removed);
  REQUIRE(source_removed.size() == 1);
  CHECK(source_removed[0].starts_with("kernels/11_hopper_tma_wgmma_64.cpp:"));
  CHECK(source_removed[0].find("b.fence_mbarrier_init();") != std::string::npos);
  CHECK(changed_lines(d.source, run::DiffKind::added).empty());
}

TEST_CASE("diff: a step against the step before it, and bad choices named", "[run][diff]") {
  const run::KernelDiff d = run::diff_kernels({.id = "simt_coalesced"});
  CHECK(d.left_name == "simt_naive");
  CHECK(d.right_name == "simt_coalesced");
  CHECK(d.summary.find(kernels::kernel_or_throw("simt_coalesced").delta) != std::string::npos);
  CHECK(d.source.left_title == "kernels/01_simt_naive.cpp");
  CHECK(d.source.right_title == "kernels/02_simt_coalesced.cpp");
  const run::DiffCount c = run::count_changes(d.source.rows);
  CHECK(c.removed > 0);
  CHECK(c.added > 0);
  CHECK(c.removed < d.source.left.size());  // most of the file is shared
  CHECK(run::format_text_diff(d.source, 1).find("\n...\n") != std::string::npos);

  CHECK_THROWS_WITH(run::diff_kernels({.id = "simt_naive"}), Catch::Contains("first step"));
  CHECK_THROWS_WITH(run::diff_kernels({.id = "nope"}), Catch::Contains("simt_naive"));
  CHECK_THROWS_WITH(run::diff_kernels({.id = "hopper_tma_wgmma_64", .mistake = "nope"}),
                    Catch::Contains("missing-init-fence"));
  CHECK_THROWS_AS(run::diff_kernels({.id = "simt_naive", .against = "nope"}), kernels::ConfigError);
}

TEST_CASE("diff: two builds of one step, and a step against another with its parameters", "[run][diff]") {
  // Step 13 with a 2-stage ring against its 4-stage one: the same file, so the source side is
  // the lines each build ran; the PTX differs in the ring's size, and the summary names the change.
  const run::KernelDiff d = run::diff_variants({"hopper_producer_consumer", {{"stages", 2}}, {}},
                                               {"hopper_producer_consumer", {{"stages", 4}}, {}});
  CHECK(d.left_name == "hopper_producer_consumer stages=2");
  CHECK(d.right_name == "hopper_producer_consumer");  // 4 is its default
  CHECK(d.summary == "stages 2 -> 4");
  CHECK(d.source.left_title == "source lines run by hopper_producer_consumer stages=2");
  CHECK(run::count_changes(d.ptx.rows).added > 0);
  // The same build on both sides changes nothing.
  const run::KernelDiff same = run::diff_variants({"simt_vectorized", {}, {}}, {"simt_vectorized", {}, {}});
  CHECK(same.summary == "the same build");
  CHECK(run::count_changes(same.ptx.rows).added == 0);
  CHECK(run::count_changes(same.source.rows).removed == 0);
  // Two steps, one of them with a mistake: the step files, and the mistake named in the summary.
  const kernels::KernelInfo& k11 = kernels::kernel_or_throw("hopper_tma_wgmma_64");
  const run::KernelDiff steps = run::diff_variants({"ampere_ldmatrix", {}, {}}, {k11.id, {}, {"missing-init-fence"}});
  CHECK(steps.right_name == "hopper_tma_wgmma_64 + missing-init-fence");
  CHECK(steps.source.right_title == "kernels/11_hopper_tma_wgmma_64.cpp");
  CHECK(steps.summary.find(k11.delta) != std::string::npos);
  for (const kernels::Mistake& m : k11.mistakes)
    if (m.name == "missing-init-fence") CHECK(steps.summary.find(m.description) != std::string::npos);
  // A value the kernel does not take is named with the valid ones.
  CHECK_THROWS_WITH(run::diff_variants({"hopper_producer_consumer", {{"stages", 9}}, {}}, {"simt_naive", {}, {}}),
                    Catch::Contains("9") && Catch::Contains("6"));
}
