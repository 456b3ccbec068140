// Probe kernels: tiny kernels that expose one hardware fact as data, run on the GPU
// (`gemmscope probe`) and on the model, so the model's tables are checked against silicon.
// They are not part of the ladder.
#pragma once

#include <string>
#include <vector>

#include "engine/ir/kernel.hpp"
#include "engine/layout/swizzle.hpp"
#include "engine/layout/wgmma_descriptor.hpp"

namespace gs::kernels {

// TMA placement: one thread loads a box of box_cols bf16 × 64 rows of A (a row-major
// 64 × box_cols table) with the given swizzle into a 1024-aligned tile; then all 128 threads
// copy the tile's raw bytes to C (as u32 words). C[i] = shared word i of the tile.
ir::Kernel build_tma_placement_probe(uint32_t box_cols, layout::Swizzle swizzle);

// mbarrier parity (facts §6): one thread initialises a barrier with count 1, records
// test_wait.parity 0 and 1, arrives once, records them again; C[0..3] = the four results.
ir::Kernel build_mbarrier_parity_probe();

// wgmma accumulator map: with A[r][0] = r, A[r][1] = 1 and B[c][0] = 256, B[c][1] = c (other
// k zero), D[r][c] = 256·r + c. Each thread writes its N/2 raw accumulators to
// C[tid·N/2 + v], so C names the (row, col) every (thread, register) holds. A is 64×16,
// B is N×16 (K-major), both bf16, loaded by TMA with 32B swizzle (16 bf16 = 32 B rows).
ir::Kernel build_wgmma_layout_probe(uint32_t n);

// wgmma descriptor placement (facts §1.4): which shared byte the tensor core reads for every
// element of one operand under one descriptor. All 128 threads copy A (the region: every bf16
// of it names its own position, see run/probe_run.hpp) into a 1024-aligned shared region of
// kWgmmaDescRegionBytes, and B (an identity operand, 128B-swizzled K-major, the layout checked
// [DEV]) into a second tile; fence.proxy.async, bar.sync; then one wgmma with the descriptor
// under test for one operand and the identity for the other:
//   operand A (m64 x k16, N = 16): B[n][k] = (n == k), so D[m][n] = A[m][k = n];
//   operand B (N x k16):           A[m][k] = (m == k) for m < 16, so D[m][n] = B[n][k = m].
// Each thread writes its N/2 raw accumulators to C[tid·N/2 + v], as the wgmma map probe does.
struct WgmmaDescProbe {
  std::string name;                  // "128B K-major", ...: named in `gemmscope probe wgmma-desc`
  char operand = 'A';                // the operand read through the descriptor under test
  uint32_t n = 16;                   // wgmma N (16 when A is under test)
  bool k_major = true;               // imm-trans-a/b = 0; false: MN-major (imm-trans = 1)
  uint32_t start_offset = 0;         // the descriptor's start = region base + this (16-aligned)
  layout::WgmmaDescriptor fields;    // LBO, SBO, base offset, swizzle (start_address unused)
  uint64_t reserved_bits = 0;        // OR-ed into the descriptor: one the model cannot place
};
inline constexpr uint32_t kWgmmaDescRegionBytes = 16384;
// Bytes of the identity operand: 16 rows (B of an A probe) or 64 rows (A of a B probe) of 128 B.
uint32_t wgmma_desc_identity_bytes(const WgmmaDescProbe& probe);
// Throws std::invalid_argument for an operand other than 'A'/'B', an N the operand cannot have
// (A: 16; B: 16..256 in steps of 8) or a start offset that is not a multiple of 16 inside the
// region.
ir::Kernel build_wgmma_descriptor_probe(const WgmmaDescProbe& probe);

// mma.sync m16n8k16 fragments (facts §2): one warp. Lane l loads its A fragment (4 b32 words at
// A[4l..]), its B fragment (2 words at B[2l..]) and its C fragment (4 f32 at C[4l..]) as the
// host packed them by the facts' maps, runs one mma.sync, and stores D to C[128 + 4l..]. If
// any of the A, B, C/D maps were wrong, D would not equal A·B + C at the D map's positions.
ir::Kernel build_mma_sync_probe();

// Clusters of 2 CTAs (grid 4x1x1, 64 threads): CTA c TMA-multicasts row c of A (64 bf16,
// 128 bytes) into half (c % 2) of a 256-byte tile of both CTAs of its pair; each thread reads
// its peer's shared word through mapa + ld.shared::cluster, stores into the peer's inbox with
// st.shared::cluster, arrives on the peer's mbarrier remotely and waits on its own. CTA c
// writes to C (u32)
//   C[c*192 + t]       = peer*1000 + t            (what it read from the peer)
//   C[c*192 + 64 + t]  = peer*1000 + t + 500000   (what the peer stored into its inbox)
//   C[c*192 + 128 + t] = word (c/2)*64 + t of A    (the tile both multicasts filled)
// with peer = c ^ 1, t < 64. A holds 4x64 bf16 (512 bytes), C 768 words.
ir::Kernel build_cluster_probe();
inline constexpr uint32_t kClusterProbeWords = 768;
inline constexpr uint32_t kClusterProbeABytes = 512;

// Warp specialisation (facts §7): 384 threads, .maxntid 384 + .minnctapersm 1 (168 registers
// per thread at entry). Warpgroup 0 runs setmaxnreg.dec 24, warpgroups 1 and 2 setmaxnreg.inc
// 240 (the budget of step 14: 24 + 240 + 240 = 3 x 168) and then meet at the named barrier
// bar.sync 1, 256. Every warp runs elect.sync with the full member mask; thread t writes
// C[t] = 1 if it was elected, 2 if not. Completing at all shows the register moves fit; the
// facts say the elected lane is lane 0 of each warp (the lowest, UNCONFIRMED before this probe).
ir::Kernel build_warpgroup_probe();
inline constexpr uint32_t kWarpgroupProbeThreads = 384;
// ldmatrix / stmatrix maps (facts §2), one warp. A tile of 32 rows × 16 bytes; lane l gives
// the address of tile row matrix_probe_slot(l) as row l%8 of matrix l/8, so the rows are
// scattered and each matrix's rows come from different places.
//   ldmatrix: tile row s = bytes 16s.. of A (A holds u16 i at element i); lane l stores its
//             register j to C word l·num + j.
//   stmatrix: the tile is zeroed; register j of lane l holds u16 2v (low) and 2v + 1 (high),
//             v = l·num + j; after stmatrix the whole tile is copied to C (512 bytes).
// Throws std::invalid_argument unless num is 1, 2 or 4. stmatrix needs sm_90.
inline constexpr uint32_t kMatrixProbeBytes = 512;
uint32_t matrix_probe_slot(uint32_t row);  // (5·row + 3) % 32
ir::Kernel build_matrix_probe(uint32_t num, bool trans, bool store);

// The mma.sync throughput microbenchmark (not a probe: it has no facts to check): `ctas`
// CTAs of kMmaPeakThreads threads; each warp runs `iters` rounds of kMmaPeakChains
// independent mma.sync.m16n8k16 (so the tensor pipes, not the latency of one chain, limit
// it), then each thread stores the sum of its accumulators to C[global thread id] so nothing
// is dead code. FLOPs = ctas · warps · iters · chains · 2·16·8·16.
inline constexpr uint32_t kMmaPeakThreads = 256, kMmaPeakChains = 8;
ir::Kernel build_mma_peak_kernel(uint32_t ctas, uint32_t iters);

}  // namespace gs::kernels
