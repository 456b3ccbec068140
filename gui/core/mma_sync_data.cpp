#include "gui/core/mma_sync_data.hpp"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "engine/ir/bf16.hpp"
#include "engine/ir/signature.hpp"
#include "engine/layout/fragments.hpp"
#include "gui/core/fragments_data.hpp"

namespace gs::gui {

namespace {

// The C/D map of m16n8k16: (T32,V4) -> (M16,N8).
const layout::FragmentMap& c_map() {
  static const layout::FragmentMap m = layout::mma_m16n8k16_c_layout();
  return m;
}

template <typename Span>
MmaSyncOperand operand_of(const Span& regs) {
  MmaSyncOperand o;
  for (const ir::Operand& r : regs)
    if (o.count < MmaSyncOperand::kMaxRegs) o.regs[o.count++] = r.id;
  return o;
}

// Each lane's value of each register of the operand as of event `position`.
void read_values(const LoadedKernel& k, uint32_t position, uint16_t warp, MmaSyncOperand& o) {
  for (uint32_t l = 0; l < 32; ++l)
    for (uint32_t r = 0; r < o.count; ++r)
      if (const auto v = register_value_at(k, position, warp, o.regs[r], l)) {
        o.bits[l][r] = *v;
        o.known[l] |= 1u << r;
      }
}

// The latest execution at or before `position` of an mma.sync (of `warp` unless kNoWarp).
uint32_t latest_mma_sync(const LoadedKernel& k, uint32_t position, uint16_t warp) {
  const model::Trace& t = k.trace();
  uint32_t best = kNone;
  for (uint32_t i = 0; i < k.kernel().insts.size(); ++i) {
    if (k.kernel().insts[i].op != ir::Op::mma_sync) continue;
    const auto& runs = t.executions_of(i);
    const uint32_t* it = std::upper_bound(runs.data(), runs.data() + runs.size(), position);
    while (it != runs.data() && warp != kNoWarp && t.events[*(it - 1)].warp != warp) --it;
    if (it != runs.data() && (best == kNone || *(it - 1) > best)) best = *(it - 1);
  }
  return best;
}

// Where each D element went: the traced CTA's first store of that lane's register after the mma.
void place_in_c(const LoadedKernel& k, RunningMmaSync& m) {
  const model::Trace& t = k.trace();
  const uint32_t n = k.report.shape.n;
  const uint32_t elem = k.report.c_dtype == kernels::DType::f32 ? 4 : 2;
  for (auto& row : m.c_row) row.fill(-1);
  for (auto& row : m.c_col) row.fill(-1);
  if (n == 0) return;
  const uint64_t after = t.events[m.event].cycle;
  std::array<std::array<bool, 4>, 32> found{};
  uint32_t row0 = ~0u, col0 = ~0u;
  for (const model::CWrite& w : t.c_writes) {
    const uint64_t e = w.byte_offset / elem;
    row0 = std::min(row0, uint32_t(e / n));
    col0 = std::min(col0, uint32_t(e % n));
    if (w.warp != m.warp || w.cycle < after || w.lane >= 32) continue;
    for (uint32_t v = 0; v < m.d.count; ++v) {
      if (w.reg != m.d.regs[v] || found[w.lane][v]) continue;
      found[w.lane][v] = true;
      const layout::Coord rc = c_map().at(int(w.lane), int(v));
      m.c_row[size_t(rc.row)][size_t(rc.col)] = int(e / n);
      m.c_col[size_t(rc.row)][size_t(rc.col)] = int(e % n);
    }
  }
  if (row0 != ~0u) m.tile_row0 = int(row0), m.tile_col0 = int(col0);
  // The fragment's first row and column, when the stores place it as one 16x8 block.
  int r0 = m.c_row[0][0], c0 = m.c_col[0][0];
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 8; ++c)
      if (m.c_row[size_t(r)][size_t(c)] != r0 + r || m.c_col[size_t(r)][size_t(c)] != c0 + c) r0 = c0 = -1;
  m.rows_from = r0;
  m.cols_from = c0;
}

}  // namespace

RunningMmaSync running_mma_sync(const LoadedKernel& k, uint32_t position, uint16_t warp) {
  RunningMmaSync m;
  const model::Trace& t = k.trace();
  m.event = latest_mma_sync(k, position, warp);
  if (m.event == kNone) {
    const bool any = std::any_of(k.kernel().insts.begin(), k.kernel().insts.end(),
                                 [](const ir::Inst& in) { return in.op == ir::Op::mma_sync; });
    m.note = !any ? "this kernel has no mma.sync" : "no mma.sync has run yet: step forward to the first";
    return m;
  }
  const model::Event& e = t.events[m.event];
  m.valid = true;
  m.inst = e.inst;
  m.warp = e.warp;
  const ir::mma_sync_operands ops = ir::mma_sync_operands_of(k.kernel().insts[m.inst]);
  m.a = operand_of(ops.a);
  m.b = operand_of(ops.b);
  m.c = operand_of(ops.c);
  m.d = operand_of(ops.d);
  // The mma's register writes follow its warp_inst event at the same cycle.
  uint32_t written = m.event;
  while (written + 1 < t.events.size() && t.events[written + 1].kind == model::EventKind::reg_write &&
         t.events[written + 1].inst == m.inst && t.events[written + 1].warp == m.warp)
    ++written;
  read_values(k, m.event, m.warp, m.a);
  read_values(k, m.event, m.warp, m.b);
  read_values(k, m.event, m.warp, m.c);
  read_values(k, written, m.warp, m.d);
  place_in_c(k, m);
  return m;
}

std::optional<float> mma_sync_value(const RunningMmaSync& m, MmaOperand op, uint32_t lane, uint32_t value) {
  if (!m.valid || lane >= 32) return std::nullopt;
  const MmaSyncOperand& o = op == MmaOperand::a ? m.a : op == MmaOperand::b ? m.b : m.d;
  const bool packed = op != MmaOperand::c;  // two bf16 per register
  const uint32_t r = packed ? value / 2 : value;
  if (r >= o.count || !(o.known[lane] >> r & 1)) return std::nullopt;
  const uint32_t bits = o.bits[lane][r];
  if (!packed) return std::bit_cast<float>(bits);
  return ir::bf16_to_f32(uint16_t(value % 2 ? bits >> 16 : bits));
}

std::string mma_sync_value_text(const LoadedKernel& k, const RunningMmaSync& m, MmaOperand op, uint32_t lane,
                                uint32_t value) {
  if (!m.valid || lane >= 32) return "";
  const auto name = [&](uint32_t reg) {
    return reg < k.ptx.reg_names.size() ? k.ptx.reg_names[reg] : fmt::format("reg {}", reg);
  };
  if (op != MmaOperand::c) {
    const MmaSyncOperand& o = op == MmaOperand::a ? m.a : m.b;
    const auto v = mma_sync_value(m, op, lane, value);
    if (value / 2 >= o.count) return "";
    const std::string reg = fmt::format("{} {}", name(o.regs[value / 2]), value % 2 ? "hi" : "lo");
    return v ? fmt::format("{} = {:g}", reg, *v) : reg + " (not written yet)";
  }
  if (value >= m.c.count || value >= m.d.count) return "";
  const std::string in = m.c.known[lane] >> value & 1
                             ? fmt::format("{:g}", std::bit_cast<float>(m.c.bits[lane][value])) : "?";
  const auto out = mma_sync_value(m, op, lane, value);
  std::string s = fmt::format("C {} = {} -> D {} = {}", name(m.c.regs[value]), in, name(m.d.regs[value]),
                              out ? fmt::format("{:g}", *out) : "?");
  const layout::Coord rc = c_map().at(int(lane), int(value));
  if (const int row = m.c_row[size_t(rc.row)][size_t(rc.col)]; row >= 0)
    s += fmt::format(", stored to C({}, {})", row, m.c_col[size_t(rc.row)][size_t(rc.col)]);
  return s;
}

std::string mma_sync_place_text(const RunningMmaSync& m) {
  if (!m.valid) return m.note;
  const std::string who = fmt::format("mma.sync of warp {} at event {}", m.warp, m.event);
  if (m.rows_from < 0) return who + ": its D registers are not stored straight to C, so its place is not recorded";
  return fmt::format("{}: rows {}..{}, columns {}..{} of C (CTA tile rows {}.., columns {}..); A's rows and B's "
                     "columns are these",
                     who, m.rows_from, m.rows_from + 15, m.cols_from, m.cols_from + 7, m.rows_from - m.tile_row0,
                     m.cols_from - m.tile_col0);
}

const RunningMmaSync& cached_running_mma_sync(MmaSyncCache& cache, const std::shared_ptr<const LoadedKernel>& k,
                                              uint32_t position, uint16_t warp) {
  if (!k) {
    cache = MmaSyncCache{};
    return cache.value;
  }
  if (cache.kernel.lock() != k || cache.position != position || cache.warp != warp) {
    cache.kernel = k;
    cache.position = position;
    cache.warp = warp;
    cache.value = running_mma_sync(*k, position, warp);
  }
  return cache.value;
}

std::optional<MmaOperand> mma_operand_of_map(const FragmentViewOptions& o) {
  const layout::OperandMap* m = layout::find_fragment_map(o.map);
  if (!m || m->op != ir::Op::mma_sync) return std::nullopt;
  // The op traits name mma.sync's operands A, B and C/D (op_traits.def).
  if (m->operand == "A") return MmaOperand::a;
  if (m->operand == "B") return MmaOperand::b;
  return MmaOperand::c;
}

nlohmann::json mma_sync_json(const LoadedKernel& k, const RunningMmaSync& m) {
  if (!m.valid) return {{"valid", false}, {"note", m.note}};
  const auto regs = [&](const MmaSyncOperand& o) {
    nlohmann::json j = nlohmann::json::array();
    for (uint32_t r = 0; r < o.count; ++r)
      j.push_back(o.regs[r] < k.ptx.reg_names.size() ? k.ptx.reg_names[o.regs[r]] : std::to_string(o.regs[r]));
    return j;
  };
  // Lane 0's values of each map (the headless test checks one against the screenshot).
  const auto lane0 = [&](MmaOperand op, uint32_t values) {
    nlohmann::json j = nlohmann::json::array();
    for (uint32_t v = 0; v < values; ++v) {
      const auto x = mma_sync_value(m, op, 0, v);
      j.push_back(x ? nlohmann::json(*x) : nlohmann::json(nullptr));
    }
    return j;
  };
  return {{"valid", true},
          {"event", m.event},
          {"inst", m.inst},
          {"warp", m.warp},
          {"a_regs", regs(m.a)},
          {"b_regs", regs(m.b)},
          {"c_regs", regs(m.c)},
          {"d_regs", regs(m.d)},
          {"lane0_a", lane0(MmaOperand::a, 8)},
          {"lane0_b", lane0(MmaOperand::b, 4)},
          {"lane0_d", lane0(MmaOperand::c, 4)},
          {"rows_from", m.rows_from},
          {"cols_from", m.cols_from},
          {"tile_origin", {m.tile_row0, m.tile_col0}},
          {"place", mma_sync_place_text(m)}};
}

}  // namespace gs::gui
