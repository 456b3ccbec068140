// The power probe of an Ampere main loop's parts (timing_probes.hpp, build_fragment_power_probe):
// ldmatrix fragments, mma.sync on them, and cp.async streaming from L2, each alone or together,
// on every SM, so that the clock each holds at the power limit says what it draws.
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "kernels/timing_probe_parts.hpp"
#include "kernels/timing_probes.hpp"

namespace gs::kernels {

using builder::Addr;
using builder::Builder;
using builder::Reg;
using ir::Type;
using probe_parts::end_with_float_sum;
using probe_parts::end_with_sums;
using probe_parts::fill_tiles;

ir::Kernel build_fragment_power_probe(uint32_t ctas, uint32_t warps, uint32_t reps, const FragmentLoad& load) {
  if (ctas == 0 || warps == 0 || warps > 16 || reps == 0 || (load.mma && !load.ldmatrix) ||
      (!load.ldmatrix && load.copy_footprint == 0) ||
      (load.copy_footprint != 0 && (load.copy_footprint & (load.copy_footprint - 1)) != 0) ||
      (load.copy_footprint != 0 && load.copy_footprint < 4096) ||
      (load.copy_row_bytes != 0 && load.copy_row_bytes != 32 && load.copy_row_bytes != 64) ||
      (load.copy_row_bytes != 0 && load.copy_footprint == 0))
    throw std::invalid_argument(fmt::format(
        "a fragment power probe needs at least one CTA and repetition, 1..16 warps, ldmatrix under its mma.sync, "
        "something to do, a copy footprint of 0 or a power of two of at least 4096 bytes, and copies of rows of 0 "
        "(contiguous), 32 or 64 bytes (got {} CTAs, {} warps, {} reps, ldmatrix {}, mma {}, footprint {}, rows {})",
        ctas, warps, reps, load.ldmatrix, load.mma, load.copy_footprint, load.copy_row_bytes));
  const uint32_t threads = 32 * warps;
  Builder b(fmt::format("timing_power{}{}{}{}{}_{}w", load.ldmatrix ? "_ldmatrix" : "", load.mma ? "_mma" : "",
                        load.copy_footprint ? "_cp_async" : "",
                        load.copy_row_bytes ? fmt::format("_rows{}", load.copy_row_bytes) : "", load.sync ? "_sync" : "",
                        warps),
            ir::Arch::sm_80);
  b.set_launch({.grid = {ctas, 1, 1}, .block = {threads, 1, 1}});
  b.use_dynamic_smem();
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  // A 32-KiB tile of random bf16 the fragments come from; each warp its own 4-KiB ring of two
  // 2-KiB halves the copies land in (nothing reads them: the copies are the load).
  constexpr uint32_t kTileBytes = 32 * 1024, kCopyBytes = 512, kCopies = 4, kRoundBytes = kCopies * kCopyBytes;
  auto tile = b.shared("tile", kTileBytes, 128, ir::SmemUse::other);
  auto ring = b.shared("ring", warps * 2 * kRoundBytes, 128, ir::SmemUse::other);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg gid = (b.special(ir::Special::ctaid_x, "cta") * threads + tid).named("gid");
  Reg lane = (tid & 31u).named("lane");
  Reg warp = (tid >> 5u).named("warp");
  Reg base = b.smem_address(tile, 0, "tile_addr");
  fill_tiles(b, base, tid, kTileBytes / 16, threads, true);
  b.bar_sync(0);
  // ldmatrix.x4: lane l names a 16-byte row; the warp's 32 rows are 512 contiguous bytes, each
  // 8 lanes' 128 bytes all 32 banks (one wavefront a matrix, as step 10's swizzle makes them).
  // The warp's eight in a round are eight such chunks of a 4-KiB quarter of one half of the tile,
  // the halves taken in turn (an address that changes each round: no load is loop-invariant).
  Reg rows = (base + ((warp & 3u) << 12u) + (lane << 4u)).named("rows");
  // The copies: a warp's round is 4 x 512 bytes of A (16 bytes a lane each), the rounds of all
  // the launch's warps one after another through the footprint (a power of two: it wraps with an
  // and), into the half of its ring this round's parity names. With rows, a copy's 512 bytes are
  // spread over 512 / rows lines (its source span 512 / rows x 128 bytes).
  Reg A = b.global_ptr(pa, "A_ptr");
  Reg gwarp = (b.special(ir::Special::ctaid_x, "cta") * warps + warp).named("gwarp");
  Reg dst0 = (b.smem_address(ring, 0, "ring_addr") + warp * (2 * kRoundBytes) + (lane << 4u)).named("dst0");
  std::vector<std::vector<Reg>> acc;  // 4 x 8 m16n8 tiles of 4 f32 (step 10's 64 x 64 warp tile)
  std::vector<Reg> sum;
  if (load.mma)
    for (uint32_t t = 0; t < 32; ++t) {
      acc.emplace_back();
      for (uint32_t v = 0; v < 4; ++v) acc.back().push_back(b.mov(Type::f32, 0.0, "acc"));
    }
  for (uint32_t j = 0; j < 4; ++j) sum.push_back(b.mov(Type::b32, 0u, "sum"));
  Reg t0 = b.special(ir::Special::clock64, "t0");
  b.loop("rep", reps, [&](const Reg& i) {
    if (load.copy_footprint) {
      const uint32_t src_copy = probe_parts::copy_source_span(load.copy_row_bytes);
      Reg lane_off = probe_parts::copy_lane_offset(b, lane, load.copy_row_bytes);
      Reg off = (((i * (ctas * warps) + gwarp) * (kCopies * src_copy) + lane_off) & (load.copy_footprint - 1))
                    .named("src_off");
      Reg src = (A + b.cvt(Type::u64, off, ir::Rounding::none, "src_off64")).named("src");
      Reg dst = (dst0 + ((i & 1u) * kRoundBytes)).named("dst");
      for (uint32_t u = 0; u < kCopies; ++u)
        b.cp_async_cg(Addr::at(dst, int64_t(u * kCopyBytes)), Addr::at(src, int64_t(u * src_copy)));
      b.cp_async_commit_group();
    }
    if (load.ldmatrix) {
      // Step 10's k16 step of one warp: 4 ldmatrix.x4 of A (a 16 x 16 fragment each), 4 of B (two
      // 8-column fragments each), then 32 mma.sync m16n8k16, each A fragment with each B one.
      std::vector<std::vector<Reg>> frag;
      Reg half = (rows + ((i & 1u) << 14u)).named("half");
      for (uint32_t f = 0; f < 8; ++f) frag.push_back(b.ldmatrix(4, false, Addr::at(half, int64_t(f) * 512), "f"));
      if (load.mma) {
        for (uint32_t m = 0; m < 4; ++m)
          for (uint32_t n = 0; n < 8; ++n) {
            const std::vector<Reg>& bf = frag[4 + n / 2];
            b.mma_sync(acc[m * 8 + n], frag[m], {bf[2 * (n % 2)], bf[2 * (n % 2) + 1]}, acc[m * 8 + n]);
          }
      } else {
        for (uint32_t f = 0; f < 8; ++f)
          for (uint32_t v = 0; v < 4; ++v) b.alu_into(ir::Op::xor_, sum[v], {sum[v], frag[f][v]});
      }
    }
    if (load.copy_footprint) b.cp_async_wait_group(1);
    if (load.sync) b.bar_sync(0);
  });
  if (load.copy_footprint) b.cp_async_wait_group(0);
  if (load.mma) {
    std::vector<Reg> flat;
    for (const auto& t : acc) flat.insert(flat.end(), t.begin(), t.end());
    end_with_float_sum(b, pc, gid, t0, flat);
  } else {
    end_with_sums(b, pc, gid, t0, sum);
  }
  return b.finish();
}

}  // namespace gs::kernels
