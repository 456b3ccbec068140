// The SASS view's data: the listing compiled once per kernel (as a job or now), the SASS of the
// cursor's and the selected PTX line, and the one selection shared with the PTX view. The
// listing's links themselves are tested in tests/ptx/test_sass.cpp.
#include <chrono>
#include <thread>

#include <catch2/catch.hpp>

#include "engine/ptx/ptxas.hpp"
#include "gui/core/sass_data.hpp"
#include "tests/gui/gui_fixture.hpp"
#include "tests/gui/headless.hpp"
#include "tests/support/ptxas_check.hpp"
#include "tests/support/scoped_env.hpp"

using namespace gs;
using namespace gs::gui;

namespace {

bool ptxas_or_skip() {
  if (ptx::find_ptxas()) return true;
  if (gs::test::ptxas_required()) FAIL("GEMMSCOPE_REQUIRE_PTXAS=1 but no ptxas");
  WARN("skipped: no ptxas");
  return false;
}

// The first st.global line of the Hopper kernel: ptxas's line table gives it exactly one STG.
uint32_t first_store_line(const LoadedKernel& k) {
  for (uint32_t line = 1; line <= k.ptx_lines.size(); ++line)
    if (k.ptx_lines[line - 1].find("st.global") != std::string::npos) return line;
  return 0;
}

}  // namespace

TEST_CASE("sass data: nothing before the job, the listing once it finished, kept with the kernel", "[gui][sass]") {
  if (!ptxas_or_skip()) return;
  // A kernel of its own: the listing is cached in the kernel, and the fixture's is shared.
  AppState app;
  app.set_kernel(open_kernel({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true}));
  CHECK(sass_listing(app) == nullptr);
  CHECK(describe_sass(app)["status"] == "compiling");
  request_sass(app);
  REQUIRE(app.jobs.size() == 1);
  request_sass(app);  // under way: not started twice
  CHECK(app.jobs.size() == 1);
  for (int i = 0; i < 600 && app.busy(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    app.poll_jobs();
  }
  app.poll_jobs();
  const auto listing = sass_listing(app);
  REQUIRE(listing != nullptr);
  INFO(listing->message);
  CHECK(listing->status != ptx::SassStatus::no_ptxas);
  CHECK(listing->report.smem_bytes == 16392);
  request_sass(app);  // there: no new job
  CHECK(app.jobs.empty());
  CHECK(sass_listing(app) == listing);
}

TEST_CASE("sass data: selecting a SASS instruction selects its PTX line, and the other way round",
          "[gui][sass]") {
  if (!ptxas_or_skip()) return;
  AppState app = gs::gui::test::hopper_app();
  compile_sass_now(app);
  const auto listing = sass_listing(app);
  REQUIRE(listing != nullptr);
  REQUIRE_FALSE(listing->instructions.empty());

  // PTX -> SASS: the selected PTX line's instructions are the view's selected ones.
  const uint32_t store = first_store_line(*app.kernel);
  REQUIRE(store != 0);
  app.select_ptx_line(store);
  SassFocus f = sass_focus(app);
  CHECK(f.selected_line == store);
  REQUIRE(f.selected.size() == 1);
  const size_t stg = f.selected.front();
  CHECK(listing->instructions[stg].ptx_line == store);
  const nlohmann::json d = describe_sass(app);
  CHECK(d["selected_line"] == store);
  CHECK(d["selected_addresses"].size() == 1);
  CHECK(d["selected_addresses"][0] == listing->instructions[stg].address);

  // SASS -> PTX: selecting another line's instruction moves the one selection there.
  size_t other = listing->instructions.size();
  for (size_t i = 0; i < listing->instructions.size(); ++i) {
    const uint32_t line = listing->instructions[i].ptx_line;
    if (line != 0 && line != store && app.kernel->inst_of_line(line) != kNone) {
      other = i;
      break;
    }
  }
  REQUIRE(other < listing->instructions.size());
  REQUIRE(select_sass_instruction(app, other));
  CHECK(app.selection.inst == app.kernel->inst_of_line(listing->instructions[other].ptx_line));
  f = sass_focus(app);
  CHECK(f.selected_line == listing->instructions[other].ptx_line);
  CHECK(std::find(f.selected.begin(), f.selected.end(), other) != f.selected.end());
  CHECK_FALSE(select_sass_instruction(app, listing->instructions.size()));  // out of range: nothing
}

TEST_CASE("sass data: a highlighted group comes into view whole, or by its signature instruction", "[gui][sass]") {
  // Step 11's first wgmma as nvdisasm lists it: two descriptor UMOVs, three unrelated lines, the HGMMA.
  ptx::SassListing l;
  for (const char* op : {"UMOV", "UMOV", "UIADD3.64", "UIADD3.64", "WARPGROUP.ARRIVE", "HGMMA.64x64x16.F32.BF16", "NOP"})
    l.instructions.push_back({.address = uint32_t(16 * l.instructions.size()), .text = op, .opcode = op});
  const std::vector<size_t> wgmma = {0, 1, 5};
  auto span = sass_reveal_span(l, wgmma, 6);
  CHECK(span.first == 0);
  CHECK(span.last == 5);
  span = sass_reveal_span(l, wgmma, 5);  // does not fit: the HGMMA
  CHECK(span.first == 5);
  CHECK(span.last == 5);
  span = sass_reveal_span(l, {0, 1, 6}, 3);  // no signature op: the first
  CHECK(span.first == 0);
  CHECK(span.last == 0);
}

TEST_CASE("sass data: without the toolkit the view's data says what to install", "[gui][sass]") {
  AppState app;
  app.set_kernel(open_kernel({.kernel_id = "simt_naive", .only_traced_cta = true}));
  {
    const gs::test::ScopedEnv no_ptxas("GEMMSCOPE_PTXAS", "/nonexistent/ptxas");
    compile_sass_now(app);
  }
  const nlohmann::json d = describe_sass(app);
  CHECK(d["status"] == "no ptxas");
  CHECK_THAT(d["message"].get<std::string>(), Catch::Contains("CUDA toolkit"));
  CHECK(d["instruction_count"] == 0);
}

TEST_CASE("the SASS view renders beside the PTX view and highlights the selected line's SASS", "[gui][xvfb][sass]") {
  if (!gs::test::xvfb_or_skip() || !ptxas_or_skip()) return;
  auto k = gs::gui::test::hopper_kernel();
  const uint32_t store = first_store_line(*k);
  REQUIRE(store != 0);
  const gs::gui::test::Headless h = gs::gui::test::run_headless(
      "sass", "--kernel hopper_tma_wgmma_64 --view ptx --view sass --size 1280x800 --select-line " + std::to_string(store));
  INFO(h.output);
  REQUIRE(h.code == 0);
  REQUIRE(!h.state.is_discarded());
  const auto& s = h.state["views"]["sass"];
  CHECK(s["status"] != "compiling");
  CHECK(s["status"] != "no ptxas");
  CHECK(s["registers"].get<int>() > 0);
  CHECK(s["selected_line"] == store);
  CHECK(s["selected_addresses"].size() == 1);
  CHECK(gs::gui::test::distinct_colours(h) > 20);
}
