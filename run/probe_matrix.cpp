#include "run/probe_matrix.hpp"

#include <cstring>

#include <fmt/format.h>

#include "engine/layout/op_traits.hpp"

namespace gs::run {

namespace {

uint16_t u16_of(const std::vector<uint8_t>& bytes, size_t offset) {
  uint16_t v = 0xFFFF;
  if (offset + 2 <= bytes.size()) std::memcpy(&v, bytes.data() + offset, 2);
  return v;
}

// The value the formula expects at byte `offset` of C, and what it is in words.
struct Expected {
  uint16_t value = 0;
  std::string what;
};

// ldmatrix: C word lane·num + reg, half h = element (row, col) of matrix `reg`, which lives
// in tile row slot(8·reg + row) = A row slot(...), column col: A's u16 index 8·slot + col.
Expected expected_load(const ProbeCase& p, uint32_t lane, uint32_t reg, uint32_t half) {
  uint32_t row = 0, col = 0;
  matrix_probe_position(false, p.matrix_trans, lane, half, row, col);
  const uint32_t slot = kernels::matrix_probe_slot(8 * reg + row);
  return {uint16_t(8 * slot + col), fmt::format("lane {} register {} half {} = matrix {} (row {}, col {})", lane, reg,
                                                half, reg, row, col)};
}

// stmatrix: tile row `slot`, column `col`. The rows no matrix covers stay 0; a covered one is
// row r of matrix j, whose (r, col) element came from the lane and half the formula names.
Expected expected_store(const ProbeCase& p, uint32_t slot, uint32_t col) {
  for (uint32_t m = 0; m < 8 * p.matrix_num; ++m) {
    if (kernels::matrix_probe_slot(m) != slot) continue;
    const uint32_t j = m / 8, r = m % 8;
    for (uint32_t lane = 0; lane < 32; ++lane)
      for (uint32_t half = 0; half < 2; ++half) {
        uint32_t row = 0, c = 0;
        matrix_probe_position(true, p.matrix_trans, lane, half, row, c);
        if (row == r && c == col)
          return {uint16_t(2 * (lane * p.matrix_num + j) + half),
                  fmt::format("tile row {} col {} = matrix {} (row {}, col {}) from lane {} half {}", slot, col, j, r,
                              col, lane, half)};
      }
  }
  return {0, fmt::format("tile row {} col {} (no matrix: stays 0)", slot, col)};
}

// Every checked b16 of C with the formula's value: (byte offset, expectation).
template <typename Fn>
void for_each_fact(const ProbeCase& p, Fn&& fn) {
  if (p.matrix_store) {
    for (uint32_t slot = 0; slot < 32; ++slot)
      for (uint32_t col = 0; col < 8; ++col) fn(size_t(16 * slot + 2 * col), expected_store(p, slot, col));
  } else {
    for (uint32_t lane = 0; lane < 32; ++lane)
      for (uint32_t reg = 0; reg < p.matrix_num; ++reg)
        for (uint32_t half = 0; half < 2; ++half)
          fn(size_t(4 * (lane * p.matrix_num + reg) + 2 * half), expected_load(p, lane, reg, half));
  }
}

}  // namespace

void matrix_probe_position(bool store, bool trans, uint32_t lane, uint32_t half, uint32_t& row, uint32_t& col) {
  // Matrix 0 of the op traits' map of the probed op (.x1): value `half` of register 0 (facts §2).
  static const layout::FragmentMap maps[2][2] = {
      {layout::find_fragment_map("ldmatrix")->build(1), layout::find_fragment_map("ldmatrix_trans")->build(1)},
      {layout::find_fragment_map("stmatrix")->build(1), layout::find_fragment_map("stmatrix_trans")->build(1)}};
  const layout::Coord c = maps[store ? 1 : 0][trans ? 1 : 0].at(int(lane), int(half));
  row = uint32_t(c.row);
  col = uint32_t(c.col);
}

ProbeCase make_matrix_probe_case(uint32_t num, bool trans, bool store, ir::Kernel kernel) {
  ProbeCase p;
  p.group = "ldmatrix";
  p.name = fmt::format("{}.x{}{}", store ? "stmatrix" : "ldmatrix", num, trans ? ".trans" : "");
  p.kind = ProbeKind::matrix;
  p.matrix_num = num;
  p.matrix_trans = trans;
  p.matrix_store = store;
  p.kernel = std::move(kernel);
  p.buffers.a.resize(kernels::kMatrixProbeBytes);
  for (uint32_t i = 0; i < kernels::kMatrixProbeBytes / 2; ++i) std::memcpy(p.buffers.a.data() + 2 * i, &i, 2);
  p.buffers.c.assign(kernels::kMatrixProbeBytes, 0xEE);
  return p;
}

ProbeCheck check_matrix_output(const ProbeCase& p, const std::vector<uint8_t>& c, std::string_view who) {
  ProbeCheck check;
  for_each_fact(p, [&](size_t offset, const Expected& e) {
    ++check.checked;
    const uint16_t got = u16_of(c, offset);
    if (got != e.value && ++check.mismatches == 1)
      check.first_mismatch = fmt::format("{}: {} holds {}, the formula says {}", e.what, who, got, e.value);
  });
  check.pass = check.mismatches == 0;
  return check;
}

ProbeCheck compare_matrix_outputs(const ProbeCase& p, const std::vector<uint8_t>& gpu,
                                  const std::vector<uint8_t>& model) {
  ProbeCheck check;
  for_each_fact(p, [&](size_t offset, const Expected& e) {
    ++check.checked;
    const uint16_t g = u16_of(gpu, offset), m = u16_of(model, offset);
    if (g != m && ++check.mismatches == 1)
      check.first_mismatch = fmt::format("{}: GPU holds {}, model holds {}", e.what, g, m);
  });
  check.pass = check.mismatches == 0;
  return check;
}

}  // namespace gs::run
