// The loaded kernel's model hazards as problems. Hazards of one kind with one cause are one
// entry with a count: a wait that returned on a stale phase lets every wgmma after it read
// the stage too early, and the learner needs the wait, not eight copies of the symptom. The
// title names the op, not its operand list; the detail says what the mistakes switched on
// are expected to show, next to the hazards they caused.
#pragma once

#include <string>
#include <vector>

#include "gui/core/session.hpp"

namespace gs::gui {

struct Problem;

// One problem per group of hazards (in order of first occurrence), then an incomplete run and
// a wrong C.
std::vector<Problem> model_problems(const LoadedKernel& k);

// The op of one PTX line, without guard or operands: "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16".
std::string op_of_ptx_line(const std::string& line);

}  // namespace gs::gui
