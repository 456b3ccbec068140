// mma.sync.m16n8k16 on the model (engine/model/exec_mma.cpp) against sums worked out here from
// the layout's fragment maps, with D registers that are other C registers (the copy of C before
// the sums), and its register checks in operand order (the registers the decoder reads once).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/builder/builder.hpp"
#include "engine/layout/fragments.hpp"
#include "engine/model/model.hpp"
#include "engine/model/values.hpp"

using namespace gs;

namespace {

// Words of the A buffer: lane l's A registers at 4l + j, B's at 128 + 2l + j, C's at 192 + 4l + v.
constexpr uint32_t kBWords = 128, kCWords = 192, kWords = 320;

float a_value(uint32_t l, uint32_t e) { return float(int((l * 7 + e * 3) % 9) - 4); }
float b_value(uint32_t l, uint32_t e) { return float(int((l * 5 + e * 11) % 7) - 3); }
float c_value(uint32_t l, uint32_t v) { return float(int((l * 3 + v * 13) % 11) - 5); }

uint32_t bf16_pair(float lo, float hi) {
  return uint32_t(model::f32_to_bf16_rne(lo)) | uint32_t(model::f32_to_bf16_rne(hi)) << 16;
}

std::vector<uint8_t> fragments() {
  std::vector<uint32_t> w(kWords);
  for (uint32_t l = 0; l < 32; ++l) {
    for (uint32_t j = 0; j < 4; ++j) w[4 * l + j] = bf16_pair(a_value(l, 2 * j), a_value(l, 2 * j + 1));
    for (uint32_t j = 0; j < 2; ++j) w[kBWords + 2 * l + j] = bf16_pair(b_value(l, 2 * j), b_value(l, 2 * j + 1));
    for (uint32_t v = 0; v < 4; ++v) w[kCWords + 4 * l + v] = uint32_t(model::from_f32(c_value(l, v)));
  }
  std::vector<uint8_t> bytes(4 * kWords);
  std::memcpy(bytes.data(), w.data(), bytes.size());
  return bytes;
}

// One warp loads its fragments, runs one mma.sync with D = {C1, C0, X, Y} (the first two are
// each the other's C register), and stores D. `unwritten`: lanes 16..31 never write A's register
// 1 nor C's register 2 (written in lanes 0..15 only).
// Lane `lane`'s fragments of A (4 words), B (2) and C (4 floats) from the buffer behind A (as
// fragments() lays them out).
struct Frags {
  std::vector<builder::Reg> a, bb, c;
};
Frags load_frags(builder::Builder& b, const builder::Param& pa, const builder::Reg& lane) {
  using builder::Addr;
  using builder::Reg;
  using ir::Type;
  Reg frag = (b.global_ptr(pa, "A_ptr") + b.mul_wide(lane, 16u, "a_off")).named("frag");
  Reg bfrag = (b.global_ptr(pa, "B_ptr") + b.mul_wide(lane, 8u, "b_off")).named("bfrag");
  Reg cfrag = (b.global_ptr(pa, "Cin_ptr") + b.mul_wide(lane, 16u, "c_off")).named("cfrag");
  Frags f;
  for (uint32_t j = 0; j < 4; ++j)
    f.a.push_back(b.ld_global(Type::b32, Addr::at(frag, int64_t(4 * j)), "a" + std::to_string(j)));
  for (uint32_t j = 0; j < 2; ++j)
    f.bb.push_back(b.ld_global(Type::b32, Addr::at(bfrag, int64_t(4 * kBWords + 4 * j)), "b" + std::to_string(j)));
  for (uint32_t v = 0; v < 4; ++v)
    f.c.push_back(b.ld_global(Type::f32, Addr::at(cfrag, int64_t(4 * kCWords + 4 * v)), "c" + std::to_string(v)));
  return f;
}

ir::Kernel mma_kernel(bool unwritten) {
  using builder::Addr;
  using builder::Reg;
  using ir::Type;
  builder::Builder b(unwritten ? "mma_unwritten" : "mma_alias", ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  auto [a, bb, c] = load_frags(b, pa, tid);  // one warp: tid is the lane
  if (unwritten) {
    a[1] = b.reg(Type::b32, "a1_half");
    c[2] = b.reg(Type::f32, "c2_half");
    b.if_(tid < 16u, [&] {
      b.alu_into(ir::Op::mov, a[1], {a[0]});
      b.alu_into(ir::Op::mov, c[2], {c[0]});
    });
  }
  const std::vector<Reg> d = {c[1], c[0], b.reg(Type::f32, "x"), b.reg(Type::f32, "y")};
  b.mma_sync(d, a, bb, c);
  Reg out = (b.global_ptr(pc, "C_ptr") + b.mul_wide(tid, 16u, "o_off")).named("out");
  for (uint32_t v = 0; v < 4; ++v) b.st_global(Type::f32, Addr::at(out, int64_t(4 * v)), {d[v]});
  b.ret();
  return b.finish();
}

model::SimResult run(const ir::Kernel& k, bool trace, std::vector<uint8_t>& c) {
  model::GemmBuffers bufs;
  bufs.a = fragments();
  bufs.c.assign(32 * 16, 0);
  model::SimOptions opt;
  opt.trace = trace;
  model::SimResult r = model::simulate(k, bufs, opt);
  c = bufs.c;
  return r;
}

}  // namespace

TEST_CASE("mma.sync: D = C + A B through the fragment maps, with D registers that are other C registers",
          "[model][mma]") {
  const layout::FragmentMap fa = layout::mma_m16n8k16_a_layout();  // (T32,V8) -> (M16,K16)
  const layout::FragmentMap fb = layout::mma_m16n8k16_b_layout();  // (T32,V4) -> (K16,N8)
  const layout::FragmentMap fc = layout::mma_m16n8k16_c_layout();  // (T32,V4) -> (M16,N8)
  float A[16][16] = {}, B[16][8] = {}, C[16][8] = {};
  for (int l = 0; l < 32; ++l) {
    for (int e = 0; e < 8; ++e) A[fa.at(l, e).row][fa.at(l, e).col] = a_value(uint32_t(l), uint32_t(e));
    for (int e = 0; e < 4; ++e) B[fb.at(l, e).row][fb.at(l, e).col] = b_value(uint32_t(l), uint32_t(e));
    for (int v = 0; v < 4; ++v) C[fc.at(l, v).row][fc.at(l, v).col] = c_value(uint32_t(l), uint32_t(v));
  }
  for (const bool trace : {false, true}) {
    INFO((trace ? "traced" : "fast"));
    std::vector<uint8_t> out;
    const model::SimResult r = run(mma_kernel(false), trace, out);
    REQUIRE(r.completed);
    CHECK(r.hazards.empty());
    for (int l = 0; l < 32; ++l)
      for (int v = 0; v < 4; ++v) {
        const layout::Coord at = fc.at(l, v);
        float want = C[at.row][at.col];  // small integers: every sum is exact
        for (int k = 0; k < 16; ++k) want += A[at.row][k] * B[k][at.col];
        float got = 0;
        std::memcpy(&got, out.data() + 16 * l + 4 * v, 4);
        INFO("lane " << l << " register " << v);
        CHECK(got == want);
      }
  }
}

TEST_CASE("mma.sync: an unwritten source register is reported in operand order (A before C)", "[model][mma][hazards]") {
  for (const bool trace : {false, true}) {
    INFO((trace ? "traced" : "fast"));
    std::vector<uint8_t> out;
    const model::SimResult r = run(mma_kernel(true), trace, out);
    REQUIRE_FALSE(r.hazards.empty());
    const model::Hazard& h = r.hazards.front();
    CHECK(h.kind == model::HazardKind::uninitialized_register);
    CHECK_THAT(h.detail, Catch::StartsWith("%a1_half is read by 16 lane(s)"));
  }
}

namespace {

// Two warps run one mma.sync; warp 1 (threads 32..63) wrote A's register 1 in lanes 0..15 only.
// The straight path looks at its sources' written lanes once per warp and CTA
// (Warp::mma_sources_written): warp 0's look must not answer for warp 1, whose mma.sync takes
// the exec form and is reported as in the traced run.
ir::Kernel mma_two_warps_kernel() {
  using builder::Addr;
  using builder::Reg;
  using ir::Type;
  builder::Builder b("mma_two_warps", ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {64, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg lane = (tid & 31u).named("lane");
  auto [a, bb, c] = load_frags(b, pa, lane);
  a[1] = b.reg(Type::b32, "a1_part");
  b.if_(tid < 48u, [&] { b.alu_into(ir::Op::mov, a[1], {a[0]}); });  // warp 0: every lane; warp 1: 0..15
  b.mma_sync(c, a, bb, c);
  Reg out = (b.global_ptr(pc, "C_ptr") + b.mul_wide(tid, 16u, "o_off")).named("out");
  for (uint32_t v = 0; v < 4; ++v) b.st_global(Type::f32, Addr::at(out, int64_t(4 * v)), {c[v]});
  b.ret();
  return b.finish();
}

}  // namespace

TEST_CASE("mma.sync: one warp's written sources do not answer for another warp's", "[model][mma][hazards]") {
  std::vector<model::SimResult> runs;
  std::vector<std::vector<uint8_t>> outs;
  for (const bool trace : {false, true}) {
    model::GemmBuffers bufs;
    bufs.a = fragments();
    bufs.c.assign(64 * 16, 0);
    model::SimOptions opt;
    opt.trace = trace;
    runs.push_back(model::simulate(mma_two_warps_kernel(), bufs, opt));
    outs.push_back(bufs.c);
  }
  for (size_t i = 0; i < 2; ++i) {
    INFO((i == 0 ? "fast" : "traced"));
    REQUIRE(runs[i].hazards.size() == 1);
    const model::Hazard& h = runs[i].hazards.front();
    CHECK(h.kind == model::HazardKind::uninitialized_register);
    CHECK(h.warp == 1);
    CHECK_THAT(h.detail, Catch::StartsWith("%a1_part is read by 16 lane(s)"));
  }
  CHECK(outs[0] == outs[1]);
}

