// shared_load_folds (decode.hpp): which ld.shared ptxas merged into one wider SASS load.
#include <algorithm>
#include <map>
#include <tuple>

#include "engine/model/decode.hpp"

namespace gs::model {
namespace {

using ir::Op;

// What makes loads one group: the base (register with its version, or a shared-memory symbol),
// the straight run of code, the element size, the guard and the 16-byte window of offsets.
using GroupKey = std::tuple<uint8_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, bool, int64_t>;

bool ends_straight_run(Op op) { return op == Op::bra || op == Op::ret || op == Op::exit || op == Op::trap; }

uint32_t round_up_pow2(uint32_t v) {
  uint32_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

}  // namespace

std::vector<SharedLoadFold> shared_load_folds(const ir::Kernel& k, const std::vector<uint16_t>& sass_per_inst) {
  std::vector<SharedLoadFold> folds(k.insts.size());
  if (sass_per_inst.size() != k.insts.size()) return folds;
  std::vector<uint32_t> version(k.regs.size(), 0);
  uint32_t run = 0;
  std::map<GroupKey, std::vector<uint32_t>> groups;
  for (uint32_t pc = 0; pc < k.insts.size(); ++pc) {
    const ir::Inst& in = k.insts[pc];
    if (in.op == Op::label) ++run;
    if (in.op == Op::ld_shared) {
      const uint32_t vec = std::max<uint32_t>(in.vec, 1);
      const ir::Operand& addr = in.operands.at(vec);
      const bool by_reg = addr.kind == ir::OperandKind::mem_reg;
      if (by_reg || addr.kind == ir::OperandKind::mem_smem) {
        const uint32_t bytes = std::max<uint32_t>(ir::type_bits(in.type) / 8, 1) * vec;
        const int64_t window = addr.imm >= 0 ? addr.imm / 16 : -((-addr.imm + 15) / 16);
        groups[{uint8_t(by_reg), addr.id, by_reg ? version.at(addr.id) : 0, run, bytes, in.guard, in.guard_negated,
                window}]
            .push_back(pc);
      }
    }
    for (uint32_t d = 0; d < in.ndst && d < in.operands.size(); ++d)
      if (in.operands[d].kind == ir::OperandKind::reg && in.operands[d].id < version.size()) ++version[in.operands[d].id];
    if (ends_straight_run(in.op)) ++run;
  }
  const auto offset = [&](uint32_t pc) { return k.insts[pc].operands.at(std::max<uint32_t>(k.insts[pc].vec, 1)).imm; };
  const auto bytes_of = [&](uint32_t pc) {
    return std::max<uint32_t>(ir::type_bits(k.insts[pc].type) / 8, 1) * std::max<uint32_t>(k.insts[pc].vec, 1);
  };
  for (auto& [key, loads] : groups) {
    std::vector<uint32_t> leaders, members;
    for (uint32_t pc : loads) (sass_per_inst[pc] > 0 ? leaders : members).push_back(pc);
    if (leaders.empty() || members.empty()) continue;
    std::sort(leaders.begin(), leaders.end(), [&](uint32_t a, uint32_t b) { return offset(a) < offset(b); });
    std::map<uint32_t, std::pair<int64_t, int64_t>> span;  // leader -> [lowest, highest end)
    for (uint32_t l : leaders) span[l] = {offset(l), offset(l) + bytes_of(l)};
    for (uint32_t m : members) {
      // The leader at or below the member's offset, else the lowest one.
      uint32_t leader = leaders.front();
      for (uint32_t l : leaders)
        if (offset(l) <= offset(m)) leader = l;
      folds[m].leader = leader;
      ++folds[leader].members;
      auto& [lo, hi] = span[leader];
      lo = std::min(lo, offset(m));
      hi = std::max(hi, offset(m) + int64_t(bytes_of(m)));
    }
    for (uint32_t l : leaders) {
      if (folds[l].members == 0) continue;
      const auto [lo, hi] = span[l];
      folds[l].bytes = uint8_t(std::min<uint32_t>(16, round_up_pow2(uint32_t(hi - lo))));
      folds[l].shift = int8_t(lo - offset(l));
    }
  }
  return folds;
}

}  // namespace gs::model
