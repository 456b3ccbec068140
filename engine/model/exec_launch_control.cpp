// Cluster launch control (sm_100a, step 24): clusterlaunchcontrol.try_cancel asks the grid's
// queue of clusters not yet launched (LaunchQueue, machine.hpp; filled by grid.cpp's
// launch-controlled run) for the next one; its answer lands in shared memory 16 bytes wide and
// completes 16 bytes on an mbarrier, like a TMA load. ld.shared.b128 reads the answer into a
// .b128 register and the two query_cancel forms decode it.
//
// The answer is opaque on the GPU (PTX ISA: "an opaque response"); the model's encoding, which
// no kernel can rely on since only the queries read it:
//   word 0  1 when a cluster was cancelled, 0 when none was left
//   word 1  that cluster's first CTA's ctaid.x (words 2 and 3: .y and .z)
// A .b128 register keeps its low 64 bits (words 0-1) in Cta::regs and its high 64 bits in
// Cta::regs_hi, at the same index.
//
// Mistakes the model names (hazards.def): reading the answer while it is still in flight
// (clc-response-before-complete), and a try_cancel after this CTA saw "none left"
// (clc-retry-after-empty, undefined in the PTX ISA).
#include <cstring>

#include <fmt/format.h>

#include "engine/ir/signature.hpp"
#include "engine/model/exec.hpp"
#include "engine/model/exec_context.hpp"
#include "engine/model/operands.hpp"

namespace gs::model {

namespace {

// The modeled time from a try_cancel to its answer landing (blackwell_facts.def, clc_latency:
// a model choice, no published figure).
constexpr uint32_t kClcLatency = 500;
constexpr uint32_t kResponseBytes = 16;

uint64_t& high_half(Cta& c, uint32_t warp, uint32_t reg, uint32_t lane) {
  if (c.regs_hi.size() != c.regs.size()) c.regs_hi.assign(c.regs.size(), 0);
  return c.regs_hi[(size_t(warp) * c.nregs + reg) * 32 + lane];
}

// The pending answer of a try_cancel of this CTA that covers shared bytes [addr, addr + 16), if any.
const TmaJob* answer_in_flight(const Cta& c, uint32_t addr) {
  for (const PendingTma& p : c.tma_pending) {
    const TmaJob& job = c.tma_jobs[p.record];
    if (job.clc_response && addr < job.smem_dst + kResponseBytes && job.smem_dst < addr + kResponseBytes) return &job;
  }
  return nullptr;
}

void try_cancel(ExecContext& x) {
  Cta& c = x.cta;
  Warp& w = x.warp;
  const auto ops = ir::clc_try_cancel_operands_of(x.inst);
  for (uint32_t l = 0; l < 32; ++l) {
    if (!(x.mask >> l & 1)) continue;
    const uint32_t response = memory_address32(x, ops.response, l);
    const uint32_t bar = memory_address32(x, ops.bar, l);
    if (!smem_ptr(x, response, kResponseBytes, l, true)) continue;
    if (c.clc_saw_empty)
      report(c, HazardKind::clc_retry_after_empty, x.inst_id, w.id, l, response,
             "clusterlaunchcontrol.try_cancel was issued after this CTA had already seen is_canceled false (no "
             "cluster left to cancel): the PTX ISA calls a request after a failed answer undefined. End the tile "
             "loop at the first answer that says none was cancelled, and ask no more");
    auto it = c.mbars.find(bar);
    if (it == c.mbars.end() || !it->second.initialized) {
      report(c, HazardKind::uninitialized_mbarrier, x.inst_id, w.id, l, bar,
             fmt::format("try_cancel completes its answer on {}, which was never initialised", barrier_name(c, bar)));
      continue;
    }
    TmaJob job;
    job.clc_response = true;
    job.smem_dst = response;
    job.mbar = bar;
    job.bytes = kResponseBytes;
    job.issue = c.now;
    job.complete = c.now + kClcLatency;
    job.inst = x.inst_id;
    job.warp = w.id;
    // Without a grid queue (a kernel run by the plain grid) nothing is waiting to launch.
    std::optional<uint64_t> got;
    if (c.launch.launch_queue) got = c.launch.launch_queue->take(c.launch.cta_linear, c.now, job.complete);
    if (got) {
      const std::array<uint32_t, 3>& g = c.launch.launch_queue->grid;
      job.response = {1, uint32_t(*got % g[0]), uint32_t(*got / g[0] % g[1]), uint32_t(*got / (uint64_t(g[0]) * g[1]))};
    }
    c.tma_jobs.push_back(job);
    c.tma_pending.push_back({job.complete, uint32_t(c.tma_jobs.size() - 1)});
  }
}

// The .b128 operand's 128 bits for lane l: words 0-3 of the answer.
std::array<uint32_t, 4> response_words(ExecContext& x, const ir::Operand& o, uint32_t lane) {
  Cta& c = x.cta;
  check_register_read(x, o.id, 1u << lane);
  const uint64_t lo = c.reg(x.warp.id, o.id, lane), hi = high_half(c, x.warp.id, o.id, lane);
  return {uint32_t(lo), uint32_t(lo >> 32), uint32_t(hi), uint32_t(hi >> 32)};
}

void query(ExecContext& x) {
  Cta& c = x.cta;
  const bool canceled_form = x.inst.op == ir::Op::clc_query_is_canceled;
  const ir::Operand& d = x.inst.operands[0];
  const ir::Operand& response = x.inst.operands[1];
  for (uint32_t l = 0; l < 32; ++l) {
    if (!(x.mask >> l & 1)) continue;
    const std::array<uint32_t, 4> words = response_words(x, response, l);
    if (canceled_form) {
      c.reg(x.warp.id, d.id, l) = words[0] != 0;
      if (words[0] == 0) c.clc_saw_empty = true;
    } else {
      c.reg(x.warp.id, d.id, l) = words[1];  // undefined on the GPU when nothing was cancelled
    }
  }
  note_register_write(x, d.id, x.mask);
}

}  // namespace

void exec_launch_control(ExecContext& x) {
  switch (x.inst.op) {
    case ir::Op::clc_try_cancel: return try_cancel(x);
    case ir::Op::clc_query_is_canceled:
    case ir::Op::clc_query_first_ctaid_x: return query(x);
    default: not_handled(x, "exec_launch_control");
  }
}

void exec_ld_shared_b128(ExecContext& x) {
  expect_op(x, "exec_ld_shared_b128", ir::Op::ld_shared_b128);
  Cta& c = x.cta;
  const ir::Operand& d = x.inst.operands[0];
  const ir::Operand& addr = x.inst.operands[1];
  std::array<uint32_t, 32> addrs{};
  for (uint32_t l = 0; l < 32; ++l) {
    if (!(x.mask >> l & 1)) continue;
    const uint32_t a = memory_address32(x, addr, l);
    addrs[l] = a;
    const uint8_t* p = smem_ptr(x, a, kResponseBytes, l, false);
    if (!p) continue;
    if (const TmaJob* job = answer_in_flight(c, a))
      report(c, HazardKind::clc_response_before_complete, x.inst_id, x.warp.id, l, a,
             fmt::format("ld.shared.b128 read the try_cancel answer at 0x{:X} at cycle {}, but it lands only at cycle "
                         "{}: the register holds the bytes from before (a stale or empty answer). Wait on {} before "
                         "loading the answer",
                         a, c.now, job->complete, barrier_name(c, job->mbar)));
    check_shared_words(x, a, kResponseBytes, l, false);
    uint64_t lo = 0, hi = 0;
    std::memcpy(&lo, p, 8);
    std::memcpy(&hi, p + 8, 8);
    c.reg(x.warp.id, d.id, l) = lo;
    high_half(c, x.warp.id, d.id, l) = hi;
  }
  account_shared(x, addrs, kResponseBytes, false);
  note_register_write(x, d.id, x.mask);
}

void complete_clc_response(Cta& c, const PendingTma& p) {
  const TmaJob& job = c.tma_jobs[p.record];
  const uint32_t at = job.smem_dst - timing::kSmemBaseAddress;
  if (uint64_t(at) + kResponseBytes <= c.smem.size()) std::memcpy(c.smem.data() + at, job.response.data(), kResponseBytes);
  ++c.smem_writes;  // the bytes and records below (Cta::smem_writes: a kept wgmma read of B must not outlive them)
  // The words as a TMA load leaves them: written by the async proxy, landed now.
  c.clear_tensor_reads(at / 4, std::min<uint32_t>((at + kResponseBytes) / 4, uint32_t(c.smem_word_state.size())),
                       c.releases + 1);
  for (uint32_t w = at / 4; w < (at + kResponseBytes) / 4 && w < c.smem_word_state.size(); ++w) {
    SmemWord& s = c.smem_word_state[w];
    if (!c.tma_pending_at(w)) c.set_ready(w, w + 1);
    s.written = true;
    s.writer_warp = SmemWord::kAsync;
    s.generic_since_fence = false;
  }
  auto it = c.mbars.find(job.mbar);
  if (it == c.mbars.end()) return;
  it->second.tx_count -= job.bytes;
  mbarrier_check_phase(c, job.mbar, p.complete_at);
}

}  // namespace gs::model
