// The two descriptors of tcgen05.mma (sm_100a): the shared-memory matrix descriptor and the
// 32-bit instruction descriptor of kind::f16 / kind::tf32 (facts sheet §9.2, read from
// [CUTLASS UMMA::SmemDescriptor, UMMA::InstrDescriptor]; not run on hardware: no Blackwell
// GPU was available). Included by wgmma_descriptor.hpp.
//
// Shared-memory descriptor, 64 bits:
//
//     bits  0-13  start address >> 4        bits 46-48  fixed 0b001 ("version")
//     bits 16-29  LBO >> 4                  bits 49-51  base offset
//     bits 32-45  SBO >> 4                  bit  52     LBO mode (1 = absolute)
//     bits 61-63  layout: 0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B (3, 5, 7 invalid)
//
// Note the swizzle encoding differs from sm_90's (there 1 = 128B, 2 = 64B, 3 = 32B at bits
// 62-63). LBO/SBO mean what they mean on sm_90 (facts §1.4).
//
// Instruction descriptor, 32 bits (kind::f16 / tf32):
//
//     bits 0-1 sparsity selector, 2 sparse, 3 saturate   (0: dense, not modelled)
//     bits 4-5 D format (0 f16, 1 f32, 2 s32)            bits 7-9 / 10-12 A / B format
//     bit 13 / 14 negate A / B                           bit 15 / 16 A / B major (1 = MN)
//     bits 17-22 N >> 3    bits 24-28 M >> 4              bits 30-31 max shift (.ws only)
//
// Example: bf16 x bf16 -> f32, M=128, N=256, both K-major = 0x08400490 (facts §9.2). The M
// field's position is from CUTLASS and UNCONFIRMED on hardware.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/layout/swizzle.hpp"

namespace gs::layout {

struct WgmmaDescriptor;

// The sm_100 layout-type codes (bits 61-63). 128B_base32B has no TMA Swizzle counterpart here.
enum class UmmaLayout : uint8_t { none = 0, b128_base32b = 1, b128 = 2, b64 = 4, b32 = 6 };

std::string_view umma_layout_name(UmmaLayout layout);  // "none", "128B_base32B", "128B", ...
UmmaLayout umma_layout_of(Swizzle sw);                  // none/32B/64B/128B -> 0/6/4/2

struct UmmaSmemDescriptor {
    uint32_t start_address = 0;        // bytes
    uint32_t leading_byte_offset = 0;  // bytes
    uint32_t stride_byte_offset = 0;   // bytes
    uint32_t base_offset = 0;          // raw 3-bit field
    bool lbo_absolute = false;         // bit 52; 1 only for 48B-K tiles (facts §9.2)
    UmmaLayout layout = UmmaLayout::none;

    auto operator<=>(const UmmaSmemDescriptor&) const = default;
};

// Same range checks as encode_wgmma_descriptor (multiples of 16 below 2^18, base <= 7).
uint64_t encode_umma_smem_descriptor(const UmmaSmemDescriptor& desc);

// Throws std::invalid_argument if bits 46-48 are not 0b001 or the layout code is 3, 5 or 7:
// such a word is not an sm_100 descriptor, and a learner should hear so.
UmmaSmemDescriptor decode_umma_smem_descriptor(uint64_t bits);

// "start=0x0400 LBO=16 SBO=1024 base=0 layout=128B" (+ " lbo=absolute" when bit 52 is set).
std::string describe_umma_smem_descriptor(uint64_t bits);

// The sm_100 form of an sm_90 descriptor: same addresses and offsets, re-encoded layout.
// K-major SW128 tile at 0x400 -> 0x4000404000010040 (facts §9.2 example).
UmmaSmemDescriptor umma_descriptor_from(const WgmmaDescriptor& desc);

enum class UmmaDFormat : uint8_t { f16 = 0, f32 = 1, s32 = 2 };
enum class UmmaABFormat : uint8_t { f16 = 0, bf16 = 1, tf32 = 2 };
enum class UmmaMajor : uint8_t { k = 0, mn = 1 };

// The dense kind::f16 / kind::tf32 instruction descriptor as fields.
struct UmmaInstrDesc {
    UmmaDFormat d_format = UmmaDFormat::f32;
    UmmaABFormat a_format = UmmaABFormat::bf16;
    UmmaABFormat b_format = UmmaABFormat::bf16;
    bool negate_a = false;
    bool negate_b = false;
    UmmaMajor a_major = UmmaMajor::k;
    UmmaMajor b_major = UmmaMajor::k;
    uint32_t m = 128;
    uint32_t n = 256;

    auto operator<=>(const UmmaInstrDesc&) const = default;
};

// Throws unless M is 64, 128 or 256 and N is a multiple of 8 in 8..256 (what the fields
// can hold for kind::f16). Which M/N a cta_group accepts is validate_umma_f16_shape's job.
uint32_t encode_umma_instr_desc(const UmmaInstrDesc& desc);

// Throws for set sparse/saturate/reserved/max-shift bits (not modelled) and format codes
// outside the tables above.
UmmaInstrDesc decode_umma_instr_desc(uint32_t bits);

// "0x08400490 bf16 x bf16 -> f32, M=128 N=256, A K-major, B K-major" (throws as decode does).
std::string describe_umma_instr_desc(uint32_t bits);

// Shapes of kind::f16 (facts §9.2 [CUTLASS static asserts]): cta_group::1 takes M 64 or 128
// and N a multiple of 8 in 8..256; cta_group::2 takes M 128 or 256 and N a multiple of 16 in
// 16..256. Throws std::invalid_argument naming the value otherwise.
void validate_umma_f16_shape(uint32_t cta_group, uint32_t m, uint32_t n);

}  // namespace gs::layout
