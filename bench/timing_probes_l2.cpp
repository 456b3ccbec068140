// The timing probes of a GEMM wave's copies through L2 (kernels/timing_probes_l2.cpp): added to
// gemmscope_timing_probes' list by add_l2_gemm_probes.
#include <algorithm>

#include <fmt/format.h>

#include "bench/probe_list.hpp"
#include "kernels/timing_probes.hpp"

namespace gs::probe_list {

void add_l2_gemm_probes(std::vector<Probe>& probes, uint32_t q) {
  // A GEMM's copies in a GEMM's geometry (step 11's 64x64 tiles, eight CTAs an SM by a 26-KiB
  // footprint, 32 K steps): A's row panels shared by a tile row, B's by a tile column, with 0, 1,
  // 2 or 4 rounds of a tile's tensor work (four wgmma m64n64k16) between a CTA's copies; the same
  // with every CTA its own boxes; one wave (32x32 tiles, 1024 CTAs) and four (64x64). Timed as
  // bench times a GEMM (20 launches back to back), bytes over the median launch.
  // `_k64`, `_k128` (2026-12-06): four waves at 64 and 128 K steps, step 11's grid and footprint at
  // 4096^3 (A and B 32 MiB each: more than the L2 keeps) and twice that, where the 32-step rows'
  // 32 MiB fit in it; `tma_gemm128_mma0_k128` is step 11's grid and footprint at 8192^3 (16384
  // CTAs, about 15.5 waves, 256 MiB).
  struct GemmCopyRow {
    uint32_t tiles, mma_reps;
    bool own;
    uint32_t ksteps = 32;
  };
  for (const GemmCopyRow& r : {GemmCopyRow{32, 0, false}, GemmCopyRow{32, 1, false}, GemmCopyRow{32, 2, false},
                               GemmCopyRow{32, 4, false}, GemmCopyRow{32, 0, true}, GemmCopyRow{32, 1, true},
                               GemmCopyRow{64, 0, false}, GemmCopyRow{64, 1, false}, GemmCopyRow{64, 0, false, 64},
                               GemmCopyRow{64, 1, false, 64}, GemmCopyRow{64, 0, false, 128},
                               GemmCopyRow{128, 0, false, 128}}) {
    const uint32_t ksteps = std::max(2u, r.ksteps / q);
    Probe p{fmt::format("tma_gemm{}_mma{}{}{}", r.tiles, r.mma_reps, r.own ? "_own" : "",
                        r.ksteps != 32 ? fmt::format("_k{}", r.ksteps) : std::string()),
            fmt::format("TMA 8-KiB boxes of A and B, {}x{} tiles of 64x64 ({} CTAs, 8 an SM{}), {}, {}{}, {} K steps: "
                        "L2 to the SMs",
                        r.tiles, r.tiles, r.tiles * r.tiles,
                        r.tiles == 32   ? ", one wave"
                        : r.tiles == 64 ? ", four waves"
                                        : ", many waves",
                        r.own ? "every CTA its own boxes" : "panels shared as a GEMM's",
                        r.mma_reps ? fmt::format("{} round(s) of 4 wgmma m64n64k16", r.mma_reps) : "no tensor work",
                        " between copies", ksteps),
            "GB/s", kernels::build_tma_gemm_probe(r.tiles, r.tiles, ksteps, r.mma_reps, r.own, 26 * 1024), {}, nullptr,
            false, 20};
    const size_t operand_bytes = r.own ? size_t(512) * 64 * 64 * 2 : size_t(r.tiles) * 64 * ksteps * 64 * 2;
    p.make_buffers = [operand_bytes](model::GemmBuffers& b) {  // made when it runs (Probe::make_buffers)
      b.a.assign(operand_bytes, 0);
      b.b.assign(operand_bytes, 0);
    };
    p.buffers.c.assign(size_t(r.tiles) * r.tiles * 128 * kernels::kTimingOutBytes, 0);
    const double bytes = double(r.tiles) * r.tiles * ksteps * 16384;
    p.figure = [bytes](const std::vector<uint8_t>&, double ms) { return bytes / (ms * 1e6); };
    probes.push_back(std::move(p));
  }
  // The same copies by cp.async in step 09's geometry (64x64 tiles, 16 K columns a step, a two-stage
  // ring; build_cp_gemm_probe) at its 4096^3 and 8192^3 grids (3.4 and 13.8 waves at nine CTAs an
  // SM), alone and with step 09's 20 fragment loads a thread and step, and at 8192^3 with one,
  // two and four CTAs an SM: how many of a panel's readers over many waves still find it in L2
  // (Nsight Compute's DRAM bytes against predict_gemm's count), and what the copies deliver.
  // The footprints: 24 KiB (nine CTAs of 25 KiB with the SM's 1 KiB each in 228), 56 (four),
  // 100 (two), 200 (one); the count in a row's name is the H100's (timing::ctas_per_sm).
  struct CpGemmRow {
    uint32_t tiles, ksteps, lds, smem_kib;
  };
  for (const CpGemmRow& r : {CpGemmRow{64, 256, 0, 24}, CpGemmRow{64, 256, 20, 24}, CpGemmRow{128, 512, 0, 24},
                             CpGemmRow{128, 512, 20, 24}, CpGemmRow{128, 512, 20, 56}, CpGemmRow{128, 512, 20, 100},
                             CpGemmRow{128, 512, 20, 200}}) {
    const uint32_t ksteps = std::max(2u, r.ksteps / q);
    ir::Kernel kernel = kernels::build_cp_gemm_probe(r.tiles, r.tiles, ksteps, r.lds, r.smem_kib * 1024);
    const model::timing::MachineDesc& h100 = model::timing::kH100Desc;
    const uint32_t per_sm = model::timing::ctas_per_sm(h100, kernel.launch.threads(), kernel.smem_bytes(), 0);
    Probe p{fmt::format("cp_gemm{}_k{}_lds{}_x{}", r.tiles, r.ksteps, r.lds, per_sm),
            fmt::format("cp.async 16-byte copies of A and B a thread, {}x{} tiles of 64x64 ({} CTAs, {} an SM, {} "
                        "waves), panels shared as a GEMM's, {} ld.shared a thread between copies, {} K steps of 16: "
                        "L2 to the SMs",
                        r.tiles, r.tiles, r.tiles * r.tiles, per_sm,
                        fmt::format("{:.1f}", double(r.tiles) * r.tiles / (h100.sms.value * per_sm)), r.lds, ksteps),
            "GB/s", std::move(kernel), {}, nullptr, false, 20};
    const size_t operand_bytes = size_t(r.tiles) * 64 * ksteps * 16 * 2;
    p.make_buffers = [operand_bytes](model::GemmBuffers& b) {
      b.a.assign(operand_bytes, 0);
      b.b.assign(operand_bytes, 0);
    };
    p.c_bytes = size_t(r.tiles) * r.tiles * 128 * kernels::kTimingOutBytes;
    const double bytes = double(r.tiles) * r.tiles * ksteps * 4096;
    p.figure = [bytes](const std::vector<uint8_t>&, double ms) { return bytes / (ms * 1e6); };
    probes.push_back(std::move(p));
  }
}

}  // namespace gs::probe_list
