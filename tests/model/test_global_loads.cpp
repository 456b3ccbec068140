// ld.global of a whole warp: the AVX2 build's straight path for 4-byte loads
// (exec_mem.cpp, direct_load_u32_avx2) must give what the general path gives, and hand
// every warp it cannot prove safe (a lane out of bounds, misaligned, or in another buffer)
// to that path, which reports it as before. An untraced run takes the straight path where
// it can; the traced CTA never does, so the two runs of each case are compared with each
// other and with the bytes each lane should read.
#include <catch2/catch.hpp>

#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "engine/builder/builder.hpp"
#include "engine/model/model.hpp"
#include "tests/model/model_fixture.hpp"

using namespace gs;

namespace {

using builder::Addr;
using builder::Builder;
using builder::Reg;

constexpr uint32_t kElems = 32;  // A and B hold 32 words each

// Lane l loads the 4 bytes at A + 4 * l + skew(l) and stores them to C[l].
ir::Kernel load_kernel(const std::function<Reg(Builder&, const Reg& tid)>& skew) {
  Builder b("warp_load", ir::Arch::sm_90);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pb = b.param("B", ir::ParamKind::global_ptr, ir::ParamRole::b);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg A = b.global_ptr(pa, "A_ptr");
  (void)b.global_ptr(pb, "B_ptr");
  Reg C = b.global_ptr(pc, "C_ptr");
  Reg four_l = b.mul_wide(tid, 4u, "four_l");
  Reg v = b.ld_global(ir::Type::u32, Addr::at(A + four_l + skew(b, tid)), "v");
  b.st_global(ir::Type::u32, Addr::at(C + four_l), {v});
  b.ret();
  return b.finish();
}

struct Outcome {
  std::vector<uint8_t> c;
  std::vector<model::Hazard> hazards;
};

Outcome run(const ir::Kernel& k, bool traced) {
  model::GemmBuffers bufs;
  bufs.a.resize(4 * kElems);
  bufs.b.resize(4 * kElems);
  for (uint32_t i = 0; i < 4 * kElems; ++i) {
    bufs.a[i] = uint8_t(i + 1);
    bufs.b[i] = uint8_t(0x80 + i);
  }
  bufs.c.assign(4 * kElems, 0xEE);
  model::SimOptions opt;
  opt.trace = traced;
  model::SimResult r = model::simulate(k, bufs, opt);
  REQUIRE(r.completed);
  return {bufs.c, r.hazards};
}

// The word at byte `offset` of a 4 * kElems-byte buffer whose byte i is first + i, or 0 where
// the 4 bytes are not all inside it (what the model loads out of bounds).
uint32_t word_at(uint32_t offset, uint8_t first) {
  if (offset + 4 > 4 * kElems) return 0;
  uint32_t v = 0;
  for (uint32_t i = 0; i < 4; ++i) v |= uint32_t(uint8_t(first + offset + i)) << (8 * i);
  return v;
}

uint32_t c_word(const std::vector<uint8_t>& c, uint32_t lane) {
  uint32_t v;
  std::memcpy(&v, c.data() + 4 * lane, 4);
  return v;
}

void check_same(const Outcome& fast, const Outcome& traced) {
  CHECK(fast.c == traced.c);
  test::check_same_hazards(fast.hazards, traced.hazards);
}

std::set<std::string> kinds(const Outcome& o) {
  std::set<std::string> k;
  for (const model::Hazard& h : o.hazards) k.insert(std::string(model::hazard_kind_name(h.kind)));
  return k;
}

}  // namespace

TEST_CASE("global loads: a whole warp in bounds and aligned reads every lane's word", "[model][memory]") {
  const ir::Kernel k = load_kernel([](Builder& b, const Reg& tid) { return b.mul_wide(tid, 0u, "none"); });
  const Outcome fast = run(k, false), traced = run(k, true);
  check_same(fast, traced);
  CHECK(fast.hazards.empty());
  for (uint32_t lane = 0; lane < 32; ++lane) CHECK(c_word(fast.c, lane) == word_at(4 * lane, 1));
}

TEST_CASE("global loads: one lane out of bounds falls back and is reported", "[model][memory]") {
  // Lane l reads word l + 1: lane 31 reads past the end of A.
  const ir::Kernel k = load_kernel([](Builder& b, const Reg& tid) { return b.mul_wide(tid, 0u, "none") + 4u; });
  const Outcome fast = run(k, false), traced = run(k, true);
  check_same(fast, traced);
  CHECK(kinds(fast) == std::set<std::string>{"out-of-bounds-global"});
  REQUIRE(!fast.hazards.empty());
  CHECK(fast.hazards[0].lane == 31);
  for (uint32_t lane = 0; lane < 32; ++lane) CHECK(c_word(fast.c, lane) == word_at(4 * lane + 4, 1));
}

TEST_CASE("global loads: misaligned lanes fall back and are reported", "[model][memory]") {
  const ir::Kernel k = load_kernel([](Builder& b, const Reg& tid) { return b.mul_wide(tid, 0u, "none") + 2u; });
  const Outcome fast = run(k, false), traced = run(k, true);
  check_same(fast, traced);
  CHECK(kinds(fast).count("misaligned"));
  for (uint32_t lane = 0; lane < 32; ++lane) CHECK(c_word(fast.c, lane) == word_at(4 * lane + 2, 1));
}

TEST_CASE("global loads: a lane in another buffer falls back and reads that buffer", "[model][memory]") {
  // Lane 31's address is moved 2^44 bytes up, from A into B (machine.hpp, kGlobalBase): the
  // warp is not inside one buffer, yet every lane is in bounds and aligned.
  const ir::Kernel k = load_kernel([](Builder& b, const Reg& tid) { return b.mul_wide(tid / 31u, 1u << 22) << 22u; });
  const Outcome fast = run(k, false), traced = run(k, true);
  check_same(fast, traced);
  CHECK(fast.hazards.empty());
  for (uint32_t lane = 0; lane < 31; ++lane) CHECK(c_word(fast.c, lane) == word_at(4 * lane, 1));
  CHECK(c_word(fast.c, 31) == word_at(4 * 31, 0x80));
}

TEST_CASE("global loads: one address for the whole warp, and lanes out of order, read their words",
          "[model][memory]") {
  // The straight path reads a warp at one address with one load and consecutive lanes with
  // vector loads, and gathers any other pattern: each must give every lane its own word.
  SECTION("every lane at the last word of A") {
    const ir::Kernel k = load_kernel([](Builder& b, const Reg& tid) { return b.mul_wide(tid ^ 31u, 4u); });
    const Outcome fast = run(k, false), traced = run(k, true);
    check_same(fast, traced);
    CHECK(fast.hazards.empty());
    for (uint32_t lane = 0; lane < 32; ++lane) CHECK(c_word(fast.c, lane) == word_at(4 * 31, 1));
  }
  SECTION("every lane one word past the end of A falls back and is reported") {
    const ir::Kernel k = load_kernel([](Builder& b, const Reg& tid) { return b.mul_wide(tid ^ 31u, 4u) + 4u; });
    const Outcome fast = run(k, false), traced = run(k, true);
    check_same(fast, traced);
    CHECK(kinds(fast) == std::set<std::string>{"out-of-bounds-global"});
    for (uint32_t lane = 0; lane < 32; ++lane) CHECK(c_word(fast.c, lane) == 0);
  }
  SECTION("lane l at word l ^ 1") {
    const ir::Kernel k =
        load_kernel([](Builder& b, const Reg& tid) { return b.mul_wide(tid ^ 1u, 4u) - b.mul_wide(tid, 4u); });
    const Outcome fast = run(k, false), traced = run(k, true);
    check_same(fast, traced);
    CHECK(fast.hazards.empty());
    for (uint32_t lane = 0; lane < 32; ++lane) CHECK(c_word(fast.c, lane) == word_at(4 * (lane ^ 1), 1));
  }
  // mma.sync's fragments (step 08): four consecutive words a group of four lanes, the groups
  // anywhere (here in reverse order), read with one vector load a group.
  const auto group_word = [](Builder& b, const Reg& tid) { return (((tid / 4u) ^ 7u) * 4u + (tid & 3u)).named("w"); };
  SECTION("groups of four consecutive words, the groups in reverse order") {
    const ir::Kernel k = load_kernel(
        [&](Builder& b, const Reg& tid) { return b.mul_wide(group_word(b, tid), 4u) - b.mul_wide(tid, 4u); });
    const Outcome fast = run(k, false), traced = run(k, true);
    check_same(fast, traced);
    CHECK(fast.hazards.empty());
    for (uint32_t lane = 0; lane < 32; ++lane)
      CHECK(c_word(fast.c, lane) == word_at(4 * (((lane / 4) ^ 7) * 4 + lane % 4), 1));
  }
  SECTION("the same a word on: lane 3's word is past the end of A, and reported") {
    const ir::Kernel k = load_kernel(
        [&](Builder& b, const Reg& tid) { return b.mul_wide(group_word(b, tid), 4u) - b.mul_wide(tid, 4u) + 4u; });
    const Outcome fast = run(k, false), traced = run(k, true);
    check_same(fast, traced);
    CHECK(kinds(fast) == std::set<std::string>{"out-of-bounds-global"});
    REQUIRE(!fast.hazards.empty());
    CHECK(fast.hazards[0].lane == 3);
    for (uint32_t lane = 0; lane < 32; ++lane)
      CHECK(c_word(fast.c, lane) == word_at(4 * (((lane / 4) ^ 7) * 4 + lane % 4 + 1), 1));
  }
  // The AVX-512 build tests the pattern 8 lanes a vector: a group off the pattern in the last
  // vector only must send the warp to the gathers (and lane 31 read its own word).
  SECTION("the same but lane 31 a word further on: the last group is off the pattern") {
    const ir::Kernel k = load_kernel([&](Builder& b, const Reg& tid) {
      return b.mul_wide(group_word(b, tid) + tid / 31u, 4u) - b.mul_wide(tid, 4u);
    });
    const Outcome fast = run(k, false), traced = run(k, true);
    check_same(fast, traced);
    CHECK(fast.hazards.empty());
    for (uint32_t lane = 0; lane < 32; ++lane)
      CHECK(c_word(fast.c, lane) == word_at(4 * (((lane / 4) ^ 7) * 4 + lane % 4 + lane / 31), 1));
  }
  SECTION("the same 2 bytes on: misaligned, and reported") {
    const ir::Kernel k = load_kernel(
        [&](Builder& b, const Reg& tid) { return b.mul_wide(group_word(b, tid), 4u) - b.mul_wide(tid, 4u) - 2u; });
    const Outcome fast = run(k, false), traced = run(k, true);
    check_same(fast, traced);
    CHECK(kinds(fast).count("misaligned"));
  }
}
