// What a step's structure tests count in its IR (how many of each op it emits and where), and
// the check every step's test makes of its deliberate mistakes.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/ir/kernel.hpp"
#include "engine/ptx/emit.hpp"
#include "kernels/registry.hpp"
#include "tests/support/ptxas_check.hpp"

namespace gs::test {

// How many instructions of each op the kernel has.
inline std::map<ir::Op, int> op_counts(const ir::Kernel& k) {
  std::map<ir::Op, int> c;
  for (const ir::Inst& i : k.insts) c[i.op]++;
  return c;
}

// The count of `op` in op_counts' map (0 when the kernel has none).
inline int count(const std::map<ir::Op, int>& c, ir::Op op) { return c.count(op) ? c.at(op) : 0; }

// The instruction indices of `op`, in program order.
inline std::vector<size_t> where(const ir::Kernel& k, ir::Op op) {
  std::vector<size_t> at;
  for (size_t i = 0; i < k.insts.size(); ++i)
    if (k.insts[i].op == op) at.push_back(i);
  return at;
}

// Each deliberate mistake of the step, built at its example shape, assembles for its target:
// a section per mistake, named "ID --break NAME".
inline void check_mistakes_assemble(const kernels::KernelInfo& info) {
  for (const kernels::Mistake& m : info.mistakes) {
    DYNAMIC_SECTION(info.id << " --break " << m.name) {
      check_assembles(ptx::emit(kernels::build_kernel(info, {info.example_shape, {m.name}})).text, info.arch,
                      std::string(info.id) + " " + m.name);
    }
  }
}

}  // namespace gs::test
