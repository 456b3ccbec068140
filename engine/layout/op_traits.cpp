// The op traits table, generated from op_traits.def. See op_traits.hpp.
#include "engine/layout/op_traits.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "engine/layout/format_detail.hpp"
#include "engine/layout/umma_descriptor.hpp"
#include "engine/layout/wgmma_descriptor.hpp"

namespace gs::layout {

namespace {

using detail::str;

// The fragments.hpp functions as functions of the map's one parameter.
FragmentMap make_wgmma_a_register(int) { return wgmma_a_register_layout(); }
FragmentMap make_mma_a(int) { return mma_m16n8k16_a_layout(); }
FragmentMap make_mma_b(int) { return mma_m16n8k16_b_layout(); }
FragmentMap make_mma_c(int) { return mma_m16n8k16_c_layout(); }
FragmentMap make_ldmatrix(int x) { return ldmatrix_layout(x, false); }
FragmentMap make_ldmatrix_trans(int x) { return ldmatrix_layout(x, true); }
FragmentMap make_stmatrix(int x) { return stmatrix_layout(x, false); }
FragmentMap make_stmatrix_trans(int x) { return stmatrix_layout(x, true); }

#define PARAM_NONE MapParam{}
#define PARAM_STEP(name, lo, hi, step, def, hint) MapParam{name, lo, hi, step, false, def, hint}
#define PARAM_POW2(name, lo, hi, def, hint) MapParam{name, lo, hi, 1, true, def, hint}

constexpr std::array kMaps = {
#define FRAGMENT(id, op, operand, title, row_label, col_label, packed16, citation, probe, param, make) \
  OperandMap{#id, ir::Op::op, operand, title, row_label, col_label, packed16, citation, probe, param, make},
#include "engine/layout/op_traits.def"
};

#undef PARAM_NONE
#undef PARAM_STEP
#undef PARAM_POW2

struct SmemReadRow {
  ir::Op op;
  CoreMatrixRead read;
};
constexpr std::array kSmemReads = {
#define SMEM_READ(op, split, name, describe) SmemReadRow{ir::Op::op, {CoreMatrixRead::Split::split, name, describe}},
#include "engine/layout/op_traits.def"
};

struct TmemRow {
  ir::Op op;
  TmemAccessRule rule;
};
constexpr std::array kTmemRules = {
#define TMEM_ACCESS(op, rule) TmemRow{ir::Op::op, {TmemAccessRule::Rule::rule}},
#include "engine/layout/op_traits.def"
};

struct LatencyRow {
  ir::Op op;
  LatencyClass cls;
};
constexpr std::array kLatencies = {
#define LATENCY(op, cls) LatencyRow{ir::Op::op, LatencyClass::cls},
#include "engine/layout/op_traits.def"
};

struct ScopeRow {
  ir::Op op;
  ThreadScope scope;
};
constexpr std::array kScopes = {
#define SCOPE(op, scope) ScopeRow{ir::Op::op, ThreadScope::scope},
#include "engine/layout/op_traits.def"
};

// Every op has exactly one SCOPE row, in ops.def's order, so the table is indexed by the op.
constexpr bool scopes_follow_ops() {
  if (kScopes.size() != size_t(ir::Op::count_)) return false;
  for (size_t i = 0; i < kScopes.size(); ++i)
    if (kScopes[i].op != ir::Op(i)) return false;
  return true;
}
static_assert(scopes_follow_ops(), "op_traits.def: one SCOPE row per op of ops.def, in the same order");

// The maps of one op are neighbours in the table, so an op's maps are one span.
constexpr bool maps_grouped_by_op() {
  for (size_t i = 0; i < kMaps.size(); ++i)
    for (size_t j = i + 2; j < kMaps.size(); ++j)
      if (kMaps[i].op == kMaps[j].op && kMaps[j - 1].op != kMaps[i].op) return false;
  return true;
}
static_assert(maps_grouped_by_op(), "op_traits.def: keep the FRAGMENT rows of one op together");

std::array<OpTraits, size_t(ir::Op::count_)> build_traits() {
  std::array<OpTraits, size_t(ir::Op::count_)> t{};
  for (const ScopeRow& s : kScopes) t[size_t(s.op)] = {s.op, s.scope, {}, nullptr, nullptr};
  for (size_t i = 0; i < kMaps.size();) {
    size_t j = i;
    while (j < kMaps.size() && kMaps[j].op == kMaps[i].op) ++j;
    t[size_t(kMaps[i].op)].maps = std::span<const OperandMap>(kMaps.data() + i, j - i);
    i = j;
  }
  for (const SmemReadRow& r : kSmemReads) t[size_t(r.op)].smem_read = &r.read;
  for (const TmemRow& r : kTmemRules) t[size_t(r.op)].tmem_access = &r.rule;
  for (const LatencyRow& r : kLatencies) t[size_t(r.op)].latency = r.cls;
  return t;
}

}  // namespace

std::string_view thread_scope_name(ThreadScope s) {
  switch (s) {
    case ThreadScope::thread: return "thread";
    case ThreadScope::warp: return "warp";
    case ThreadScope::warpgroup: return "warpgroup";
    case ThreadScope::cta: return "CTA";
    case ThreadScope::cta_pair: return "CTA pair";
    case ThreadScope::cluster: return "cluster";
  }
  return "?";
}

std::string_view fact_basis_name(FactBasis b) { return b == FactBasis::probe ? "probe" : "citation"; }

bool MapParam::valid(int v) const {
  if (!takes_param()) return true;
  if (v < min || v > max) return false;
  if (doubling) {
    for (int x = min; x <= max; x *= 2)
      if (x == v) return true;
    return false;
  }
  return (v - min) % step == 0;
}

std::vector<int> MapParam::values() const {
  if (!takes_param()) return {0};
  std::vector<int> out;
  for (int x = min; x <= max; x = doubling ? 2 * x : x + step) out.push_back(x);
  return out;
}

int MapParam::nearest(int v) const {
  int best = default_value;
  for (int x : values())
    if (std::abs(x - v) < std::abs(best - v) || (std::abs(x - v) == std::abs(best - v) && x < best)) best = x;
  return best;
}

FragmentMap OperandMap::build(int p) const {
  if (!param.valid(p)) {
    std::string list;
    for (int x : param.values()) list += (list.empty() ? "" : ", ") + str(x);
    throw std::invalid_argument(std::string(title) + ": " + std::string(param.name) + " = " + str(p) +
                                " is not valid: " + std::string(param.hint) + " (" + list + ")");
  }
  return make(p);
}

uint32_t CoreMatrixRead::row_of_lane(uint32_t lane) { return 8 * ((lane / 8) % 2) + lane % 8; }
uint32_t CoreMatrixRead::chunk_of_lane(uint32_t lane) { return (lane / 8) / 2; }

uint32_t CoreMatrixRead::a_first_row(uint32_t warp) const {
  return split == Split::per_warp_quarter ? 16 * (warp % 4) : 0;
}
uint32_t CoreMatrixRead::b_first_row(uint32_t warp, uint32_t n) const {
  return split == Split::per_warp_quarter ? (warp % 4) * n / 4 : 0;
}
uint32_t CoreMatrixRead::a_rows(uint32_t m) const { return split == Split::per_warp_quarter ? 16 : m; }
uint32_t CoreMatrixRead::b_rows(uint32_t n) const { return split == Split::per_warp_quarter ? n / 4 : n; }

uint32_t TmemAccessRule::quarter_of_warp(uint32_t warp_in_cta) { return warp_in_cta % kQuarters; }
uint32_t TmemAccessRule::quarter_of_lane(uint32_t lane) { return lane / kQuarterLanes; }
uint32_t TmemAccessRule::quarter_first_lane(uint32_t quarter) { return quarter * kQuarterLanes; }
std::pair<uint32_t, uint32_t> TmemAccessRule::quarters_touched(uint32_t lane, uint32_t lanes) {
  if (lanes == 0) return {0, 0};
  const uint32_t first = quarter_of_lane(lane), end = std::min(kQuarters, quarter_of_lane(lane + lanes - 1) + 1);
  return {std::min(first, end), end};
}
uint32_t TmemAccessRule::first_lane(uint32_t warp_in_cta) { return kQuarterLanes * quarter_of_warp(warp_in_cta); }
bool TmemAccessRule::allows(uint32_t warp_in_cta, uint32_t lane, uint32_t lanes) {
  const uint32_t lo = first_lane(warp_in_cta);
  return lane >= lo && lane + lanes <= lo + kQuarterLanes;
}

const OpTraits& op_traits(ir::Op op) {
  static const std::array<OpTraits, size_t(ir::Op::count_)> table = build_traits();
  if (size_t(op) >= table.size()) throw std::invalid_argument("op_traits: op " + str(int(op)) + " is not in the op table");
  return table[size_t(op)];
}

std::span<const OperandMap> fragment_maps() { return kMaps; }

const OperandMap* find_fragment_map(std::string_view id) {
  for (const OperandMap& m : kMaps)
    if (m.id == id) return &m;
  return nullptr;
}

}  // namespace gs::layout
