#include "gui/core/session.hpp"

#include <algorithm>
#include <chrono>
#include <sstream>

namespace gs::gui {

uint32_t LoadedKernel::line_of(uint32_t inst) const {
  return inst < ptx.inst_to_line.size() ? ptx.inst_to_line[inst] : 0;
}

uint32_t LoadedKernel::inst_of_line(uint32_t line) const {
  if (line == 0 || line > ptx.line_to_inst.size()) return kNone;
  const int32_t i = ptx.line_to_inst[line - 1];
  return i < 0 ? kNone : uint32_t(i);
}

uint32_t LoadedKernel::k_iterations(uint16_t warp) const {
  uint32_t n = k_passes(warp);
  if (warp < k_skips.size())
    for (const KSkip& s : k_skips[warp]) n += s.count;
  return n;
}

uint32_t LoadedKernel::k_iterations_at(uint16_t warp, uint32_t position, uint32_t traced_passes) const {
  uint32_t n = traced_passes;
  if (warp < k_skips.size())
    for (const KSkip& s : k_skips[warp])
      if (s.event <= position) n += s.count;
  return n;
}

std::vector<LoopInfo> find_k_loops(const ir::Kernel& kernel) {
  // Where each label sits: the instruction after the label marker.
  std::vector<uint32_t> label_at(kernel.labels.size(), kNone);
  for (uint32_t i = 0; i < kernel.insts.size(); ++i) {
    const ir::Inst& inst = kernel.insts[i];
    if (inst.op == ir::Op::label && !inst.operands.empty() && inst.operands[0].id < label_at.size())
      label_at[inst.operands[0].id] = i;
  }
  std::vector<LoopInfo> loops;
  for (uint32_t i = 0; i < kernel.insts.size(); ++i) {
    const ir::Inst& inst = kernel.insts[i];
    if (inst.op != ir::Op::bra || inst.operands.empty() || inst.operands[0].kind != ir::OperandKind::label) continue;
    const uint32_t label = inst.operands[0].id;
    if (label >= label_at.size() || !kernel.labels[label].k_loop || label_at[label] == kNone || label_at[label] > i)
      continue;
    // The body starts at the first real instruction after the label marker.
    uint32_t head = label_at[label];
    while (head < i && kernel.insts[head].op == ir::Op::label) ++head;
    loops.push_back({head, i});
  }
  std::sort(loops.begin(), loops.end(), [](const LoopInfo& a, const LoopInfo& b) { return a.head < b.head; });
  return loops;
}

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// LoadedKernel::k_skips from the trace's fast_forward events. A K loop's skip holds its own
// passes; an outer loop's skip of `count` of `passes` passes holds, per pass, as many K
// iterations as the passes that ran held on average (traced and skipped alike).
void find_k_skips(LoadedKernel& k) {
  const model::Trace& t = k.trace();
  const auto& events = t.of_kind(model::EventKind::fast_forward);
  if (events.empty()) return;
  k.k_skips.resize(std::max<size_t>(k.k_pass_events.size(), t.warps));
  // The K iterations each warp ran or skipped inside K loops.
  std::vector<uint64_t> in_k_loops(k.k_skips.size(), 0);
  for (size_t w = 0; w < k.k_skips.size(); ++w) in_k_loops[w] = k.k_passes(uint16_t(w));
  for (uint32_t e : events) {
    const model::FastForward& f = t.fast_forwards[t.events[e].payload];
    if (f.k_loop && f.warp < in_k_loops.size()) in_k_loops[f.warp] += f.count;
  }
  std::vector<uint32_t> skipped(k.k_skips.size(), 0);
  for (uint32_t e : events) {
    const model::FastForward& f = t.fast_forwards[t.events[e].payload];
    if (f.warp >= k.k_skips.size()) continue;
    uint32_t count = f.count;
    if (!f.k_loop) {
      const uint32_t ran = f.passes > f.count ? f.passes - f.count : 0;
      count = ran == 0 ? 0 : uint32_t((in_k_loops[f.warp] * f.count + ran / 2) / ran);
    }
    if (count == 0) continue;
    static const std::vector<uint32_t> kNoPasses;
    const std::vector<uint32_t>& passes = f.warp < k.k_pass_events.size() ? k.k_pass_events[f.warp] : kNoPasses;
    const uint32_t traced_before = uint32_t(std::lower_bound(passes.begin(), passes.end(), e) - passes.begin());
    k.k_skips[f.warp].push_back({e, traced_before + skipped[f.warp] + 1, count});
    skipped[f.warp] += count;
  }
}

}  // namespace

std::shared_ptr<const LoadedKernel> open_kernel(const run::SimRequest& request,
                                                std::function<void(uint64_t, uint64_t)> progress,
                                                const std::atomic<bool>* cancel) {
  const auto t0 = std::chrono::steady_clock::now();
  auto k = std::make_shared<LoadedKernel>();
  k->request = request;
  k->request.trace = true;
  k->request.progress = {};
  k->request.cancel = nullptr;
  k->info = &kernels::kernel_or_throw(request.kernel_id);

  run::SimRequest sim = k->request;
  sim.progress = std::move(progress);
  sim.cancel = cancel;
  k->report = run::run_sim(sim);
  k->request.shape = k->report.shape;  // the resolved shape (example shape filled in)

  k->ptx = ptx::emit(k->report.kernel);
  k->ptx_lines = split_lines(k->ptx.text);
  k->inst_text.reserve(k->report.kernel.insts.size());
  for (const ir::Inst& inst : k->report.kernel.insts)
    k->inst_text.push_back(ptx::format_instruction(k->report.kernel, k->ptx.reg_names, inst));
  k->k_loops = find_k_loops(k->report.kernel);
  for (const LoopInfo& l : k->k_loops)
    for (uint32_t e : k->trace().executions_of(l.head)) {
      const uint16_t w = k->trace().events[e].warp;
      if (w >= k->k_pass_events.size()) k->k_pass_events.resize(size_t(w) + 1);
      k->k_pass_events[w].push_back(e);
    }
  for (std::vector<uint32_t>& events : k->k_pass_events) std::sort(events.begin(), events.end());
  find_k_skips(*k);
  k->open_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return k;
}

}  // namespace gs::gui
