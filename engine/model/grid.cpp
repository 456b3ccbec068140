// The grid of a launch on a pool of threads: every CTA (every cluster, for kernels with
// clusters of several CTAs) is a unit of work that no other unit reads or writes, but for C.
// Each unit keeps its statistics, hazards and tile visits apart, and the pool merges them in
// grid order, so a run on n threads gives what the single-threaded run gives, bit for bit:
//
//  * statistics are sums and maxima, merged in order;
//  * a hazard is kept at its first occurrence in grid order (the unit's own list is
//    deduplicated the same way), so the list and its order are the sequential run's;
//  * tile visits are appended unit by unit;
//  * the run stops at the first unit (in grid order) that fails, as the sequential run
//    does: units after it that a thread had already started are dropped;
//  * C: a unit's stores into C depend on A and B only, so units that write disjoint tiles
//    may run in any order. Where two units wrote the same tile (a deliberate mistake), or a
//    unit after a failure wrote C, the last writer in grid order must win: the pool then runs
//    those units again, in grid order (C restored first after a failure). This needs the
//    kernel's declared output tiling (ir::OutputTiling); a kernel without one runs on one
//    thread.
//
// The traced CTA's cluster is one unit and records into the one Trace; it runs on whichever
// thread takes it, alone.
#include "engine/model/grid.hpp"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

namespace gs::model {

namespace {

void reset_cta(Cta& c, const ir::Kernel& k) {
  const uint32_t threads = k.launch.threads();
  const uint32_t nwarps = (threads + 31) / 32;
  c.nregs = uint32_t(k.regs.size());
  c.warps.assign(nwarps, Warp{});
  for (uint32_t w = 0; w < nwarps; ++w) {
    c.warps[w].id = w;
    const uint32_t lanes = std::min<uint32_t>(32, threads - 32 * w);
    c.warps[w].present = lanes == 32 ? kAllLanes : ((1u << lanes) - 1);
    c.warps[w].uniform = true;
    c.warps[w].upc = 0;
  }
  const uint32_t entry_regs = entry_register_limit(k);
  for (Warp& w : c.warps) w.reg_limit = entry_regs;
  c.register_pool = registers_held(c);
  for (auto& keys : c.ready_key) keys.fill(Cta::kNotReady);
  c.pick.fill(Cta::kNoPick);
  c.stale_picks = 0xF;
  c.avx2 = cpu_has_avx2();
  c.one_warp_per_scheduler = nwarps <= 4;
  for (uint32_t w = 0; w < nwarps; ++w) c.push_ready(w, 0);
  c.regs.assign(size_t(nwarps) * c.nregs * 32, 0);
  c.regs_hi.clear();
  c.clc_saw_empty = false;
  c.written.assign(size_t(nwarps) * c.nregs, 0);
  c.wgmma_acc.assign(size_t(nwarps) * c.nregs, 0);
  c.reg_pending.assign(size_t(nwarps) * c.nregs, 0);
  for (Warp& w : c.warps) {
    w.regs = c.regs.data() + size_t(w.id) * c.nregs * 32;
    w.written = c.written.data() + size_t(w.id) * c.nregs;
  }
  const size_t words = (k.smem_bytes() + 3) / 4, bit_words = word_bits::words_for(words);
  c.smem.assign(k.smem_bytes(), 0);
  c.smem_word_state.assign(words, SmemWord{});
  c.smem_tensor_word.assign(words, SmemTensorWord{});
  // A cp.async landing leaves a word's release as it was: it starts at none.
  c.smem_write_release.assign(words, 0);
  // Read only where a pending bit, all clear above, is set by an issue that writes them first:
  // sized, not cleared (the bits of this interval are cleared at its first issue: copies_now,
  // as barrier_epoch starts again at 0 and cp_async_now_epoch matches none).
  c.cp_async_warp.resize(words);
  c.cp_async_now_bits.resize(bit_words);
  c.cp_async_now_epoch = ~0u;
  for (std::vector<uint64_t>* bits : {&c.smem_ready, &c.tma_pending_bits, &c.records_landed, &c.cp_async_pending_bits})
    bits->assign(bit_words, 0);
  c.smem_chunk_read.assign((k.smem_bytes() + 15) / 16, 0);
  ++c.smem_writes;  // the new CTA's window: no operand read before it stands
  c.unfenced_lo = ~0u;
  c.unfenced_hi = 0;
  c.barrier_epoch = 0;
  c.releases = 0;
  c.mbars.clear();
  c.tma_jobs.clear();
  c.tma_pending.clear();
  c.tmem.cells.clear();  // keeps its capacity: the next CTA's alloc zeroes it again
  c.tmem.allocations.clear();
  c.tmem.pending.fill(0);
  c.tmem.alloc_warp = kNone;
  c.tmem.relinquished = false;
  c.tmem.write_stamp.fill(0);
  c.tmem.read_stamp.clear();
  c.tmem.read_release.fill(0);
  c.tmem_mmas.clear();
  c.tmem_commits.clear();
  c.tmem_commit_clocks.clear();
  c.bar_arrived.fill(0);
  c.bar_expected.fill(0);
  c.scheduler_free.fill(0);
  c.imad_free.fill(0);
  c.tensor_free = c.copy_free = c.now = 0;
  c.data_path.reset();
  c.l1_data_fraction = 0;
  c.tag_path.reset();
  c.l1_tag_fraction = 0;
  c.copies_tagged.fill(0);
  c.wgmma_instances = {};
  c.wgmma_issue_free = 0;
  c.wgmma_ends = {};
  c.wgmma_count = 0;
  c.cost = {};
  c.recent_tiles.fill(kNone);
  c.tiles_visited = 0;
  c.loop_marks.assign(c.fast_forward ? c.fast_forward->loops.size() * nwarps : 0, LoopMark{});
  c.loop_extrapolated.assign(2, 0);
  c.loop_passes.assign(c.fast_forward ? c.fast_forward->loops.size() : 0, 0);
  c.loop_warps.assign(c.fast_forward ? c.fast_forward->loops.size() : 0, 0);
  c.loop_jump.assign(c.fast_forward ? c.fast_forward->loops.size() : 0, 0);
  c.loop_jump_instance.assign(c.fast_forward ? c.fast_forward->loops.size() : 0, 0);
  c.failed = false;
  c.failure.clear();
  c.blocked = c.started = c.paused = false;
  c.issued = 0;
}

// Whether CTA c (its ctaid and cluster rank set) is traced, and if so where its trace goes:
// the CTA the options name and, with clusters, every CTA of its cluster (`in_traced_cluster`).
void set_traced(Cta& c, const SimOptions& opt, bool in_traced_cluster, Trace& t) {
  const bool traced = opt.trace && in_traced_cluster;
  c.launch.traced = traced;
  c.launch.record_registers = traced && opt.record_registers;
  c.trace = traced ? &t : nullptr;
  if (!traced) return;
  const uint32_t warps = uint32_t(c.warps.size());
  c.launch.trace_warp_base = c.launch.cluster_rank * warps;
  if (c.launch.ctaid == opt.traced_cta) t.traced_cta = c.launch.cta_linear;
  t.warps_per_cta = warps;
  t.ctas.push_back({c.launch.ctaid, c.launch.cta_linear, c.launch.cluster_rank, c.launch.trace_warp_base});
  t.warps = warps * uint32_t(t.ctas.size());
}

// Runs the CTAs of one cluster together until all finish, through modeled time in steps of
// kClusterQuantum cycles: each round, every CTA runs its events up to the horizon (the earliest
// next event of any CTA, plus the quantum) and stops before the first past it (Cta::paused),
// or earlier when every live warp of it waits (Cta::blocked); a remote arrive, a multicast's
// bytes, a store into a peer's shared memory or barrier.cluster lets a blocked peer go on in
// the next round. So a peer's action at cycle t reaches a CTA that has not gone past t plus
// one quantum: the CTAs of a pair wait for each other's bytes and releases at nearly their
// own times (a CTA that ran on until it blocked would see a peer's release only at its own,
// later, clock: step 17's traced CTA took 71% more cycles than step 16's at 4096^3 that way).
// A round in which no CTA issued, completed or paused is a deadlock of the cluster.
void run_cluster(Cluster& cl, const SimOptions& opt) {
  std::vector<uint8_t> done(cl.ctas.size(), 0);
  uint64_t horizon = kClusterQuantum;
  for (;;) {
    bool progress = false, all_done = true, paused = false;
    uint64_t next_event = ~uint64_t(0);
    for (size_t r = 0; r < cl.ctas.size(); ++r) {
      if (done[r]) continue;
      Cta& c = *cl.ctas[r];
      const uint64_t before = c.issued;
      const size_t pending = c.tma_pending.size();
      const bool started = c.started;
      run_cta(c, opt, horizon);
      if (c.failed) return;
      done[r] = !c.blocked;
      all_done = all_done && done[r];
      progress = progress || done[r] || !started || c.issued != before || c.tma_pending.size() != pending;
      if (c.paused) {
        paused = true;
        next_event = std::min(next_event, c.next_event);
      }
    }
    if (all_done) return;
    if (paused) {  // the next round starts at the earliest next event
      horizon = std::max(horizon, next_event) + kClusterQuantum;
      continue;
    }
    uint64_t now = 0;
    for (const Cta* c : cl.ctas) now = std::max(now, c->now);
    // Warps that exited count as arrived at barrier.cluster: the last exit may release it.
    if (!progress && !cluster_barrier_check(cl, now)) {
      std::vector<Cta*> blocked;
      for (size_t r = 0; r < cl.ctas.size(); ++r)
        if (!done[r]) blocked.push_back(cl.ctas[r]);
      if (!blocked.empty()) report_deadlock(*blocked[0], std::span<Cta* const>(blocked).subspan(1));
      return;
    }
  }
}

// What one unit left, merged into the result in grid order.
struct UnitResult {
  SimStats stats;            // its counters (merged with add_counters)
  CSchedule schedule;        // its tile visits
  std::vector<Hazard> hazards;
  uint64_t ctas = 0, max_cycles = 0;
  bool holds_traced = false;  // the CTA the options name is in it
  timing::CtaCost traced_cost;
  bool failed = false;
  std::string error;
};

// Adds one unit's counters. Every counter of SimStats that the model increments must be here:
// the size check below fails when SimStats changes, as a reminder.
void add_counters(SimStats& into, const SimStats& s) {
  // traced_cost and prediction are filled by simulate() after the grid has run, not by units.
  static_assert(sizeof(SimStats) == 18 * 8 + sizeof(void*) + sizeof(timing::CtaCost) + sizeof(timing::Prediction),
                "SimStats changed: merge its new counters here");
  into.warp_instructions += s.warp_instructions;
  into.thread_instructions += s.thread_instructions;
  into.smem_accesses += s.smem_accesses;
  into.smem_wavefronts += s.smem_wavefronts;
  into.smem_ideal_wavefronts += s.smem_ideal_wavefronts;
  into.smem_bank_conflicts += s.smem_bank_conflicts;
  into.tensor_smem_reads += s.tensor_smem_reads;
  into.tensor_smem_wavefronts += s.tensor_smem_wavefronts;
  into.tensor_smem_bank_conflicts += s.tensor_smem_bank_conflicts;
  into.tma_transfers += s.tma_transfers;
  into.tma_bytes += s.tma_bytes;
  into.mma_ops += s.mma_ops;
}

// The units of the grid: clusters (of one CTA when the kernel has none) in the order the
// sequential run takes them, x fastest.
struct Units {
  std::array<uint32_t, 3> cdim{1, 1, 1};  // CTAs of a cluster per dimension
  std::array<uint32_t, 3> dim{1, 1, 1};   // clusters per dimension
  uint32_t size = 1;                      // CTAs per unit
  uint64_t traced = 0;                    // the unit holding the traced CTA
  uint64_t count() const { return uint64_t(dim[0]) * dim[1] * dim[2]; }
  std::array<uint32_t, 3> id(uint64_t u) const {
    return {uint32_t(u % dim[0]), uint32_t(u / dim[0] % dim[1]), uint32_t(u / (uint64_t(dim[0]) * dim[1]))};
  }
};

Units units_of(const ir::LaunchShape& L, const SimOptions& opt) {
  Units u;
  u.cdim = L.cluster;
  for (int d = 0; d < 3; ++d) u.dim[d] = L.grid[d] / u.cdim[d];
  u.size = u.cdim[0] * u.cdim[1] * u.cdim[2];
  const std::array<uint32_t, 3> t{opt.traced_cta[0] / u.cdim[0], opt.traced_cta[1] / u.cdim[1],
                                  opt.traced_cta[2] / u.cdim[2]};
  u.traced = t[0] + uint64_t(u.dim[0]) * (t[1] + uint64_t(u.dim[1]) * t[2]);
  return u;
}

// A thread's CTAs, reused from unit to unit.
struct Worker {
  std::vector<Cta> ctas;
  Cluster cluster;
  explicit Worker(uint32_t size) : ctas(size) {
    for (Cta& c : ctas) cluster.ctas.push_back(&c);
  }
};

// Sets up unit u on the worker's CTAs. `trace`: where the traced CTA records (nullptr: a replay,
// which records nothing).
void setup_unit(const GridLaunch& g, const Units& units, uint64_t u, const SimOptions& opt, Trace* trace, Worker& w,
                UnitResult& out) {
  const ir::Kernel& k = *g.kernel;
  const ir::LaunchShape& L = k.launch;
  const std::array<uint32_t, 3> cid = units.id(u);
  const bool holds_traced = u == units.traced;
  out.schedule = {k.output.tiles_m(), k.output.tiles_n(), k.output.tile_rows, k.output.tile_cols, {}};
  w.cluster.barrier_phase = 0;
  for (uint32_t r = 0; r < units.size; ++r) {
    Cta& c = w.ctas[r];
    c.launch = g.launch;
    c.stats = &out.stats;
    c.schedule = &out.schedule;
    c.hazards = &out.hazards;
    c.program = g.program;
    // Only a traced CTA run alone skips passes: a whole grid computes all of C.
    c.fast_forward = opt.fast_forward && opt.only_traced_cta && holds_traced ? g.fast_forward : nullptr;
    reset_cta(c, k);
    // %cluster_ctarank = x + cx * (y + cy * z) over the CTA's position in its cluster.
    const auto& cd = units.cdim;
    const std::array<uint32_t, 3> local{r % cd[0], r / cd[0] % cd[1], r / (cd[0] * cd[1])};
    for (int d = 0; d < 3; ++d) c.launch.ctaid[d] = cid[d] * cd[d] + local[d];
    const auto& id = c.launch.ctaid;
    c.launch.cta_linear = uint32_t(id[0] + L.grid[0] * (id[1] + L.grid[1] * id[2]));
    c.launch.cluster = &w.cluster;
    c.launch.cluster_rank = r;
    if (trace) {
      set_traced(c, opt, holds_traced, *trace);
    } else {
      c.trace = nullptr;
      c.launch.traced = c.launch.record_registers = false;
    }
  }
}

// What the unit's CTAs left, once they ran, into `out`.
void collect_unit(const SimOptions& opt, const Worker& w, UnitResult& out) {
  for (const Cta& c : w.ctas) {
    out.ctas++;
    out.max_cycles = std::max(out.max_cycles, c.cost.cycles);
    if (c.launch.ctaid == opt.traced_cta) {
      out.holds_traced = true;
      out.traced_cost = c.cost;
    }
    if (c.failed && !out.failed) {
      out.failed = true;
      out.error = fmt::format("CTA ({},{},{}): {}", c.launch.ctaid[0], c.launch.ctaid[1], c.launch.ctaid[2], c.failure);
    }
  }
}

// Runs unit u on the worker's CTAs (setup_unit, then run, then collect_unit).
void run_unit(const GridLaunch& g, const Units& units, uint64_t u, const SimOptions& opt, Trace* trace, Worker& w,
              UnitResult& out) {
  setup_unit(g, units, u, opt, trace, w, out);
  if (units.size == 1) run_cta(w.ctas[0], opt);
  else run_cluster(w.cluster, opt);
  collect_unit(opt, w, out);
}

// Merges the units in grid order, and finds which of them must run again for C to be the
// sequential run's: the writers of a tile that more than one unit wrote.
class Merger {
 public:
  Merger(SimResult& result, timing::CtaCost& traced_cost, const ir::OutputTiling& tiling)
      : result_(result), traced_cost_(traced_cost), writer_(size_t(tiling.tiles_m()) * tiling.tiles_n(), kNoUnit) {}

  // Merges unit u (the next in grid order). Returns false when it failed: nothing after it merges.
  bool merge(uint64_t u, UnitResult& r) {
    add_counters(result_.stats, r.stats);
    result_.stats.ctas += r.ctas;
    result_.stats.max_cta_cycles = std::max(result_.stats.max_cta_cycles, r.max_cycles);
    if (r.holds_traced) {
      traced_cost_ = r.traced_cost;
      result_.stats.traced_cta_cycles = r.traced_cost.cycles;
      traced_merged_ = true;
    }
    for (const TileVisit& v : r.schedule.visits) {
      result_.schedule.visits.push_back(v);
      if (v.tile >= writer_.size()) continue;
      uint64_t& w = writer_[v.tile];
      if (w != kNoUnit && w != u) {
        rerun_.push_back(w);
        rerun_.push_back(u);
      }
      w = u;
    }
    for (Hazard& h : r.hazards) {
      const auto same = [&](const Hazard& o) { return o.kind == h.kind && o.inst == h.inst; };
      if (std::none_of(result_.hazards.begin(), result_.hazards.end(), same)) result_.hazards.push_back(std::move(h));
    }
    ++merged_;
    if (r.failed) {
      result_.completed = false;
      result_.error = r.error;
      return false;
    }
    return true;
  }
  uint64_t merged() const { return merged_; }
  bool traced_merged() const { return traced_merged_; }
  // The units to run again, in grid order, each once.
  std::vector<uint64_t> reruns() {
    std::sort(rerun_.begin(), rerun_.end());
    rerun_.erase(std::unique(rerun_.begin(), rerun_.end()), rerun_.end());
    return rerun_;
  }

 private:
  static constexpr uint64_t kNoUnit = ~uint64_t(0);
  SimResult& result_;
  timing::CtaCost& traced_cost_;
  std::vector<uint64_t> writer_;  // per tile: the last unit merged that wrote it
  std::vector<uint64_t> rerun_;
  uint64_t merged_ = 0;
  bool traced_merged_ = false;
};

void mark_cancelled(SimResult& result) {
  result.completed = false;
  result.cancelled = true;
  result.error = "cancelled";
}

bool cancelled(const SimOptions& opt) { return opt.cancel && opt.cancel->load(); }

// One thread, unit after unit: the reference the pool must equal.
void run_sequential(const GridLaunch& g, const Units& units, const SimOptions& opt, SimResult& result, Merger& m) {
  Worker w(units.size);
  const uint64_t n = units.count(), total_ctas = opt.only_traced_cta ? units.size : n * units.size;
  for (uint64_t u = opt.only_traced_cta ? units.traced : 0; u < n; ++u) {
    if (cancelled(opt)) return mark_cancelled(result);
    UnitResult r;
    run_unit(g, units, u, opt, opt.trace ? &result.trace : nullptr, w, r);
    if (!m.merge(u, r)) return;
    if (opt.progress) opt.progress(m.merged() * units.size, total_ctas);
    if (opt.only_traced_cta) return;
  }
}

// Runs units again, in grid order, on one thread, keeping only what they write into C.
void rerun(const GridLaunch& g, const Units& units, const SimOptions& opt, const std::vector<uint64_t>& which) {
  Worker w(units.size);
  for (uint64_t u : which) {
    UnitResult discard;
    run_unit(g, units, u, opt, nullptr, w, discard);
  }
}

// Copies tile t of C from `from` into `to` (both the whole of C, row-major).
void restore_tile(const ir::OutputTiling& o, uint32_t t, std::span<const uint8_t> from, std::span<uint8_t> to) {
  const uint64_t r0 = uint64_t(t / o.tiles_n()) * o.tile_rows, c0 = uint64_t(t % o.tiles_n()) * o.tile_cols;
  const uint64_t cols = std::min<uint64_t>(o.tile_cols, o.cols - c0), row_bytes = uint64_t(o.cols) * o.elem_bytes;
  for (uint64_t r = r0; r < std::min<uint64_t>(r0 + o.tile_rows, o.rows); ++r) {
    const uint64_t at = r * row_bytes + c0 * o.elem_bytes, bytes = cols * o.elem_bytes;
    if (at + bytes <= from.size() && at + bytes <= to.size()) std::copy_n(from.data() + at, bytes, to.data() + at);
  }
}

// The unit that holds the CTA of linear id `cta`.
uint64_t unit_of(const Units& units, const ir::LaunchShape& L, uint32_t cta) {
  const std::array<uint32_t, 3> id{cta % L.grid[0], cta / L.grid[0] % L.grid[1], cta / (L.grid[0] * L.grid[1])};
  return id[0] / units.cdim[0] + uint64_t(units.dim[0]) * (id[1] / units.cdim[1] + uint64_t(units.dim[1]) * (id[2] / units.cdim[2]));
}

// Many threads take units in grid order; this thread merges them in that order as they
// finish, and reports progress every quarter second.
void run_pool(const GridLaunch& g, const Units& units, const SimOptions& opt, uint32_t threads, SimResult& result,
              Merger& m) {
  const uint64_t n = units.count();
  // C as it was before any store: a unit that ran past a failure is undone from it.
  const std::vector<uint8_t> c_before(g.c.begin(), g.c.end());
  std::mutex mutex;
  std::condition_variable finished;
  std::map<uint64_t, UnitResult> done;  // finished, not yet merged
  std::atomic<uint64_t> next{0};
  std::atomic<bool> stop{false};
  uint32_t running = threads;
  std::exception_ptr error;  // the first exception a thread met (out of memory), rethrown here
  const auto work = [&] {
    try {
      Worker w(units.size);
      for (;;) {
        if (stop.load() || cancelled(opt)) break;
        const uint64_t u = next.fetch_add(1);
        if (u >= n) break;
        UnitResult r;
        run_unit(g, units, u, opt, opt.trace ? &result.trace : nullptr, w, r);
        if (r.failed) stop = true;  // units before u were all taken already (taken in order)
        const std::lock_guard lock(mutex);
        done.emplace(u, std::move(r));
        finished.notify_one();
      }
    } catch (...) {
      stop = true;
      const std::lock_guard lock(mutex);
      if (!error) error = std::current_exception();
    }
    const std::lock_guard lock(mutex);
    --running;
    finished.notify_one();
  };
  std::vector<std::thread> pool;
  for (uint32_t t = 0; t < threads; ++t) pool.emplace_back(work);
  bool merging = true;
  // Merges the finished units that come next in grid order (the lock held).
  const auto merge_ready = [&](std::unique_lock<std::mutex>& lock) {
    while (merging && !done.empty() && done.begin()->first == m.merged()) {
      auto node = done.extract(done.begin());
      lock.unlock();
      merging = m.merge(node.key(), node.mapped());
      lock.lock();
    }
  };
  {
    std::unique_lock lock(mutex);
    for (bool last = false; !last;) {
      finished.wait_for(lock, std::chrono::milliseconds(250));
      last = running == 0;  // every unit taken is in `done` now
      merge_ready(lock);
      if (opt.progress) {
        lock.unlock();
        opt.progress(m.merged() * units.size, n * units.size);
        lock.lock();
      }
    }
  }
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  if (merging && m.merged() < n) mark_cancelled(result);
  // The traced unit ran past the end of the run: the sequential run never traced it.
  if (opt.trace && !m.traced_merged()) result.trace = Trace{};
  // Units after the end (a failure, a cancel) that wrote C: their tiles as they were, then
  // the merged units that wrote those tiles, again, with the writers of tiles that several
  // merged units wrote.
  const ir::OutputTiling& o = g.kernel->output;
  std::vector<uint8_t> dirty(size_t(o.tiles_m()) * o.tiles_n(), 0);
  for (const auto& [u, r] : done)
    for (const TileVisit& v : r.schedule.visits)
      if (v.tile < dirty.size() && !dirty[v.tile]) {
        dirty[v.tile] = 1;
        restore_tile(o, v.tile, c_before, g.c);
      }
  std::vector<uint64_t> again = m.reruns();
  for (const TileVisit& v : result.schedule.visits)
    if (v.tile < dirty.size() && dirty[v.tile]) again.push_back(unit_of(units, g.kernel->launch, v.cta));
  std::sort(again.begin(), again.end());
  again.erase(std::unique(again.begin(), again.end()), again.end());
  rerun(g, units, opt, again);
}

// A grid whose CTAs ask for work with clusterlaunchcontrol.try_cancel, launched as the GPU
// launches it: the first `resident` CTAs (units: launch control runs clusters of one CTA) start
// together and go through modeled time together, in rounds of kClusterQuantum cycles as a
// cluster's CTAs do (run_cluster), so that the try_cancels reach the grid's queue in the order of
// their modeled cycles (to within a quantum; within a round, in CTA order). Each successful
// try_cancel takes the lowest-numbered CTA not yet launched, which never runs; an empty queue
// answers "none cancelled". CTAs still queued when the wave ends (a kernel that stopped asking)
// launch after it, one after another, each from cycle 0 like any CTA the model runs alone; they
// may take queued CTAs too. One thread: the answers depend on every CTA's time, so the run is the
// same at any SimOptions::threads, and deterministic (the same inputs give the same C, hazards
// and answers). With only_traced_cta the traced CTA runs alone and the queue gives it every
// resident-th CTA after its own (the share it gets when every resident CTA asks at its pace): a
// prediction's assumption, stated in docs/architecture.md.
void run_launch_controlled(const GridLaunch& g, const Units& units, const SimOptions& opt, SimResult& result,
                           Merger& m) {
  if (units.size != 1)
    throw ModelError(fmt::format("the model runs clusterlaunchcontrol only for kernels without clusters; this "
                                 "kernel's clusters have {} CTAs",
                                 units.size));
  const uint64_t n = units.count();
  LaunchQueue queue;
  queue.grid = g.kernel->launch.grid;
  queue.end = n;
  Trace* trace = opt.trace ? &result.trace : nullptr;
  const uint64_t resident = std::clamp<uint64_t>(g.resident, 1, n);
  if (opt.only_traced_cta) {
    queue.next = units.traced + resident;
    queue.step = resident;
    Worker w(1);
    UnitResult r;
    setup_unit(g, units, units.traced, opt, trace, w, r);
    w.ctas[0].launch.launch_queue = &queue;
    run_cta(w.ctas[0], opt);
    collect_unit(opt, w, r);
    m.merge(units.traced, r);
    result.schedule.cancels = std::move(queue.answers);
    return;
  }
  queue.next = resident;
  std::vector<Worker> wave;
  wave.reserve(resident);
  std::vector<UnitResult> results(resident);
  for (uint64_t u = 0; u < resident; ++u) {
    wave.emplace_back(1);
    setup_unit(g, units, u, opt, trace, wave[u], results[u]);
    wave[u].ctas[0].launch.launch_queue = &queue;
  }
  std::vector<uint8_t> done(resident, 0);
  for (uint64_t horizon = kClusterQuantum;;) {
    if (cancelled(opt)) return mark_cancelled(result);
    bool all_done = true;
    uint64_t next_event = ~uint64_t(0);
    for (uint64_t u = 0; u < resident; ++u) {
      if (done[u]) continue;
      Cta& c = wave[u].ctas[0];
      run_cta(c, opt, horizon);
      done[u] = c.failed || !c.paused;  // finished, or failed (a deadlock, a hang)
      if (done[u]) continue;
      all_done = false;
      next_event = std::min(next_event, c.next_event);
    }
    if (all_done) break;
    horizon = std::max(horizon, next_event) + kClusterQuantum;
  }
  for (uint64_t u = 0; u < resident; ++u) {
    collect_unit(opt, wave[u], results[u]);
    if (!m.merge(u, results[u])) {
      result.schedule.cancels = std::move(queue.answers);
      return;
    }
  }
  wave.clear();
  Worker w(1);
  while (queue.next < queue.end) {
    if (cancelled(opt)) return mark_cancelled(result);
    const uint64_t u = queue.next++;
    UnitResult r;
    setup_unit(g, units, u, opt, trace, w, r);
    w.ctas[0].launch.launch_queue = &queue;
    run_cta(w.ctas[0], opt);
    collect_unit(opt, w, r);
    if (!m.merge(u, r)) break;
  }
  if (opt.progress) opt.progress(m.merged(), m.merged());
  result.schedule.cancels = std::move(queue.answers);
}

}  // namespace

bool uses_launch_control(const ir::Kernel& k) {
  return std::any_of(k.insts.begin(), k.insts.end(), [](const ir::Inst& i) { return i.op == ir::Op::clc_try_cancel; });
}

uint32_t grid_threads(uint32_t n) {
  if (n > 0) return n;
  return std::max(1u, std::thread::hardware_concurrency());
}

void run_grid(const GridLaunch& g, const SimOptions& opt, SimResult& result, timing::CtaCost& traced_cost) {
  const ir::Kernel& k = *g.kernel;
  const Units units = units_of(k.launch, opt);
  if (k.output.declared())
    result.schedule = {k.output.tiles_m(), k.output.tiles_n(), k.output.tile_rows, k.output.tile_cols, {}};
  Merger m(result, traced_cost, k.output);
  if (g.resident > 0) return run_launch_controlled(g, units, opt, result, m);
  const uint32_t threads = uint32_t(std::min<uint64_t>(grid_threads(opt.threads), units.count()));
  // Without a declared tiling the pool could not tell which units wrote the same part of C.
  if (opt.only_traced_cta || threads <= 1 || !k.output.declared()) {
    run_sequential(g, units, opt, result, m);
  } else {
    run_pool(g, units, opt, threads, result, m);
  }
}

}  // namespace gs::model
