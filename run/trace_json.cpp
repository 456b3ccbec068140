// trace_json: the traced CTA as one JSON object, for `gemmscope sim --trace FILE` and for
// tools outside gemmscope. Layout follows engine/model/trace.hpp: events are small records
// whose `payload` indexes the side table of their kind (smem, global, tma, mbar, mma, tmem, fast_forwards, regs;
// `hazard` events index `hazards`; bar_* events carry the barrier id). A register write's
// values start at `values[value_offset]`, as `words` 32-bit words (low first) per value:
// with "encoding": "packed", one value for each lane set in its `mask`, in lane order, and
// nothing for the other lanes; with "affine" (whole-warp writes), two values, base and step,
// lane l having written base + step * l (modulo 2^(32 * words)).
#include <fmt/format.h>

#include "engine/ptx/emit.hpp"
#include "run/sim_job.hpp"

namespace gs::run {

namespace {

using nlohmann::json;

const char* encoding_name(model::RegWrite::Encoding e) {
  return e == model::RegWrite::Encoding::affine ? "affine" : "packed";
}

json id_or_null(uint32_t v) { return v == model::kNone ? json(nullptr) : json(v); }

json lanes_of(const std::array<uint32_t, 32>& values, uint32_t mask) {
  json a = json::array();
  for (uint32_t lane = 0; lane < 32; ++lane) a.push_back((mask >> lane) & 1u ? json(values[lane]) : json(nullptr));
  return a;
}

json lanes_of(const std::array<uint8_t, 32>& values, uint32_t mask) {
  json a = json::array();
  for (uint32_t lane = 0; lane < 32; ++lane) a.push_back((mask >> lane) & 1u ? json(values[lane]) : json(nullptr));
  return a;
}

json event_json(const model::Event& e) {
  return {{"cycle", e.cycle},
          {"kind", model::event_kind_name(e.kind)},
          {"warp", e.warp == model::kNoWarp ? json(nullptr) : json(e.warp)},
          {"cta", e.cta},
          {"inst", id_or_null(e.inst)},
          {"mask", e.mask},
          {"payload", id_or_null(e.payload)},
          {"a", e.a}};
}

json smem_json(const model::SmemAccess& s) {
  return {{"mask", s.mask},
          {"bytes", s.bytes},
          {"store", s.store},
          {"addr", lanes_of(s.addr, s.mask)},
          {"bank", lanes_of(s.bank, s.mask)},
          {"lane_wavefront", lanes_of(s.lane_wavefront, s.mask)},
          {"wavefronts", s.wavefronts},
          {"ideal_wavefronts", s.ideal_wavefronts},
          {"conflict_degree", s.conflict_degree}};
}

json global_json(const model::GlobalAccess& g) {
  return {{"mask", g.mask}, {"bytes", g.bytes}, {"store", g.store}, {"sectors", g.sectors}, {"first_addr", g.first_addr}};
}

json tma_json(const model::TmaTransfer& t) {
  return {{"param", t.param},
          {"coords", std::vector<int32_t>(t.coords.begin(), t.coords.begin() + std::min<uint32_t>(t.rank, 5))},
          {"rank", t.rank},
          {"smem_dst", t.smem_dst},
          {"bytes", t.bytes},
          {"swizzle", t.swizzle},
          {"store", t.store},
          {"mbar", t.mbar},
          {"issue_cycle", t.issue_cycle},
          {"complete_cycle", t.complete_cycle},
          {"cta", t.cta},
          {"cta_mask", t.cta_mask}};
}

json mbar_json(const model::MbarEvent& m) {
  return {{"addr", m.addr},
          {"phase", m.phase},
          {"pending_arrivals", m.pending_arrivals},
          {"tx_count", m.tx_count},
          {"expected", m.expected},
          {"value", m.value}};
}

json mma_json(const model::MmaOp& m) {
  // Descriptors as hex strings: 64-bit values do not survive JavaScript's doubles.
  return {{"m", m.m},
          {"n", m.n},
          {"k", m.k},
          {"a_desc", fmt::format("0x{:016x}", m.a_desc)},
          {"b_desc", fmt::format("0x{:016x}", m.b_desc)},
          {"scale_d", m.scale_d},
          {"group", m.group},
          {"issue_cycle", m.issue_cycle},
          {"complete_cycle", m.complete_cycle}};
}

json tmem_json(const model::TmemOp& o) {
  return {{"kind", model::tmem_op_kind_name(o.kind)},
          {"lane", o.lane},
          {"column", o.column},
          {"lanes", o.lanes},
          {"columns", o.columns},
          {"cta_group", o.cta_group},
          {"cta_mask", o.cta_mask},
          {"mbar", o.mbar},
          {"mma", id_or_null(o.mma)},
          {"issue_cycle", o.issue_cycle},
          {"complete_cycle", o.complete_cycle}};
}

json hazard_json(const model::Hazard& h) {
  return {{"kind", model::hazard_kind_name(h.kind)},   {"inst", id_or_null(h.inst)}, {"warp", id_or_null(h.warp)},
          {"lane", id_or_null(h.lane)}, {"address", h.address}, {"cycle", h.cycle},
          {"detail", h.detail}};
}

template <class Rows, class F>
json table_json(const Rows& rows, F&& one) {
  json a = json::array();
  for (const auto& row : rows) a.push_back(one(row));
  return a;
}

}  // namespace

json trace_json(const model::Trace& t, const ir::Kernel& kernel) {
  const ptx::PtxModule module = ptx::emit(kernel);
  json instructions = json::array();
  for (size_t i = 0; i < kernel.insts.size(); ++i) {
    const ir::Inst& inst = kernel.insts[i];
    std::string text;
    try {
      text = ptx::format_instruction(kernel, module.reg_names, inst);
    } catch (const std::exception&) {
      text = std::string(inst.info().spelling);
    }
    instructions.push_back({{"id", i},
                            {"op", std::string(inst.info().id)},
                            {"ptx", text},
                            {"line", i < module.inst_to_line.size() ? json(module.inst_to_line[i]) : json(nullptr)}});
  }
  json registers = json::array();
  for (size_t r = 0; r < kernel.regs.size(); ++r)
    registers.push_back({{"id", r},
                         {"name", r < module.reg_names.size() ? module.reg_names[r] : kernel.regs[r].name},
                         {"type", std::string(ir::type_name(kernel.regs[r].type))}});
  json ctas = json::array();
  for (const model::TracedCta& c : t.ctas)
    ctas.push_back({{"ctaid", c.ctaid}, {"linear", c.linear}, {"rank", c.rank}, {"first_warp", c.first_warp}});
  json kinds = json::array();
  for (size_t k = 0; k < size_t(model::EventKind::count_); ++k) kinds.push_back(model::event_kind_name(model::EventKind(k)));

  return {{"kernel", kernel.name},
          {"target", std::string(ir::arch_name(kernel.target))},
          {"traced_cta", t.traced_cta},
          {"warps", t.warps},
          {"warps_per_cta", t.warps_per_cta},
          {"ctas", ctas},
          {"end_cycle", t.end_cycle},
          {"event_kinds", kinds},
          {"instructions", instructions},
          {"registers", registers},
          {"events", table_json(t.events, event_json)},
          {"smem", table_json(t.smem, smem_json)},
          {"global", table_json(t.global, global_json)},
          {"tma", table_json(t.tma, tma_json)},
          {"mbar", table_json(t.mbar, mbar_json)},
          {"mma", table_json(t.mma, mma_json)},
          {"tmem", table_json(t.tmem, tmem_json)},
          {"fast_forwards", table_json(t.fast_forwards,
                                       [&](const model::FastForward& f) {
                                         return json{{"loop", kernel.labels.at(f.label).name},
                                                     {"k_loop", f.k_loop},
                                                     {"first", f.first},
                                                     {"count", f.count},
                                                     {"passes", f.passes},
                                                     {"warp", f.warp},
                                                     {"cycle", f.cycle},
                                                     {"cycles", f.cycles}};
                                       })},
          {"regs", table_json(t.regs,
                              [](const model::RegWrite& w) {
                                return json{{"reg", w.reg},
                                            {"value_offset", w.value_offset},
                                            {"words", w.words},
                                            {"encoding", encoding_name(w.encoding)},
                                            {"mask", w.mask}};
                              })},
          {"values", json(std::vector<uint32_t>(t.values.begin(), t.values.end()))},
          {"hazards", table_json(t.hazards, hazard_json)}};
}

}  // namespace gs::run
