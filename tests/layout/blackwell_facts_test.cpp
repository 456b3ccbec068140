// The Blackwell facts table (engine/layout/blackwell_facts.def): every fact marked `ptxas`
// has a probe here that ptxas -arch=sm_100a must accept or reject as the table says, and
// README.md lists exactly the facts marked `unconfirmed`, so neither can drift.
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>

#include "engine/layout/blackwell_facts.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;

namespace {

// A kernel around `body`, with a few registers and a shared word to point at.
std::string probe(const std::string& body, const std::string& target = "sm_100a", const std::string& version = "8.8") {
  return ".version " + version + "\n.target " + target +
         "\n.address_size 64\n.visible .entry probe()\n{\n"
         "  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p<3>;\n  .reg .b16 %h<3>;\n"
         "  .shared .align 16 .b8 sm[64];\n"
         "  mov.u32 %r1, sm;\n  ld.shared.u32 %r2, [%r1];\n  mov.b64 %rd1, 0;\n  mov.b32 %r3, 0x08400490;\n"
         "  setp.ne.u32 %p1, %r2, 0;\n  mov.b16 %h1, 3;\n" +
         body + "\n  ret;\n}\n";
}

struct Probe {
  std::string ptx;
  ir::Arch arch = ir::Arch::sm_100a;
  bool accepted = true;
  std::string message;  // a part of ptxas's complaint when rejected
};

const std::string kAlloc = "  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], {};";

std::string with(const std::string& line, const std::string& value) {
  std::string s = line;
  s.replace(s.find("{}"), 2, value);
  return s;
}

// Each `ptxas` fact's probes, by id.
std::map<std::string, std::vector<Probe>> probes() {
  std::map<std::string, std::vector<Probe>> p;
  const std::string alloc128 = with(kAlloc, "128");
  p["target_sm100a"] = {{probe(alloc128), ir::Arch::sm_100a, true, ""},
                        {probe(alloc128, "sm_90a", "8.8"), ir::Arch::sm_90a, false, "not supported on .target"},
                        {probe(alloc128, "sm_100a", "8.5"), ir::Arch::sm_100a, false, "requires PTX ISA .version 8.6"}};
  p["alloc_column_count"] = {{probe(with(kAlloc, "32")), ir::Arch::sm_100a, true, ""},
                             {probe(with(kAlloc, "512")), ir::Arch::sm_100a, true, ""},
                             {probe(with(kAlloc, "16")), ir::Arch::sm_100a, false, "[32..512]"},
                             {probe(with(kAlloc, "1024")), ir::Arch::sm_100a, false, "[32..512]"},
                             {probe(with(kAlloc, "48")), ir::Arch::sm_100a, false, "power of 2"}};
  p["dealloc_column_count"] = {
      {probe("  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 64;"), ir::Arch::sm_100a, true, ""},
      {probe("  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 48;"), ir::Arch::sm_100a, false, "multiple of 32"}};
  p["cta_groups_do_not_mix"] = {
      {probe(alloc128 + "\n  tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r1], 128;"), ir::Arch::sm_100a,
       false, "not allowed"}};
  const std::string commit = "  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%r1], ";
  p["commit_mask_register"] = {{probe(commit + "%h1;"), ir::Arch::sm_100a, true, ""},
                               {probe(commit + "3;"), ir::Arch::sm_100a, false, "Arguments mismatch"}};
  const std::string ld = "  tcgen05.ld.sync.aligned.32x32b.x{}.b32 ";
  p["ld_repeat_power_of_two"] = {
      {probe(with(ld, "2") + "{%r4, %r5}, [%r2];"), ir::Arch::sm_100a, true, ""},
      {probe(with(ld, "3") + "{%r4, %r5, %r6}, [%r2];"), ir::Arch::sm_100a, false, "Unknown modifier"}};
  p["mma_address_b32"] = {
      {probe("  tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd1, %rd1, %r3, %p1;"), ir::Arch::sm_100a, true, ""},
      {probe("  .reg .u32 %u;\n  mov.u32 %u, %r2;\n  tcgen05.mma.cta_group::1.kind::f16 [%u], %rd1, %rd1, %r3, %p1;"),
       ir::Arch::sm_100a, false, "Arguments mismatch"}};
  p["mma_a_from_tmem_syntax"] = {
      {probe("  tcgen05.mma.cta_group::1.kind::f16 [%r2], [%r2], %rd1, %r3, %p1;"), ir::Arch::sm_100a, true, ""}};
  p["idesc_not_checked_by_ptxas"] = {  // M=256 (0x10 at bits 24-28) is not a cta_group::1 shape
      {probe("  tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd1, %rd1, 0x10400490, %p1;"), ir::Arch::sm_100a, true, ""}};
  // The answer into sm[0..15], completing on an mbarrier at sm+16; read back as one .b128.
  const std::string clc =
      "  .reg .b128 %q<2>;\n  add.u32 %r4, %r1, 16;\n"
      "  clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%r1], [%r4];\n"
      "  ld.shared.b128 %q1, [%r1];\n"
      "  clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p2, %q1;\n";
  p["clc_syntax"] = {
      {probe(clc + "  clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %r5, %q1;"), ir::Arch::sm_100a, true, ""},
      {probe(clc, "sm_90a"), ir::Arch::sm_90a, false, "requires .target sm_100 or higher"},
      {probe(clc + "  clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %r5, %rd1;"), ir::Arch::sm_100a,
       false, "Arguments mismatch"}};
  // Step 25's epilogue: a TMEM load waited for, the proxy fence, a TMA store from shared memory
  // (a null tensor map: ptxas checks the syntax, not the value) and its bulk group.
  p["tma_store_sm100a"] = {
      {probe("  .reg .b32 %t<2>;\n  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%t1}, [%r2];\n  tcgen05.wait::ld.sync.aligned;\n"
             "  st.shared.b32 [%r1], %t1;\n  fence.proxy.async.shared::cta;\n"
             "  cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd1, {%r2, %r2}], [%r1];\n"
             "  cp.async.bulk.commit_group;\n  cp.async.bulk.wait_group.read 1;"),
       ir::Arch::sm_100a, true, ""}};
  return p;
}

}  // namespace

TEST_CASE("Blackwell facts: every ptxas fact's probes come out as the table says", "[layout][ptxas][tcgen05]") {
  const auto all = probes();
  for (const layout::BlackwellFact& f : layout::blackwell_facts()) {
    if (f.status != layout::FactStatus::ptxas) continue;
    INFO(f.id << ": " << f.statement);
    const auto it = all.find(std::string(f.id));
    REQUIRE(it != all.end());  // a fact marked ptxas without a probe is not confirmed
    for (const Probe& pr : it->second) {
      const ptx::PtxasResult r = ptx::run_ptxas(pr.ptx, pr.arch);
      if (!r.ran) {
        if (test::ptxas_required()) FAIL("GEMMSCOPE_REQUIRE_PTXAS=1 but " << r.log);
        WARN("skipped: " << r.log);
        return;
      }
      INFO(pr.ptx << "\n" << r.log);
      CHECK(r.ok == pr.accepted);
      if (!pr.accepted) CHECK_THAT(r.log, Catch::Contains(pr.message));
    }
  }
  // And no probe for a fact the table does not mark ptxas.
  for (const auto& [id, unused] : all) {
    const layout::BlackwellFact* f = layout::find_blackwell_fact(id);
    REQUIRE(f);
    CHECK(f->status == layout::FactStatus::ptxas);
  }
}

TEST_CASE("Blackwell facts: README.md lists exactly the unconfirmed ones", "[layout][tcgen05]") {
  std::ifstream in(std::string(GEMMSCOPE_SOURCE_DIR) + "/README.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  const std::string readme = text.str();
  const std::string heading = "## Blackwell facts that need a B200";
  const size_t start = readme.find(heading);
  REQUIRE(start != std::string::npos);
  const size_t end = readme.find("\n## ", start + heading.size());
  const std::string section = readme.substr(start, end == std::string::npos ? std::string::npos : end - start);
  std::set<std::string> listed;
  const std::regex item(R"(\n- `([a-z0-9_]+)`)");
  for (std::sregex_iterator i(section.begin(), section.end(), item), e; i != e; ++i) listed.insert((*i)[1]);
  std::set<std::string> unconfirmed;
  for (const layout::BlackwellFact& f : layout::blackwell_facts())
    if (f.status == layout::FactStatus::unconfirmed) unconfirmed.insert(std::string(f.id));
  CHECK(listed == unconfirmed);
  CHECK(unconfirmed.size() >= 10);
}
