// The model against the hardware facts it encodes: TMA placement per swizzle mode, mbarrier
// parity, the wgmma accumulator map, shared-memory bank conflicts. Expected values are
// computed here from the facts sheet's formulas, not from the model's own tables.
#include <cstring>

#include <catch2/catch.hpp>

#include "engine/builder/builder.hpp"
#include "engine/model/model.hpp"
#include "kernels/probes.hpp"

using namespace gs;
using builder::Addr;
using builder::Builder;
using builder::Reg;
using ir::Type;

TEST_CASE("model facts: TMA places every byte where the swizzle formula says (facts §3)", "[model][tma]") {
  struct Mode {
    uint32_t cols;
    layout::Swizzle sw;
    uint32_t mask;
  };
  for (Mode m : {Mode{16, layout::Swizzle::b32, 1}, Mode{32, layout::Swizzle::b64, 3}, Mode{64, layout::Swizzle::b128, 7},
                 Mode{64, layout::Swizzle::none, 0}, Mode{16, layout::Swizzle::none, 0}}) {
    DYNAMIC_SECTION(m.cols << " bf16 per row, swizzle " << layout::swizzle_name(m.sw)) {
      const ir::Kernel k = kernels::build_tma_placement_probe(m.cols, m.sw);
      model::GemmBuffers bufs;
      bufs.a.resize(64 * m.cols * 2);
      for (uint32_t i = 0; i < 64 * m.cols; ++i) {
        const uint16_t v = uint16_t(i);
        std::memcpy(bufs.a.data() + 2 * i, &v, 2);
      }
      bufs.c.assign(bufs.a.size(), 0xEE);
      const model::SimResult r = model::simulate(k, bufs);
      REQUIRE(r.completed);
      CHECK(r.hazards.empty());
      uint32_t mismatches = 0;
      for (uint32_t row = 0; row < 64; ++row)
        for (uint32_t col = 0; col < m.cols; ++col) {
          const uint32_t logical = (row * m.cols + col) * 2;
          const uint32_t physical = logical ^ (((logical >> 7) & m.mask) << 4);  // tile is 1024-aligned
          uint16_t got;
          std::memcpy(&got, bufs.c.data() + physical, 2);
          mismatches += got != uint16_t(row * m.cols + col);
        }
      CHECK(mismatches == 0);
      CHECK(r.stats.tma_transfers == 1);
      CHECK(r.stats.tma_bytes == 64 * m.cols * 2);
    }
  }
}

TEST_CASE("model facts: mbarrier parity on a fresh and a completed phase (facts §6)", "[model][mbarrier]") {
  const ir::Kernel k = kernels::build_mbarrier_parity_probe();
  model::GemmBuffers bufs;
  bufs.c.assign(16, 0xEE);
  const model::SimResult r = model::simulate(k, bufs);
  REQUIRE(r.completed);
  uint32_t got[4];
  std::memcpy(got, bufs.c.data(), 16);
  CHECK(got[0] == 0);  // fresh barrier: parity 0 waits
  CHECK(got[1] == 1);  // fresh barrier: parity 1 passes (the "preceding" phase)
  CHECK(got[2] == 1);  // after one arrival (count 1) phase 0 completed
  CHECK(got[3] == 0);  // phase 1 in progress
}

TEST_CASE("model facts: the wgmma accumulator map (facts §1.5)", "[model][wgmma]") {
  for (uint32_t n : {8u, 16u, 64u, 256u}) {
    DYNAMIC_SECTION("m64n" << n << "k16") {
      const ir::Kernel k = kernels::build_wgmma_layout_probe(n);
      model::GemmBuffers bufs;
      auto bf16 = [](float f) {
        uint32_t u;
        std::memcpy(&u, &f, 4);
        return uint16_t(u >> 16);  // exact for these small integers
      };
      bufs.a.assign(64 * 16 * 2, 0);
      bufs.b.assign(size_t(n) * 16 * 2, 0);
      for (uint32_t r = 0; r < 64; ++r) {
        const uint16_t a0 = bf16(float(r)), a1 = bf16(1.0f);
        std::memcpy(bufs.a.data() + (r * 16 + 0) * 2, &a0, 2);
        std::memcpy(bufs.a.data() + (r * 16 + 1) * 2, &a1, 2);
      }
      for (uint32_t c = 0; c < n; ++c) {
        const uint16_t b0 = bf16(256.0f), b1 = bf16(float(c));
        std::memcpy(bufs.b.data() + (c * 16 + 0) * 2, &b0, 2);
        std::memcpy(bufs.b.data() + (c * 16 + 1) * 2, &b1, 2);
      }
      bufs.c.assign(size_t(128) * n / 2 * 4, 0xFF);
      const model::SimResult r = model::simulate(k, bufs);
      REQUIRE(r.completed);
      CHECK(r.hazards.empty());
      uint32_t wrong = 0;
      for (uint32_t t = 0; t < 128; ++t)
        for (uint32_t v = 0; v < n / 2; ++v) {
          const uint32_t w = t / 32, l = t % 32;
          const uint32_t row = 16 * w + l / 4 + 8 * ((v >> 1) & 1);
          const uint32_t col = 8 * (v >> 2) + 2 * (l % 4) + (v & 1);
          float got;
          std::memcpy(&got, bufs.c.data() + (size_t(t) * n / 2 + v) * 4, 4);
          wrong += got != float(256 * row + col);
        }
      CHECK(wrong == 0);
    }
  }
}

namespace {
// One warp reads 16 bytes per lane from a 4 KiB tile at addresses the caller computes.
uint64_t wavefronts_of(const std::function<Reg(Builder&, const Reg& lane, const Reg& base)>& address) {
  Builder b("bank_probe", ir::Arch::sm_90);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  auto tile = b.shared("tile", 4096, 1024, ir::SmemUse::tile);
  Reg lane = b.special(ir::Special::tid_x, "lane");
  Reg base = b.smem_address(tile, 0, "base");
  b.st_shared(Type::u32, Addr::at(base + (lane << 2)), {lane});  // something written
  b.bar_sync(0);
  b.ld_vec(ir::Op::ld_shared, Type::b32, 4, Addr::at(address(b, lane, base)), "v");
  b.ret();
  const ir::Kernel k = b.finish();
  model::GemmBuffers bufs;
  const model::SimResult r = model::simulate(k, bufs);
  // The st.shared of 4-byte words by 32 lanes is one conflict-free wavefront.
  return r.stats.smem_wavefronts - 1;
}
Reg swizzle128(const Reg& logical) {  // physical = logical ^ (((logical >> 7) & 7) << 4)
  return logical ^ (((logical >> 7) & 7) << 4);
}
}  // namespace

TEST_CASE("model facts: bank conflicts of 16-byte accesses (facts §8)", "[model][banks]") {
  // A column of an unswizzled tile of 128-byte rows: 8 lanes of a phase hit one bank group.
  CHECK(wavefronts_of([](Builder&, const Reg& lane, const Reg& base) { return base + (lane << 7); }) == 32);
  // A row: each phase covers 128 contiguous bytes, conflict-free: 4 wavefronts.
  CHECK(wavefronts_of([](Builder&, const Reg& lane, const Reg& base) { return base + (lane << 4); }) == 4);
  // Both conflict-free under the 128B swizzle.
  CHECK(wavefronts_of([](Builder&, const Reg& lane, const Reg& base) { return base + swizzle128(lane << 7); }) == 4);
  CHECK(wavefronts_of([](Builder&, const Reg& lane, const Reg& base) { return base + swizzle128(lane << 4); }) == 4);
}
