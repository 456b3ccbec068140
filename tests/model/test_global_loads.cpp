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

// One warp's launch with the A, B and C parameters (B unused): its thread index and A's and C's
// global pointers.
struct OneWarp {
  Reg tid, A, C;
};
OneWarp one_warp(Builder& b) {
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pb = b.param("B", ir::ParamKind::global_ptr, ir::ParamRole::b);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  OneWarp w;
  w.tid = b.special(ir::Special::tid_x, "tid");
  w.A = b.global_ptr(pa, "A_ptr");
  (void)b.global_ptr(pb, "B_ptr");
  w.C = b.global_ptr(pc, "C_ptr");
  return w;
}

// Lane l loads the 4 bytes at A + 4 * l + skew(l) and stores them to C[l].
ir::Kernel load_kernel(const std::function<Reg(Builder&, const Reg& tid)>& skew) {
  Builder b("warp_load", ir::Arch::sm_90);
  const auto [tid, A, C] = one_warp(b);
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

// A whole warp's st.global into C whose lanes span 8 rows (an mma.sync fragment's store) notes
// the tiles it stores into once, where all its lanes are in one tile (exec_mem.cpp,
// c_store_in_one_tile, four lanes a vector in the AVX2 build), or element by element. C is
// 16 x 16 f32 in 8 x 8 tiles; lane 4g + q stores row g, column 2q.
TEST_CASE("global stores into C: a fragment's store notes each tile it touches", "[model][memory]") {
  const auto store_kernel = [](bool skew) {
    Builder b("warp_store", ir::Arch::sm_90);
    const auto [tid, A, C] = one_warp(b);
    Reg g = (tid / 4u).named("g");
    // With skew, row 6's lanes (24..27: g / 6 - g / 7 is 1 for g = 6 only) move 8 columns on,
    // into tile 1: the first and last lanes stay in tile 0, so only the lanes' band test sees it.
    Reg col = ((tid & 3u) * 2u).named("col");
    if (skew) col = (col + (g / 6u - g / 7u) * 8u).named("col");
    Reg v = b.mov(ir::Type::u32, 7u, "v");
    b.st_global(ir::Type::u32, Addr::at(C + b.mul_wide(g * 16u + col, 4u)), {v});
    b.ret();
    ir::Kernel k = b.finish();
    k.output = {.rows = 16, .cols = 16, .elem_bytes = 4, .tile_rows = 8, .tile_cols = 8};
    return k;
  };
  const auto tiles = [](const ir::Kernel& k) {
    model::GemmBuffers bufs;
    bufs.a.resize(64);
    bufs.b.resize(64);
    bufs.c.assign(16 * 16 * 4, 0);
    model::SimOptions opt;
    opt.trace = false;  // the traced CTA notes element by element
    model::SimResult r = model::simulate(k, bufs, opt);
    REQUIRE(r.completed);
    std::vector<uint32_t> t;
    for (const model::TileVisit& v : r.schedule.visits) t.push_back(v.tile);
    return t;
  };
  CHECK(tiles(store_kernel(false)) == std::vector<uint32_t>{0});
  CHECK(tiles(store_kernel(true)) == std::vector<uint32_t>{0, 1});
}
