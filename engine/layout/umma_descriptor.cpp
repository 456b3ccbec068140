// tcgen05.mma descriptors for sm_100a (facts sheet §9.2). See umma_descriptor.hpp.
#include "engine/layout/umma_descriptor.hpp"

#include <stdexcept>

#include "engine/layout/format_detail.hpp"
#include "engine/layout/wgmma_descriptor.hpp"

namespace gs::layout {

namespace {

using detail::hex;
using detail::str;

// Shared-memory descriptor fields (facts §9.2 table).
constexpr int kStartShift = 0;
constexpr int kLboShift = 16;
constexpr int kSboShift = 32;
constexpr int kVersionShift = 46;
constexpr int kBaseShift = 49;
constexpr int kLboModeShift = 52;
constexpr int kLayoutShift = 61;
constexpr uint64_t kField14 = 0x3FFF;
constexpr uint64_t kField3 = 0x7;
constexpr uint64_t kVersion = 0b001;

// Instruction descriptor fields (facts §9.2 table).
constexpr int kDFormatShift = 4;
constexpr int kAFormatShift = 7;
constexpr int kBFormatShift = 10;
constexpr int kNegateAShift = 13;
constexpr int kNegateBShift = 14;
constexpr int kAMajorShift = 15;
constexpr int kBMajorShift = 16;
constexpr int kNShift = 17;
constexpr int kMShift = 24;
constexpr uint32_t kNField = 0x3F;
constexpr uint32_t kMField = 0x1F;
// Bits we do not model: sparsity 0-1, sparse 2, saturate 3, reserved 6, 23, 29, max shift 30-31.
constexpr uint32_t kUnmodelledInstrBits = 0xF | (1u << 6) | (1u << 23) | (1u << 29) | (3u << 30);

bool is_valid_layout_code(uint32_t code) {
    return code == 0 || code == 1 || code == 2 || code == 4 || code == 6;
}

}  // namespace

std::string_view umma_layout_name(UmmaLayout layout) {
    switch (layout) {
        case UmmaLayout::none: return "none";
        case UmmaLayout::b128_base32b: return "128B_base32B";
        case UmmaLayout::b128: return "128B";
        case UmmaLayout::b64: return "64B";
        case UmmaLayout::b32: return "32B";
    }
    return "invalid";
}

UmmaLayout umma_layout_of(Swizzle sw) {
    switch (sw) {
        case Swizzle::none: return UmmaLayout::none;
        case Swizzle::b32: return UmmaLayout::b32;
        case Swizzle::b64: return UmmaLayout::b64;
        case Swizzle::b128: return UmmaLayout::b128;
    }
    throw std::invalid_argument("swizzle value " + str(static_cast<uint32_t>(sw)) +
                                " is not a Swizzle mode (valid: none, 32B, 64B, 128B)");
}

uint64_t encode_umma_smem_descriptor(const UmmaSmemDescriptor& desc) {
    if (!is_valid_layout_code(static_cast<uint32_t>(desc.layout))) {
        throw std::invalid_argument("UMMA layout code " +
                                    str(static_cast<uint32_t>(desc.layout)) +
                                    " is invalid: use 0, 1, 2, 4 or 6");
    }
    // The address-like fields and base offset sit where sm_90 puts them, with the same rules.
    uint64_t bits = detail::encode_descriptor_common("UMMA smem descriptor", desc.start_address,
                                                     desc.leading_byte_offset,
                                                     desc.stride_byte_offset, desc.base_offset);
    bits |= kVersion << kVersionShift;
    bits |= uint64_t{desc.lbo_absolute} << kLboModeShift;
    bits |= uint64_t{static_cast<uint32_t>(desc.layout)} << kLayoutShift;
    return bits;
}

UmmaSmemDescriptor decode_umma_smem_descriptor(uint64_t bits) {
    const uint64_t version = (bits >> kVersionShift) & kField3;
    if (version != kVersion) {
        throw std::invalid_argument("UMMA smem descriptor " + hex(bits, 16) + " has bits 46-48 = " +
                                    str(version) + ", must be 0b001 (sm_100 descriptor version)");
    }
    const auto code = static_cast<uint32_t>(bits >> kLayoutShift);
    if (!is_valid_layout_code(code)) {
        throw std::invalid_argument("UMMA smem descriptor " + hex(bits, 16) + " has layout code " +
                                    str(code) + ": valid codes are 0, 1, 2, 4, 6");
    }
    UmmaSmemDescriptor d;
    d.start_address = static_cast<uint32_t>(((bits >> kStartShift) & kField14) << 4);
    d.leading_byte_offset = static_cast<uint32_t>(((bits >> kLboShift) & kField14) << 4);
    d.stride_byte_offset = static_cast<uint32_t>(((bits >> kSboShift) & kField14) << 4);
    d.base_offset = static_cast<uint32_t>((bits >> kBaseShift) & kField3);
    d.lbo_absolute = ((bits >> kLboModeShift) & 1) != 0;
    d.layout = static_cast<UmmaLayout>(code);
    return d;
}

std::string describe_umma_smem_descriptor(uint64_t bits) {
    const UmmaSmemDescriptor d = decode_umma_smem_descriptor(bits);
    std::string line = "start=" + hex(d.start_address, 4) +
                       " LBO=" + str(d.leading_byte_offset) +
                       " SBO=" + str(d.stride_byte_offset) + " base=" + str(d.base_offset) +
                       " layout=" + std::string(umma_layout_name(d.layout));
    if (d.lbo_absolute) line += " lbo=absolute";
    return line;
}

UmmaSmemDescriptor umma_descriptor_from(const WgmmaDescriptor& desc) {
    UmmaSmemDescriptor d;
    d.start_address = desc.start_address;
    d.leading_byte_offset = desc.leading_byte_offset;
    d.stride_byte_offset = desc.stride_byte_offset;
    d.base_offset = desc.base_offset;
    d.layout = umma_layout_of(desc.swizzle);
    return d;
}

uint32_t encode_umma_instr_desc(const UmmaInstrDesc& desc) {
    if (desc.m != 64 && desc.m != 128 && desc.m != 256) {
        throw std::invalid_argument("UMMA M=" + str(desc.m) + " is invalid: use 64, 128 or 256");
    }
    if (desc.n < 8 || desc.n > 256 || desc.n % 8 != 0) {
        throw std::invalid_argument("UMMA N=" + str(desc.n) +
                                    " is not a multiple of 8 in 8..256");
    }
    if (static_cast<uint32_t>(desc.d_format) > 2 || static_cast<uint32_t>(desc.a_format) > 2 ||
        static_cast<uint32_t>(desc.b_format) > 2) {
        throw std::invalid_argument("UMMA format code out of range: D uses 0..2 (f16, f32, s32), "
                                    "A/B use 0..2 (f16, bf16, tf32)");
    }
    uint32_t bits = 0;
    bits |= static_cast<uint32_t>(desc.d_format) << kDFormatShift;
    bits |= static_cast<uint32_t>(desc.a_format) << kAFormatShift;
    bits |= static_cast<uint32_t>(desc.b_format) << kBFormatShift;
    bits |= uint32_t{desc.negate_a} << kNegateAShift;
    bits |= uint32_t{desc.negate_b} << kNegateBShift;
    bits |= static_cast<uint32_t>(desc.a_major) << kAMajorShift;
    bits |= static_cast<uint32_t>(desc.b_major) << kBMajorShift;
    bits |= (desc.n >> 3) << kNShift;
    bits |= (desc.m >> 4) << kMShift;
    return bits;
}

UmmaInstrDesc decode_umma_instr_desc(uint32_t bits) {
    if ((bits & kUnmodelledInstrBits) != 0) {
        throw std::invalid_argument("UMMA instruction descriptor " + hex(bits, 8) +
                                    " sets sparse/saturate/reserved/max-shift bits (" +
                                    hex(bits & kUnmodelledInstrBits, 8) +
                                    "): only dense kind::f16/tf32 is modelled");
    }
    const uint32_t d_format = (bits >> kDFormatShift) & 0x3;
    const uint32_t a_format = (bits >> kAFormatShift) & 0x7;
    const uint32_t b_format = (bits >> kBFormatShift) & 0x7;
    if (d_format > 2 || a_format > 2 || b_format > 2) {
        throw std::invalid_argument("UMMA instruction descriptor " + hex(bits, 8) +
                                    " has D format " + str(d_format) + ", A format " +
                                    str(a_format) + ", B format " + str(b_format) +
                                    ": valid codes are D 0..2, A/B 0..2");
    }
    UmmaInstrDesc d;
    d.d_format = static_cast<UmmaDFormat>(d_format);
    d.a_format = static_cast<UmmaABFormat>(a_format);
    d.b_format = static_cast<UmmaABFormat>(b_format);
    d.negate_a = ((bits >> kNegateAShift) & 1) != 0;
    d.negate_b = ((bits >> kNegateBShift) & 1) != 0;
    d.a_major = static_cast<UmmaMajor>((bits >> kAMajorShift) & 1);
    d.b_major = static_cast<UmmaMajor>((bits >> kBMajorShift) & 1);
    d.n = ((bits >> kNShift) & kNField) << 3;
    d.m = ((bits >> kMShift) & kMField) << 4;
    return d;
}

namespace {
std::string_view format_name(UmmaABFormat f) {
    switch (f) {
        case UmmaABFormat::f16: return "f16";
        case UmmaABFormat::bf16: return "bf16";
        case UmmaABFormat::tf32: return "tf32";
    }
    return "?";
}
std::string_view format_name(UmmaDFormat f) {
    switch (f) {
        case UmmaDFormat::f16: return "f16";
        case UmmaDFormat::f32: return "f32";
        case UmmaDFormat::s32: return "s32";
    }
    return "?";
}
std::string_view major_name(UmmaMajor m) { return m == UmmaMajor::k ? "K-major" : "MN-major"; }
}  // namespace

std::string describe_umma_instr_desc(uint32_t bits) {
    const UmmaInstrDesc d = decode_umma_instr_desc(bits);
    std::string line = hex(bits, 8) + " " + std::string(format_name(d.a_format)) + (d.negate_a ? "(neg)" : "") +
                       " x " + std::string(format_name(d.b_format)) + (d.negate_b ? "(neg)" : "") + " -> " +
                       std::string(format_name(d.d_format)) + ", M=" + str(d.m) + " N=" + str(d.n) + ", A " +
                       std::string(major_name(d.a_major)) + ", B " + std::string(major_name(d.b_major));
    return line;
}

void validate_umma_f16_shape(uint32_t cta_group, uint32_t m, uint32_t n) {
    if (cta_group == 1) {
        if (m != 64 && m != 128) {
            throw std::invalid_argument("tcgen05.mma cta_group::1 M=" + str(m) +
                                        " is invalid: use 64 or 128");
        }
        if (n < 8 || n > 256 || n % 8 != 0) {
            throw std::invalid_argument("tcgen05.mma cta_group::1 N=" + str(n) +
                                        " is not a multiple of 8 in 8..256");
        }
    } else if (cta_group == 2) {
        if (m != 128 && m != 256) {
            throw std::invalid_argument("tcgen05.mma cta_group::2 M=" + str(m) +
                                        " is invalid: use 128 or 256");
        }
        if (n < 16 || n > 256 || n % 16 != 0) {
            throw std::invalid_argument("tcgen05.mma cta_group::2 N=" + str(n) +
                                        " is not a multiple of 16 in 16..256");
        }
    } else {
        throw std::invalid_argument("tcgen05.mma cta_group::" + str(cta_group) +
                                    " is invalid: use 1 or 2");
    }
}

}  // namespace gs::layout
