// Probes (run/probe_*): the checks are exercised on the model's output here (no GPU
// needed, and a check that cannot fail is caught by feeding it wrong outputs); the [gpu] case
// runs every probe on the GPU and requires GPU, formula and model to agree.
#include <algorithm>
#include <cstring>
#include <set>

#include <catch2/catch.hpp>

#include "engine/model/model.hpp"
#include "engine/ptx/emit.hpp"
#include "run/probe_cases.hpp"
#include "tests/cuda/gpu_test_support.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;
using Catch::Contains;

namespace {

const run::ProbeCase& case_named(const std::vector<run::ProbeCase>& cases, const std::string& name) {
  for (const run::ProbeCase& c : cases)
    if (c.name == name) return c;
  FAIL("no probe named " << name);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("probes: the cases cover every swizzle, the parity facts, four wgmma widths and mma.sync", "[run][probe]") {
  const std::vector<run::ProbeCase> all = run::probe_cases("all");
  std::vector<std::string> names;
  for (const run::ProbeCase& c : all)
    if (c.group != "wgmma-desc") names.push_back(c.name);
  CHECK(names == std::vector<std::string>{"tma 16x64 32B", "tma 32x64 64B", "tma 64x64 128B", "tma 64x64 none",
                                          "tma 16x64 none", "mbarrier parity", "wgmma m64n8k16", "wgmma m64n16k16",
                                          "wgmma m64n64k16", "wgmma m64n256k16", "mma.sync m16n8k16",
                                          "ldmatrix.x1", "ldmatrix.x1.trans", "ldmatrix.x2", "ldmatrix.x2.trans",
                                          "ldmatrix.x4", "ldmatrix.x4.trans", "stmatrix.x1", "stmatrix.x1.trans",
                                          "stmatrix.x2", "stmatrix.x2.trans", "stmatrix.x4", "stmatrix.x4.trans",
                                          "cluster multicast + DSMEM + remote arrive",
                                          "setmaxnreg 24/240/240 + bar.sync 1,256 + elect.sync"});
  CHECK(run::probe_cases("tma").size() == 5);
  CHECK(run::probe_cases("mbarrier").size() == 1);
  CHECK(run::probe_cases("wgmma").size() == 4);
  CHECK(run::probe_cases("wgmma-desc").size() == run::wgmma_desc_probes().size());
  CHECK(all.size() == 25 + run::wgmma_desc_probes().size());
  CHECK(run::probe_cases("ldmatrix").size() == 12);
  CHECK(run::probe_cases("warpgroup").size() == 1);
  CHECK(run::probe_cases("cluster").size() == 1);
  CHECK(run::probe_cases("mma").size() == 1);
  CHECK_THROWS_AS(run::probe_cases("banks"), kernels::ConfigError);
  CHECK_THAT(run::probe_group_names(), Catch::VectorContains(std::string("wgmma-desc")));
}

TEST_CASE("probes: wgmma-desc covers every swizzle K-major, MN-major, base offsets and odd LBO/SBO", "[run][probe]") {
  const std::vector<kernels::WgmmaDescProbe> descs = run::wgmma_desc_probes();
  const auto any = [&](auto pred) { return std::any_of(descs.begin(), descs.end(), pred); };
  for (const layout::Swizzle sw :
       {layout::Swizzle::none, layout::Swizzle::b32, layout::Swizzle::b64, layout::Swizzle::b128}) {
    INFO(layout::swizzle_name(sw));
    CHECK(any([&](const auto& d) { return d.k_major && d.fields.swizzle == sw && d.fields.base_offset == 0; }));
    CHECK(any([&](const auto& d) { return !d.k_major && d.fields.swizzle == sw; }));
    CHECK(any([&](const auto& d) { return d.k_major && d.fields.swizzle == sw && d.fields.base_offset != 0; }));
  }
  // MN-major 128B across several atoms (LBO read), on B at N = 256.
  CHECK(any([](const auto& d) { return !d.k_major && d.operand == 'B' && d.n == 256 && d.fields.swizzle == layout::Swizzle::b128; }));
  // A tile off its repeat read with base offset 0 and with the PTX ISA's value.
  CHECK(any([](const auto& d) { return d.start_offset % 1024 != 0 && d.fields.base_offset == 0; }));
  CHECK(any([](const auto& d) {
    return d.start_offset % 1024 != 0 && d.fields.base_offset == layout::wgmma_base_offset_for(d.start_offset, d.fields.swizzle);
  }));
  CHECK(any([](const auto& d) { return d.k_major && d.fields.swizzle == layout::Swizzle::none && d.fields.leading_byte_offset != 128; }));
  CHECK(any([](const auto& d) { return d.k_major && d.fields.swizzle != layout::Swizzle::none && d.fields.leading_byte_offset != 16; }));
  CHECK(any([](const auto& d) { return d.fields.swizzle == layout::Swizzle::b128 && d.fields.stride_byte_offset % 1024 != 0; }));
  // Every case is a kernel that builds and verifies, and no two share a name.
  std::set<std::string> names;
  for (const kernels::WgmmaDescProbe& d : descs) {
    CHECK(names.insert(d.name).second);
    CHECK_NOTHROW(kernels::build_wgmma_descriptor_probe(d));
  }
  kernels::WgmmaDescProbe bad = descs.front();
  bad.operand = 'C';
  CHECK_THROWS_WITH(kernels::build_wgmma_descriptor_probe(bad), Contains("operand 'C' is not A or B"));
  bad = descs.front();
  bad.start_offset = 8;
  CHECK_THROWS_WITH(kernels::build_wgmma_descriptor_probe(bad), Contains("start offset 8 is not a multiple of 16"));
}

TEST_CASE("probes: every probe kernel assembles for its target", "[run][probe][ptxas]") {
  for (const run::ProbeCase& probe : run::probe_cases("all")) {
    DYNAMIC_SECTION(probe.name) {
      test::check_assembles(ptx::emit(probe.kernel).text, probe.kernel.target, probe.name);
    }
  }
}

TEST_CASE("probes: the model's outputs pass every check", "[run][probe]") {
  for (const run::ProbeCase& probe : run::probe_cases("all")) {
    DYNAMIC_SECTION(probe.name) {
      run::ProbeReport report;
      std::vector<uint8_t> model_c;
      run::run_probe_on_model(probe, report, model_c);
      INFO(report.model_error << report.model_vs_formula.first_mismatch);
      CHECK(report.model_completed);
      CHECK(report.model_hazards == 0);
      CHECK(report.model_vs_formula.pass);
      CHECK(report.model_vs_formula.checked > 0);
      CHECK(run::compare_probe_outputs(probe, model_c, model_c).pass);
    }
  }
}

TEST_CASE("probes: a wrong output fails with the first mismatch named", "[run][probe]") {
  const std::vector<run::ProbeCase> all = run::probe_cases("all");

  // A TMA that ignored the 128B swizzle: element i at byte 2i. Row 1's chunks are XORed with 1,
  // so where the formula puts (1,0) (byte 144) the unswizzled tile holds (1,8).
  const run::ProbeCase& tma = case_named(all, "tma 64x64 128B");
  std::vector<uint8_t> unswizzled = tma.buffers.a;
  const run::ProbeCheck t = run::check_probe_output(tma, unswizzled, "GPU");
  CHECK_FALSE(t.pass);
  CHECK(t.first_mismatch == "row 1 col 0: GPU holds element (1,8), formula says (1,0)");
  CHECK(t.mismatches == 64 * 64 - 8 * 64);  // rows 0, 8, 16, ... (XOR 0) stay in place
  std::vector<uint8_t> poisoned(tma.buffers.c.size(), 0xEE);
  CHECK_THAT(run::check_probe_output(tma, poisoned, "GPU").first_mismatch,
             Contains("row 0 col 0: GPU holds 0xeeee (no element of the box: never written?)"));
  // The unswizzled layout is what the model puts in the unswizzled probe: the two must agree.
  CHECK(run::check_probe_output(case_named(all, "tma 64x64 none"), unswizzled, "GPU").pass);

  const run::ProbeCase& bar = case_named(all, "mbarrier parity");
  std::vector<uint8_t> words(16, 0);
  const uint32_t seen[4] = {0, 1, 0, 0};
  std::memcpy(words.data(), seen, 16);
  const run::ProbeCheck b = run::check_probe_output(bar, words, "GPU");
  CHECK_FALSE(b.pass);
  CHECK(b.first_mismatch == "result 2 (test_wait.parity 0 after one arrival): GPU says 0, the facts say 1");

  const run::ProbeCase& mma = case_named(all, "wgmma m64n16k16");
  run::ProbeReport report;
  std::vector<uint8_t> model_c;
  run::run_probe_on_model(mma, report, model_c);
  REQUIRE(report.model_completed);
  std::vector<uint8_t> swapped = model_c;  // thread 0's registers 0 and 1 exchanged
  std::memcpy(swapped.data(), model_c.data() + 4, 4);
  std::memcpy(swapped.data() + 4, model_c.data(), 4);
  const run::ProbeCheck m = run::check_probe_output(mma, swapped, "GPU");
  CHECK_FALSE(m.pass);
  CHECK(m.mismatches == 2);
  CHECK(m.first_mismatch == "thread 0 register 0: GPU holds (row 0, col 1), the map says (row 0, col 0)");
  const run::ProbeCheck vs = run::compare_probe_outputs(mma, swapped, model_c);
  CHECK(vs.first_mismatch == "thread 0 register 0: GPU holds (row 0, col 1), model holds (row 0, col 0)");

  // A descriptor probe whose output came from a different descriptor: the aligned 128B tile's
  // output judged as the tile at +128 with base offset 1 (row 0 k 0 is byte 0x0080 there).
  run::ProbeReport aligned;
  std::vector<uint8_t> aligned_c;
  run::run_probe_on_model(case_named(all, "desc 128B-K"), aligned, aligned_c);
  REQUIRE(aligned.model_vs_formula.pass);
  const run::ProbeCase& moved = case_named(all, "desc 128B-K @128 b1");
  const run::ProbeCheck d = run::check_probe_output(moved, aligned_c, "GPU");
  CHECK_FALSE(d.pass);
  CHECK(d.first_mismatch == "A row 0 k 0: GPU read region byte 0x0000, the formula says region byte 0x0080");
  CHECK(d.mismatches == 64 * 16);  // every element moves by a 128-byte line
  std::vector<uint8_t> moved_c;
  run::ProbeReport moved_report;
  run::run_probe_on_model(moved, moved_report, moved_c);
  CHECK(run::compare_probe_outputs(moved, aligned_c, moved_c).first_mismatch ==
        "A row 0 k 0: GPU read region byte 0x0000, model read region byte 0x0080");
  CHECK_THAT(run::check_probe_output(moved, std::vector<uint8_t>(aligned_c.size(), 0), "GPU").first_mismatch,
             Contains("A row 0 k 0: GPU read 0 (no byte of the region)"));
  // elect.sync electing the highest lane instead of the lowest.
  const run::ProbeCase& wg = case_named(all, "setmaxnreg 24/240/240 + bar.sync 1,256 + elect.sync");
  std::vector<uint8_t> highest(wg.buffers.c.size());
  for (uint32_t t = 0; t < kernels::kWarpgroupProbeThreads; ++t) {
    const uint32_t v = t % 32 == 31 ? 1 : 2;
    std::memcpy(highest.data() + 4 * t, &v, 4);
  }
  const run::ProbeCheck e = run::check_probe_output(wg, highest, "GPU");
  CHECK_FALSE(e.pass);
  CHECK(e.first_mismatch == "thread 0 (warp 0, lane 0): GPU wrote 0x2, expected 1 (lane 0 is elected)");
  CHECK(e.mismatches == 2 * kernels::kWarpgroupProbeThreads / 32);
  // A B probe: the identity A has no rows 16..63, so D there must stay 0.
  const run::ProbeCase& on_b = case_named(all, "desc 128B-MN n256 B");
  run::ProbeReport b_report;
  std::vector<uint8_t> b_c;
  run::run_probe_on_model(on_b, b_report, b_c);
  REQUIRE(b_report.model_vs_formula.pass);
  std::vector<uint8_t> b_swapped = b_c;
  std::memcpy(b_swapped.data(), b_c.data() + 4, 4);  // thread 0 d0 <-> d1: B col 0/1 at k 0
  std::memcpy(b_swapped.data() + 4, b_c.data(), 4);
  CHECK_THAT(run::check_probe_output(on_b, b_swapped, "GPU").first_mismatch, Contains("B col 0 k 0: GPU read region byte 0x0002"));

  // ldmatrix without .trans judged as .trans: lane 0's low half is (0, 0) either way, its high
  // half (0, 1) where .trans wants (1, 0): tile rows slot(0) = 3 and slot(1) = 8, so 25 vs 64.
  run::ProbeReport plain_report, trans_report;
  std::vector<uint8_t> plain_c, trans_c;
  run::run_probe_on_model(case_named(all, "ldmatrix.x4"), plain_report, plain_c);
  const run::ProbeCase& trans = case_named(all, "ldmatrix.x4.trans");
  run::run_probe_on_model(trans, trans_report, trans_c);
  const run::ProbeCheck lm = run::check_probe_output(trans, plain_c, "GPU");
  CHECK_FALSE(lm.pass);
  CHECK(lm.first_mismatch == "lane 0 register 0 half 1 = matrix 0 (row 1, col 0): GPU holds 25, the formula says 64");
  CHECK(run::compare_probe_outputs(trans, plain_c, trans_c).first_mismatch ==
        "lane 0 register 0 half 1 = matrix 0 (row 1, col 0): GPU holds 25, model holds 64");

  run::ProbeReport failed;
  failed.name = "wgmma m64n16k16";
  failed.gpu_status = run::GpuStatus::ok;
  failed.gpu_vs_formula = m;
  CHECK_THAT(run::probe_report_line(failed), Contains("FAIL  wgmma m64n16k16") && Contains("thread 0 register 0"));
}

TEST_CASE("[gpu] probes: the GPU places, flips and maps exactly as the facts and the model say", "[run][probe][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  const run::ProbeRun result = run::run_probes(run::probe_cases("all"));
  INFO(result.devices.job.error);
  REQUIRE(result.devices.job.ok());
  REQUIRE(result.reports.size() == run::probe_cases("all").size());
  REQUIRE(result.reports.size() >= 11 + run::wgmma_desc_probes().size());  // + the descriptor probes
  for (const run::ProbeReport& r : result.reports) {
    INFO(run::probe_report_line(r));
    if (!r.skipped.empty()) {
      WARN(run::probe_report_line(r));
      continue;
    }
    CHECK(r.pass());
  }
}

TEST_CASE("probes: the cluster probe's formula accepts the model's C and names a wrong word", "[run][probe][cluster]") {
  // The model side of `gemmscope probe cluster` (the GPU side runs on the device check).
  run::ProbeCase p = run::probe_cases("cluster").at(0);
  model::GemmBuffers bufs = p.buffers;
  const model::SimResult r = model::simulate(p.kernel, bufs);
  REQUIRE(r.completed);
  CHECK(r.hazards.empty());
  const run::ProbeCheck ok = run::check_probe_output(p, bufs.c, "the model");
  CHECK(ok.mismatches == 0);
  CHECK(ok.checked == 4 * 64 * 3);
  bufs.c[(3 * 192 + 64 + 5) * 4] ^= 1;  // CTA 3, thread 5: what its peer stored
  const run::ProbeCheck bad = run::check_probe_output(p, bufs.c, "the model");
  CHECK(bad.mismatches == 1);
  CHECK_THAT(bad.first_mismatch, Catch::Contains("CTA 3 thread 5"));
  CHECK_THAT(bad.first_mismatch, Catch::Contains("st.shared::cluster"));
}
