// verify(kernel): the checks every kernel passes before any back end sees it.
//
// Definition before use, operand types, targets, labels, shared-memory budget and
// alignment, launch shape and warpgroup rules. Each problem names the instruction (its
// index, op and registers) and says what would be valid.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "engine/ir/kernel.hpp"

namespace gs::ir {

// H100 limits (facts §10, [DEV]): a block may use 48 KiB of static shared memory, and up to
// 227 KiB of dynamic shared memory after opting in.
inline constexpr uint32_t kMaxStaticSmem = 48 * 1024;
inline constexpr uint32_t kMaxDynamicSmem = 232448;

struct Problem {
  uint32_t inst = kNone;  // the instruction concerned, or kNone for kernel-level problems
  std::string message;
};

class VerifyError : public std::runtime_error {
 public:
  explicit VerifyError(std::vector<Problem> problems);
  const std::vector<Problem>& problems() const { return problems_; }

 private:
  std::vector<Problem> problems_;
};

std::vector<Problem> verify_problems(const Kernel& k);
void verify(const Kernel& k);  // throws VerifyError listing every problem

// "instruction 12 (add.u32 %k, %x, 1)": how problems and hazards name an instruction.
std::string describe_instruction(const Kernel& k, uint32_t inst);

}  // namespace gs::ir
