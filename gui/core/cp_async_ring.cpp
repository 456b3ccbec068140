#include "gui/core/cp_async_ring.hpp"

#include <algorithm>
#include <bit>
#include <map>

#include <fmt/format.h>

#include "engine/ir/ops.hpp"
#include "gui/core/kernel_cache.hpp"
#include "gui/core/shared_memory_data.hpp"

namespace gs::gui {

using model::EventKind;

namespace {

bool is_cp_async(ir::Op op) { return op == ir::Op::cp_async_cg || op == ir::Op::cp_async_ca; }

// The bytes one recorded cp.async writes, added to the group's fills by declared stage.
void add_fills(const ir::Kernel& kernel, const model::SmemAccess& a, std::vector<StageFill>& fills) {
  for (uint32_t m = a.mask; m; m &= m - 1) {
    const uint32_t addr = a.addr[std::countr_zero(m)];
    StageFill f;
    f.alloc = allocation_at(kernel, addr);
    if (f.alloc != kNone) {
      const ir::SharedAlloc& s = kernel.smem[f.alloc];
      f.stage = (addr - smem_window_base() - s.offset) / std::max(1u, s.stage_bytes());
    }
    const auto same = [&](const StageFill& x) { return x.alloc == f.alloc && x.stage == f.stage; };
    auto it = std::find_if(fills.begin(), fills.end(), same);
    if (it == fills.end()) it = fills.insert(fills.end(), f);
    it->bytes += a.bytes;
  }
}

std::string stages_text(const ir::Kernel& kernel, const std::vector<StageFill>& fills) {
  std::string out;
  for (const StageFill& f : fills) {
    if (!out.empty()) out += " ";
    if (f.alloc == kNone) {
      out += "(undeclared)";
      continue;
    }
    const ir::SharedAlloc& s = kernel.smem[f.alloc];
    out += s.stages > 1 ? fmt::format("{}[{}]", s.name, f.stage) : s.name;
  }
  return out.empty() ? "(empty)" : out;
}

}  // namespace

CpAsyncRing build_cp_async_ring(const LoadedKernel& k) {
  CpAsyncRing ring;
  const model::Trace& t = k.trace();
  const ir::Kernel& kernel = k.kernel();
  std::map<uint16_t, CpAsyncGroup> open;               // per warp: copies since its last commit
  std::map<uint16_t, std::vector<uint32_t>> in_flight;  // per warp: committed groups, oldest first
  std::map<uint16_t, uint32_t> committed;
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    const model::Event& e = t.events[i];
    if (e.kind == EventKind::smem_access && e.inst < kernel.insts.size() && is_cp_async(kernel.insts[e.inst].op) &&
        e.payload < t.smem.size()) {
      CpAsyncGroup& g = open[e.warp];
      g.copy_events.push_back(i);
      add_fills(kernel, t.smem[e.payload], g.fills);
      for (uint32_t m = t.smem[e.payload].mask; m; m &= m - 1) g.bytes += t.smem[e.payload].bytes;
    } else if (e.kind == EventKind::cp_async_commit) {
      CpAsyncGroup g = std::move(open[e.warp]);
      open.erase(e.warp);
      g.warp = e.warp;
      g.number = committed[e.warp]++;
      g.commit = i;
      g.stages_text = stages_text(kernel, g.fills);
      in_flight[e.warp].push_back(uint32_t(ring.groups.size()));
      ring.groups.push_back(std::move(g));
    } else if (e.kind == EventKind::cp_async_wait) {
      std::vector<uint32_t>& flying = in_flight[e.warp];
      const size_t retired = std::min<size_t>(e.a, flying.size());
      for (size_t r = 0; r < retired; ++r) {
        ring.groups[flying[r]].retire = i;
        ring.groups[flying[r]].wait_inst = e.inst;
      }
      flying.erase(flying.begin(), flying.begin() + ptrdiff_t(retired));
    }
  }
  for (const CpAsyncGroup& g : ring.groups)
    for (const StageFill& f : g.fills)
      if (f.alloc != kNone) ring.stages = std::max(ring.stages, kernel.smem[f.alloc].stages);
  return ring;
}

const CpAsyncRing& cp_async_ring(const std::shared_ptr<const LoadedKernel>& k) {
  return cached_for_kernel<CpAsyncRing>(k, build_cp_async_ring);
}

std::vector<CpAsyncWarpAt> cp_async_ring_at(const CpAsyncRing& ring, uint32_t position) {
  std::map<uint16_t, CpAsyncWarpAt> warps;
  for (uint32_t i = 0; i < ring.groups.size(); ++i) {
    const CpAsyncGroup& g = ring.groups[i];
    const bool started = !g.copy_events.empty() && g.copy_events.front() <= position;
    if (g.commit > position && !started) continue;  // nothing of it has happened yet
    CpAsyncWarpAt& w = warps[g.warp];
    w.warp = g.warp;
    if (g.commit > position) {  // its copies are issued, the commit is still to come
      for (uint32_t e : g.copy_events) w.uncommitted += e <= position ? 1 : 0;
    } else if (g.retire == kNone || g.retire > position) {
      w.in_flight.push_back(i);
    } else {
      ++w.retired;
    }
  }
  std::vector<CpAsyncWarpAt> out;
  for (auto& [warp, w] : warps) out.push_back(std::move(w));
  return out;
}

nlohmann::json cp_async_ring_json(const LoadedKernel& k, const CpAsyncRing& ring, uint32_t position) {
  nlohmann::json warps = nlohmann::json::array();
  for (const CpAsyncWarpAt& w : cp_async_ring_at(ring, position)) {
    nlohmann::json groups = nlohmann::json::array();
    for (uint32_t i : w.in_flight) {
      const CpAsyncGroup& g = ring.groups[i];
      groups.push_back({{"number", g.number},
                        {"stages", g.stages_text},
                        {"bytes", g.bytes},
                        {"copies", g.copy_events.size()},
                        {"commit_event", g.commit},
                        {"retire_event", g.retire == kNone ? nlohmann::json(nullptr) : nlohmann::json(g.retire)},
                        {"retired_by", g.wait_inst < k.inst_text.size() ? nlohmann::json(k.inst_text[g.wait_inst])
                                                                         : nlohmann::json(nullptr)}});
    }
    warps.push_back({{"warp", w.warp}, {"in_flight", groups}, {"uncommitted", w.uncommitted}, {"retired", w.retired}});
  }
  return {{"groups", ring.groups.size()}, {"stages", ring.stages}, {"warps", warps}};
}

}  // namespace gs::gui
