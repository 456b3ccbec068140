// The ldmatrix / stmatrix probes (`gemmscope probe ldmatrix`): their inputs, the formula they
// are judged by, and the checks of their outputs. probe_run.cpp dispatches here for
// ProbeKind::matrix (kernels::build_matrix_probe describes the kernel).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "run/probe_run.hpp"

namespace gs::run {

// The case: ldmatrix (A = 256 u16 naming their own element index, C = 0xEE bytes) or
// stmatrix (C receives the whole tile), .x{num}, with or without .trans.
ProbeCase make_matrix_probe_case(uint32_t num, bool trans, bool store, ir::Kernel kernel);

// What lane `lane`'s register `reg` holds in its `half` (0: low b16) as (row, col) of matrix
// `reg`, read from the op traits' map of the probed op (ldmatrix, stmatrix; facts §2): the
// table the model uses, so the GPU's answer proves it.
void matrix_probe_position(bool store, bool trans, uint32_t lane, uint32_t half, uint32_t& row, uint32_t& col);

ProbeCheck check_matrix_output(const ProbeCase& probe, const std::vector<uint8_t>& c, std::string_view who);
ProbeCheck compare_matrix_outputs(const ProbeCase& probe, const std::vector<uint8_t>& gpu,
                                  const std::vector<uint8_t>& model);

}  // namespace gs::run
