// The warp-specialisation ops in the model (exec_warpgroup.cpp): setmaxnreg's register pool
// and elect.sync's leader.
#include <cstring>

#include <catch2/catch.hpp>

#include "engine/builder/builder.hpp"
#include "engine/model/model.hpp"

using namespace gs;
using builder::Addr;
using builder::Builder;
using builder::Reg;
using ir::Type;

namespace {

// 384 threads (3 warpgroups). Warpgroup 0 runs setmaxnreg.dec `producer`, the others
// setmaxnreg.inc `consumer`; `consumers_first`: the consumers' inc comes before anything else
// they do, while the producer first spins through `delay` instructions, so the inc must wait
// for the dec. Every thread then writes 1 to C[tid].
ir::Kernel split_kernel(uint32_t producer, uint32_t consumer, uint32_t min_ctas = 1, uint32_t delay = 40) {
  Builder b("split", ir::Arch::sm_90a);
  b.set_launch({.grid = {1, 1, 1}, .block = {384, 1, 1}});
  b.set_min_ctas_per_sm(min_ctas);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg wg = (tid >> 7).named("wg");
  b.if_((wg == 0).named("producer"), [&] {
    Reg x = b.mov(Type::u32, 0, "x");
    for (uint32_t i = 0; i < delay; ++i) x += 1;
    b.setmaxnreg(false, producer);
  });
  b.if_((wg != 0).named("consumer"), [&] { b.setmaxnreg(true, consumer); });
  Reg C = b.global_ptr(pc, "C_ptr");
  b.st_global(Type::u32, Addr::at((C + b.mul_wide(tid, 4u, "off")).named("c_ptr")), {b.mov(Type::u32, 1, "one")});
  b.ret();
  return b.finish();
}

model::SimResult run(const ir::Kernel& k, std::vector<uint8_t>* c_out = nullptr) {
  model::GemmBuffers bufs;
  bufs.c.assign(k.launch.threads() * 4, 0xEE);
  model::SimResult r = model::simulate(k, bufs);
  if (c_out) *c_out = bufs.c;
  return r;
}

const model::Hazard* find_hazard(const model::SimResult& r, std::string_view kind) {
  for (const model::Hazard& h : r.hazards)
    if (model::hazard_kind_name(h.kind) == kind) return &h;
  return nullptr;
}

}  // namespace

TEST_CASE("setmaxnreg: 24/240/240 fills the CTA's 384 x 168 registers; the inc waits for the dec", "[model][setmaxnreg]") {
  const model::SimResult r = run(split_kernel(24, 240));
  INFO((r.hazards.empty() ? std::string() : r.hazards.front().detail) << r.error);
  REQUIRE(r.completed);
  CHECK(r.hazards.empty());
  // Each warp's last limit, from the trace's reg_limit events; and the consumers' incs come
  // after the producer's first dec (they waited: before it the pool was full).
  std::vector<uint32_t> limit(12, 0);
  uint64_t first_dec = ~0ull, first_inc = ~0ull;
  for (const model::Event& e : r.trace.events) {
    if (e.kind != model::EventKind::reg_limit) continue;
    limit[e.warp] = e.a;
    if (e.warp < 4) first_dec = std::min(first_dec, e.cycle);
    else first_inc = std::min(first_inc, e.cycle);
  }
  for (uint32_t w = 0; w < 12; ++w) CHECK(limit[w] == (w < 4 ? 24u : 240u));
  CHECK(first_inc > first_dec);
}

TEST_CASE("setmaxnreg: asking for more than the pool deadlocks, naming the request and the pool", "[model][setmaxnreg]") {
  const model::SimResult r = run(split_kernel(24, 248));
  CHECK_FALSE(r.completed);
  const model::Hazard* h = find_hazard(r, "deadlock");
  REQUIRE(h);
  CHECK_THAT(h->detail, Catch::Contains("setmaxnreg.inc 248"));
  CHECK_THAT(h->detail, Catch::Contains("of the CTA's 64512 registers"));
  // A split that adds up to less than the pool fits: 32 + 232 + 232 = 496 <= 3 x 168.
  CHECK(run(split_kernel(32, 232)).completed);
}

TEST_CASE("setmaxnreg: misuse is named (no count at entry, .dec upwards, .inc downwards)", "[model][setmaxnreg]") {
  // Without .minnctapersm ptxas cannot fix the count at entry and ignores setmaxnreg.
  const model::SimResult ignored = run(split_kernel(24, 240, 0));
  const model::Hazard* h = find_hazard(ignored, "bad-setmaxnreg");
  REQUIRE(h);
  CHECK_THAT(h->detail, Catch::Contains("C7508"));
  // .dec to more than the 168 at entry, .inc to less.
  const model::SimResult wrong_way = run(split_kernel(176, 160));
  h = find_hazard(wrong_way, "bad-setmaxnreg");
  REQUIRE(h);
  CHECK_THAT(h->detail, Catch::Contains("must not"));
}

TEST_CASE("elect.sync: the lowest running lane of each warp is the leader", "[model][elect]") {
  Builder b("elect", ir::Arch::sm_90);
  b.set_launch({.grid = {1, 1, 1}, .block = {64, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg C = b.global_ptr(pc, "C_ptr");
  Reg c_ptr = (C + b.mul_wide(tid, 4u, "off")).named("c_ptr");
  // Lanes 5.. run the election (the member mask is the builder's full mask: the model elects
  // among the lanes that run it).
  b.if_(((tid & 31) >= 5).named("late_lanes"), [&] {
    Reg elected = b.elect_sync("elected");
    b.st_global(Type::u32, Addr::at(c_ptr), {b.selp(1u, 2u, elected, "v")});
  });
  b.ret();
  std::vector<uint8_t> c;
  const model::SimResult r = run(b.finish(), &c);
  REQUIRE(r.completed);
  for (uint32_t t = 0; t < 64; ++t) {
    uint32_t v;
    std::memcpy(&v, c.data() + 4 * t, 4);
    INFO("thread " << t);
    CHECK(v == (t % 32 < 5 ? 0xEEEEEEEEu : t % 32 == 5 ? 1u : 2u));
  }
}
