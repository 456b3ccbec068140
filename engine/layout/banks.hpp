// The shared-memory bank model (facts sheet §8), used by the model's trace and the GUI.
//
// 32 banks of 4 bytes: bank = (byte_addr / 4) % 32; one 128-byte line covers each bank once.
// A warp's request is split into phases by access width, and each phase takes as many
// wavefronts as the largest number of DISTINCT 4-byte words any one bank must supply
// (lanes asking for the same word share it by broadcast):
//
//     access bytes   phases           lanes per phase   source (facts §8)
//     1, 2, 4        1                32                CUDA Programming Guide
//     8              2 (half-warps)   16                CUTLASS maintainer, cutlass#328
//     16             4 (quarter)      8                 GTC s9593, cutlass#328
//
// The 8/16-byte phasing is an empirical model, PARTIALLY UNCONFIRMED for Hopper (facts §8).
// ldmatrix/stmatrix follow the 16-byte model with one phase per 8x8 matrix: pass the 8 row
// addresses of each matrix as the lanes of one quarter-warp.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace gs::layout {

constexpr uint32_t kSmemBanks = 32;
constexpr uint32_t kSmemBankBytes = 4;

// (byte_addr / 4) % 32 (facts §8).
uint32_t smem_bank_of(uint32_t byte_addr);

struct LaneAccess {
    uint32_t lane;
    uint32_t addr;
};

// The outcome of one warp-wide shared-memory instruction.
struct BankReport {
    uint32_t wavefronts = 0;        // sum over phases with an active lane
    uint32_t ideal_wavefronts = 0;  // phases with an active lane (what a conflict-free access costs)
    uint32_t conflict_degree = 0;   // max over phases of that phase's wavefronts (1 = none)
    // Which wavefront (0-based, counted across the whole instruction) serves each lane; 255
    // for inactive lanes. Inside a phase, a bank serves its distinct words in order of the
    // first lane that asks for each, and a lane is served when its last word is (a display
    // model: the hardware's order inside a phase is not documented).
    std::array<uint8_t, 32> lane_wavefront{};
    std::array<uint8_t, 32> lane_bank{};  // bank of the lane's first byte; 255 if inactive
    uint32_t active_mask = 0;
    bool broadcast_used = false;  // some word was asked for by more than one lane of a phase
};

constexpr uint8_t kInactiveLane = 255;

// How a 16-byte access is grouped into phases.
//   by_width       the table above: quarter-warps, each phase ideally one wavefront. What
//                  ldmatrix/stmatrix and the tensor cores' reads are modelled with.
//   lsu_half_warp  ld/st.shared.v4 (LDS.128/STS.128) as the H100's counters show them
//                  (docs/results/2026-11-24-h100-simt): half-warps of 16 lanes, each phase
//                  ideally one wavefront per 128 bytes of distinct words it moves. A warp
//                  whose lanes all read one 16-byte vector takes 2 wavefronts, not 4; a
//                  contiguous 512-byte access still takes 4. Other widths are as by_width.
enum class Phasing { by_width, lsu_half_warp };

// Analyses one warp access. lane_addr[l] is lane l's shared byte address (ignored for lanes
// not in active_mask). access_bytes is 1, 2, 4, 8 or 16; each lane touches the
// max(1, access_bytes/4) consecutive words starting at its address. Throws
// std::invalid_argument for another width or an address not aligned to the width (a
// misaligned shared access faults on the GPU).
BankReport analyze_shared_access(std::span<const uint32_t, 32> lane_addr, uint32_t active_mask,
                                 uint32_t access_bytes, Phasing phasing = Phasing::by_width);

// Only the totals of analyze_shared_access (wavefronts and ideal_wavefronts, the same values
// for the same access, and the same exceptions), at a fraction of its cost: what the model
// needs for an access it does not record. Within a phase, each lane's access is one unit of
// max(4, access_bytes) bytes that covers access_bytes/4 neighbouring banks once; the banks of
// one unit are asked for the same distinct units, so a phase's wavefronts are the most
// distinct units any unit-slot of the 128-byte line must supply.
struct BankCount {
    uint32_t wavefronts = 0;
    uint32_t ideal_wavefronts = 0;
};
BankCount count_shared_wavefronts(std::span<const uint32_t, 32> lane_addr, uint32_t active_mask,
                                  uint32_t access_bytes, Phasing phasing = Phasing::by_width);

// The same for a sparse list of (lane, address) pairs, as the model's trace records them:
// the listed lanes are the active ones. Throws for a lane >= 32 or listed twice.
BankReport analyze_shared_access(std::span<const LaneAccess> accesses, uint32_t access_bytes,
                                 Phasing phasing = Phasing::by_width);

}  // namespace gs::layout
