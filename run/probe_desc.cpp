// The wgmma descriptor probes: inputs, the formula, and the checks (see probe_desc.hpp).
#include "run/probe_desc.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>

#include <fmt/format.h>

namespace gs::run {

namespace {

constexpr uint32_t kThreads = 128;
constexpr uint16_t kBf16One = 0x3F80;

float f32_at(const std::vector<uint8_t>& bytes, size_t offset) {
  float v = std::nanf("");
  if (offset + 4 <= bytes.size()) std::memcpy(&v, bytes.data() + offset, 4);
  return v;
}

// What an accumulator names, for messages: "region byte 0x01A0", or the value when it names none.
std::string read_text(float v) {
  if (const std::optional<uint32_t> off = wgmma_desc_decode(v)) return fmt::format("region byte 0x{:04X}", *off);
  return fmt::format("{} (no byte of the region)", v);
}

// Element (row, k) of the operand under test that D[m][col] holds: A probes put A[m][col] there;
// B probes put B[col][m] in rows m < 16, and zeros below (the identity A has no row 16+).
bool element_of(const kernels::WgmmaDescProbe& p, uint32_t m, uint32_t col, uint32_t& row, uint32_t& k) {
  if (p.operand == 'A') {
    row = m;
    k = col;
    return true;
  }
  row = col;
  k = m;
  return m < 16;
}

// Calls fn(offset of the accumulator in C, row, k, holds_element) for each of the 128·N/2
// accumulators, in thread and register order.
void for_each_accumulator(const ProbeCase& p,
                          const std::function<void(size_t, uint32_t, uint32_t, bool)>& fn) {
  for (uint32_t t = 0; t < kThreads; ++t)
    for (uint32_t v = 0; v < p.n / 2; ++v) {
      uint32_t m = 0, col = 0, row = 0, k = 0;
      wgmma_accumulator_position(t, v, m, col);
      const bool holds = element_of(p.desc, m, col, row, k);
      fn((size_t(t) * p.n / 2 + v) * 4, holds ? row : m, holds ? k : col, holds);
    }
}

void note(ProbeCheck& check, std::string message) {
  if (check.mismatches++ == 0) check.first_mismatch = std::move(message);
}

std::string where(const ProbeCase& p, uint32_t row, uint32_t k, bool holds) {
  if (!holds) return fmt::format("D row {} col {} (the identity A has no row there)", row, k);
  return fmt::format("{} {} {} k {}", p.desc.operand, p.desc.operand == 'A' ? "row" : "col", row, k);
}

}  // namespace

uint32_t wgmma_desc_formula_offset(const kernels::WgmmaDescProbe& p, uint32_t row, uint32_t k) {
  // PTX ISA "Shared Memory Matrix Layout" (Table 38): the operand is cut into 16-byte cells of
  // 8 bf16; a swizzle atom is 8 rows of w cells (w = 2, 4, 8 for 32B, 64B, 128B) and a
  // no-swizzle core matrix is 8 rows of one cell. K-major rows are M/N, MN-major rows are K.
  const layout::WgmmaDescriptor& f = p.fields;
  const uint32_t w = f.swizzle == layout::Swizzle::b128  ? 8
                     : f.swizzle == layout::Swizzle::b64 ? 4
                     : f.swizzle == layout::Swizzle::b32 ? 2
                                                         : 0;
  const uint32_t start = p.start_offset, lbo = f.leading_byte_offset, sbo = f.stride_byte_offset;
  uint32_t cell = 0, in_cell = 0;
  if (p.k_major) {
    in_cell = 2 * (k % 8);
    // SBO steps 8-row groups; the second K cell is LBO away in a core matrix, next door in an atom.
    cell = w == 0 ? start + (row / 8) * sbo + (k / 8) * lbo + (row % 8) * 16
                  : start + (row / 8) * sbo + (row % 8) * 16 * w + (k / 8) * 16;
  } else {
    in_cell = 2 * (row % 8);
    const uint32_t mn_cell = row / 8;
    // No swizzle: SBO steps MN cells, LBO steps 8-K-row groups. Swizzled: LBO steps atoms of w
    // MN cells, SBO steps 8-K-row groups (facts §1.4, from CUTLASS's canonical layouts;
    // this probe, 2026-11-24 H100, confirmed them).
    cell = w == 0 ? start + mn_cell * sbo + (k / 8) * lbo + (k % 8) * 16
                  : start + (mn_cell / w) * lbo + (mn_cell % w) * 16 + (k / 8) * sbo + (k % 8) * 16 * w;
  }
  // facts §3: the cell index in its 128-byte line is XORed with the line's index in the
  // repeat (mask w - 1), counted from the pattern origin that the base offset names (PTX ISA
  // "Matrix Descriptor Format": base offset = (pattern start >> 7) & 7). The region is
  // 1024-aligned, so offsets in it have the absolute address's bits 4-9.
  const uint32_t phase = w == 0 ? 0 : ((cell >> 7) - f.base_offset) & (w - 1);
  return (cell ^ (phase << 4)) + in_cell;
}

std::optional<uint32_t> wgmma_desc_decode(float accumulator) {
  const uint32_t bits = std::bit_cast<uint32_t>(accumulator);
  const uint32_t code = bits >> 16;
  if ((bits & 0xFFFF) != 0 || code < kWgmmaDescCodeBase || code >= kWgmmaDescCodeBase + kernels::kWgmmaDescRegionBytes / 2)
    return std::nullopt;
  return 2 * (code - kWgmmaDescCodeBase);
}

ProbeCase make_wgmma_desc_probe_case(const kernels::WgmmaDescProbe& desc, ir::Kernel kernel) {
  ProbeCase p;
  p.group = "wgmma-desc";
  p.name = "desc " + desc.name;
  p.kind = ProbeKind::wgmma_descriptor;
  p.n = desc.n;
  p.desc = desc;
  p.kernel = std::move(kernel);
  p.buffers.a.resize(kernels::kWgmmaDescRegionBytes);
  for (uint32_t i = 0; i < kernels::kWgmmaDescRegionBytes / 2; ++i) {
    const uint16_t code = uint16_t(kWgmmaDescCodeBase + i);
    std::memcpy(p.buffers.a.data() + 2 * size_t(i), &code, 2);
  }
  // The identity: row r < 16 holds 1.0 at k = r, rows of 128 B, 128B-swizzled (facts §3:
  // physical = logical ^ (((logical >> 7) & 7) << 4) on the 1024-aligned tile).
  p.buffers.b.assign(kernels::wgmma_desc_identity_bytes(desc), 0);
  for (uint32_t r = 0; r < 16; ++r) {
    const uint32_t logical = r * 128 + 2 * r;
    const uint32_t physical = logical ^ (((logical >> 7) & 7) << 4);
    std::memcpy(p.buffers.b.data() + physical, &kBf16One, 2);
  }
  p.buffers.c.assign(size_t(kThreads) * desc.n / 2 * 4, 0xFF);
  return p;
}

ProbeCheck check_wgmma_desc_output(const ProbeCase& p, const std::vector<uint8_t>& c, std::string_view who) {
  ProbeCheck check;
  for_each_accumulator(p, [&](size_t at, uint32_t row, uint32_t k, bool holds) {
    ++check.checked;
    const float got = f32_at(c, at);
    if (!holds) {
      if (std::bit_cast<uint32_t>(got) != 0) note(check, fmt::format("{}: {} holds {}, not 0", where(p, row, k, holds), who, got));
      return;
    }
    const uint32_t want = wgmma_desc_formula_offset(p.desc, row, k);
    const std::optional<uint32_t> off = wgmma_desc_decode(got);
    if (off != want)
      note(check, fmt::format("{}: {} read {}, the formula says region byte 0x{:04X}", where(p, row, k, holds), who,
                              read_text(got), want));
  });
  check.pass = check.mismatches == 0;
  return check;
}

ProbeCheck compare_wgmma_desc_outputs(const ProbeCase& p, const std::vector<uint8_t>& gpu,
                                      const std::vector<uint8_t>& model) {
  ProbeCheck check;
  for_each_accumulator(p, [&](size_t at, uint32_t row, uint32_t k, bool holds) {
    ++check.checked;
    if (std::memcmp(gpu.data() + at, model.data() + at, 4) != 0)
      note(check, fmt::format("{}: GPU read {}, model read {}", where(p, row, k, holds), read_text(f32_at(gpu, at)),
                              read_text(f32_at(model, at))));
  });
  check.pass = check.mismatches == 0;
  return check;
}

}  // namespace gs::run
