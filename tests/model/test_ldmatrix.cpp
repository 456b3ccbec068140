// ldmatrix / stmatrix in the model (exec_ldmatrix.cpp): the bank model groups each 8×8 matrix
// as one phase of its 8 row addresses, only the address-giving lanes count, and the rows go
// through the shared-memory hazard checks. (The maps themselves are checked against the facts
// sheet's formula by the ldmatrix probes on the model, tests/run/test_gpu_probes.cpp, and
// against the GPU by `gemmscope probe ldmatrix`.)
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "engine/builder/builder.hpp"
#include "engine/model/model.hpp"
#include "engine/ptx/emit.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;

namespace {

using builder::Addr;
using builder::Builder;
using builder::Reg;

struct Options {
  uint32_t num = 4;
  bool trans = false;
  bool store = false;
  uint32_t row_stride = 16;   // bytes between the rows lane l names (l·stride)
  bool swizzle = false;       // XOR the 16-byte chunk with bits 1-2 of ... the row (64B swizzle)
  uint32_t lanes = 32;        // lanes that execute it (the rest branch around)
  bool fill = true;           // write the tile before reading it
};

constexpr uint32_t kTileBytes = 32 * 128;

// One warp: fills the tile (or not), bar.sync, then one ldmatrix/stmatrix whose lane l names
// row l at l·row_stride (swizzled: chunk (l·stride/16) ^ ((l·stride >> 7) & 3)).
ir::Kernel matrix_kernel(const Options& o) {
  Builder b("matrix_test", o.store ? ir::Arch::sm_90 : ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto tile = b.shared("tile", kTileBytes, 128, ir::SmemUse::tile);
  Reg lane = b.special(ir::Special::laneid, "lane");
  Reg base = b.smem_address(tile, 0, "tile_addr");
  if (o.fill)
    b.loop("w", kTileBytes / 128, [&](const Reg& w) {
      b.st_shared(ir::Type::b32, Addr::at((base + (w << 7) + (lane << 2)).named("fill_at")), {lane});
    });
  b.bar_sync(0);
  Reg off = (lane * o.row_stride).named("off");
  if (o.swizzle) off = (off ^ (((off >> 7) & 3) << 4)).named("swizzled");
  Reg at = (base + off).named("row_at");
  auto skip = b.label("L_skip");
  if (o.lanes < 32) b.bra_if(lane >= o.lanes, skip);
  if (o.store) {
    std::vector<Reg> v;
    for (uint32_t j = 0; j < o.num; ++j) v.push_back(b.mov(ir::Type::b32, int(j), "v"));
    b.stmatrix(o.num, o.trans, Addr::at(at), v);
  } else {
    std::vector<Reg> r = b.ldmatrix(o.num, o.trans, Addr::at(at), "m");
    Reg C = b.global_ptr(pc, "C_ptr");
    b.st_global(ir::Type::b32, Addr::at(C + b.mul_wide(lane, 4u, "c_off")), {r[0]});
  }
  b.bind(skip);
  b.ret();
  return b.finish();
}

// A run and what the kernel stored in C (lane l's first register of the rows at 4·l).
struct Ran {
  model::SimResult r;
  std::vector<uint8_t> c;
};
Ran run_traced(const Options& o, bool trace) {
  model::GemmBuffers bufs;
  bufs.c.assign(32 * 4, 0xEE);
  model::SimOptions opt;
  opt.trace = trace;
  model::SimResult r = model::simulate(matrix_kernel(o), bufs, opt);
  return {std::move(r), bufs.c};
}
model::SimResult run(const Options& o) { return run_traced(o, true).r; }

bool has(const model::SimResult& r, model::HazardKind kind) {
  for (const model::Hazard& h : r.hazards)
    if (h.kind == kind) return true;
  return false;
}

// The wavefronts of the one matrix instruction: the last shared access's (the fill stores
// come before it, each conflict-free).
uint64_t matrix_conflicts(const model::SimResult& r) { return r.stats.smem_bank_conflicts; }

}  // namespace

TEST_CASE("ldmatrix: each matrix is one phase of its 8 row addresses", "[model][ldmatrix]") {
  for (const bool store : {false, true}) {
    for (const uint32_t num : {1u, 2u, 4u}) {
      INFO((store ? "stmatrix" : "ldmatrix") << " .x" << num);
      // Rows 16 bytes apart: a matrix is 128 contiguous bytes, one wavefront.
      const model::SimResult packed = run({.num = num, .store = store});
      CHECK(packed.hazards.empty());
      CHECK(matrix_conflicts(packed) == 0);
      // One phase per matrix: the 32 fill stores, then num phases (lanes past 8·num give none).
      CHECK(packed.stats.smem_ideal_wavefronts == 32 + num);
      // Rows 128 bytes apart: all 8 rows of a matrix on the same 4 banks, 8 wavefronts each.
      const model::SimResult strided = run({.num = num, .store = store, .row_stride = 128});
      CHECK(strided.hazards.empty());
      CHECK(matrix_conflicts(strided) == 7 * num);  // only the address-giving lanes' matrices count
      // Rows 64 bytes apart (a 32-wide bf16 stage): 2 bank groups, 4 wavefronts per matrix;
      // the 64B swizzle spreads them over all 8 groups.
      CHECK(matrix_conflicts(run({.num = num, .store = store, .row_stride = 64})) == 3 * num);
      CHECK(matrix_conflicts(run({.num = num, .store = store, .row_stride = 64, .swizzle = true})) == 0);
    }
  }
}

TEST_CASE("ldmatrix: the rows go through the shared-memory hazard checks", "[model][ldmatrix]") {
  CHECK(has(run({.fill = false}), model::HazardKind::uninitialized_shared));
  CHECK(has(run({.row_stride = 128 + 4}), model::HazardKind::misaligned));
  CHECK(has(run({.row_stride = 256}), model::HazardKind::out_of_bounds_shared));
  CHECK(has(run({.lanes = 16}), model::HazardKind::matrix_divergent));
  CHECK(has(run({.store = true, .lanes = 31}), model::HazardKind::matrix_divergent));
}

// An untraced whole warp's ldmatrix without .trans takes the straight path (direct_ldmatrix,
// where the CPU has AVX2); the traced CTA always runs exec_ldmatrix. Both must compute the same
// registers, wavefronts, conflicts, hazards and cycles, for each count, quiet rows, strided and
// swizzled ones, and rows the straight path must decline (unwritten, misaligned, out of bounds,
// fewer lanes).
TEST_CASE("ldmatrix: the straight path of an untraced warp does what exec_ldmatrix does", "[model][ldmatrix]") {
  std::vector<Options> cases;
  for (const uint32_t num : {1u, 2u, 4u})
    for (const uint32_t stride : {16u, 64u, 128u}) {
      cases.push_back({.num = num, .row_stride = stride});
      cases.push_back({.num = num, .row_stride = stride, .swizzle = true});
    }
  cases.push_back({.fill = false});
  cases.push_back({.row_stride = 128 + 4});  // misaligned, the last rows out of bounds too
  cases.push_back({.num = 1, .row_stride = 128 + 4});  // misaligned, every row inside the tile
  cases.push_back({.num = 2, .row_stride = 64 + 8});
  cases.push_back({.row_stride = 256});
  cases.push_back({.lanes = 16});
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO("case " << i << ": .x" << cases[i].num << ", stride " << cases[i].row_stride
                 << (cases[i].swizzle ? ", swizzled" : "") << (cases[i].fill ? "" : ", unfilled") << ", "
                 << cases[i].lanes << " lanes");
    const Ran traced = run_traced(cases[i], true), fast = run_traced(cases[i], false);
    CHECK(fast.c == traced.c);
    CHECK(fast.r.stats.smem_accesses == traced.r.stats.smem_accesses);
    CHECK(fast.r.stats.smem_wavefronts == traced.r.stats.smem_wavefronts);
    CHECK(fast.r.stats.smem_bank_conflicts == traced.r.stats.smem_bank_conflicts);
    CHECK(fast.r.stats.max_cta_cycles == traced.r.stats.max_cta_cycles);
    REQUIRE(fast.r.hazards.size() == traced.r.hazards.size());
    for (size_t h = 0; h < fast.r.hazards.size(); ++h) CHECK(fast.r.hazards[h].kind == traced.r.hazards[h].kind);
  }
  // The rows' values reach C: lane l's first register holds row l / 4's words 4(l % 4)..+1 of
  // matrix 0, each the lane that filled it (the fill writes lane id at word w·32 + lane).
  const Ran fast = run_traced({.num = 4, .row_stride = 16}, false);
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t v;
    std::memcpy(&v, fast.c.data() + 4 * l, 4);
    CHECK(v == (4 * (l / 4) + l % 4) % 32);
  }
}

TEST_CASE("ldmatrix and stmatrix test kernels assemble with ptxas", "[model][ldmatrix][ptxas]") {
  for (const bool store : {false, true})
    for (const bool trans : {false, true})
      test::check_assembles(ptx::emit(matrix_kernel({.trans = trans, .store = store})).text,
                            store ? ir::Arch::sm_90 : ir::Arch::sm_80, "matrix_test");
}

TEST_CASE("st.shared and st.global store immediates as well as registers", "[model][ldmatrix]") {
  // The stmatrix probe's zero fill found it: the store signature takes immediates, which the
  // model used to read as register numbers.
  Builder b("store_immediates", ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto tile = b.shared("tile", 128, 16, ir::SmemUse::tile);
  Reg lane = b.special(ir::Special::laneid, "lane");
  Reg at = (b.smem_address(tile, 0, "tile_addr") + (lane << 2)).named("at");
  b.st_shared(ir::Type::b32, Addr::at(at), {0x1234567});
  Reg v = b.ld_shared(ir::Type::b32, Addr::at(at), "v");
  Reg c = (b.global_ptr(pc, "C_ptr") + b.mul_wide(lane, 8u, "off")).named("c");
  b.st_global(ir::Type::b32, Addr::at(c), {v});
  b.st_global(ir::Type::f32, Addr::at(c, 4), {2.5});
  b.ret();
  model::GemmBuffers bufs;
  bufs.c.assign(32 * 8, 0xEE);
  const model::SimResult r = model::simulate(b.finish(), bufs);
  CHECK(r.hazards.empty());
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t word = 0;
    float f = 0;
    std::memcpy(&word, bufs.c.data() + 8 * l, 4);
    std::memcpy(&f, bufs.c.data() + 8 * l + 4, 4);
    CHECK(word == 0x1234567u);
    CHECK(f == 2.5f);
  }
}

namespace {

// One warp fills a 4 KB tile and syncs, so that every 128-byte line of it is a plain read; lanes
// 0..7 then copy 16 bytes each into line 8 (bytes 1024..1151) with cp.async and the warp commits
// without waiting, and an ldmatrix.x4 reads rows in lines 0 and 1 (lanes 0..15) and in lines 8
// and 9 (lanes 16..31). Lines 0 and 8 share a slot of quiet_rows' record of the lines it found
// plain (exec_ldmatrix.cpp, by line % 8): line 0's answer must not stand for line 8.
ir::Kernel pending_line_kernel() {
  Builder b("matrix_pending_line", ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto tile = b.shared("tile", kTileBytes, 128, ir::SmemUse::tile);
  Reg lane = b.special(ir::Special::laneid, "lane");
  Reg base = b.smem_address(tile, 0, "tile_addr");
  b.loop("w", kTileBytes / 128, [&](const Reg& w) {
    b.st_shared(ir::Type::b32, Addr::at((base + (w << 7) + (lane << 2)).named("fill_at")), {lane});
  });
  b.bar_sync(0);
  Reg A = b.global_ptr(pa, "A_ptr");
  auto copied = b.label("L_copied");
  b.bra_if(lane >= 8u, copied);
  b.cp_async_cg(Addr::at((base + 1024 + (lane << 4)).named("copy_to")), Addr::at((A + b.mul_wide(lane, 16u, "a_off")).named("copy_from")));
  b.bind(copied);
  b.cp_async_commit_group();
  Reg off = ((lane << 4) + (lane >> 4) * 768u).named("off");  // lanes 16..31: 1024 + 16 (l - 16)
  std::vector<Reg> r = b.ldmatrix(4, false, Addr::at((base + off).named("row_at")), "m");
  Reg C = b.global_ptr(pc, "C_ptr");
  b.st_global(ir::Type::b32, Addr::at(C + b.mul_wide(lane, 4u, "c_off")), {r[2]});
  b.ret();
  return b.finish();
}

}  // namespace

TEST_CASE("ldmatrix: a row in a line with a copy in flight is reported though a line before it in its slot was plain",
          "[model][ldmatrix][hazards]") {
  std::vector<std::vector<uint8_t>> outs;
  for (const bool trace : {false, true}) {
    INFO((trace ? "traced" : "fast"));
    model::GemmBuffers bufs;
    bufs.a.resize(8 * 16);
    for (size_t i = 0; i < bufs.a.size(); ++i) bufs.a[i] = uint8_t(0x40 + i);
    bufs.c.assign(32 * 4, 0xEE);
    model::SimOptions opt;
    opt.trace = trace;
    const model::SimResult r = model::simulate(pending_line_kernel(), bufs, opt);
    CHECK(has(r, model::HazardKind::cp_async_read_before_wait));
    outs.push_back(bufs.c);
  }
  CHECK(outs[0] == outs[1]);
}

