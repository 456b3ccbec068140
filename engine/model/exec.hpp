// The model's semantics, one exec_* function per op or per family of ops that share their
// semantics (ALU forms, loads and stores). ops.def names each op's function in its `exec`
// column and decode.cpp builds the dispatch table from that column, so this list and the
// table cannot drift apart: a function named there and not declared here does not compile.
//
// Each runs one warp-instruction for the lanes in ExecContext::mask (exec_context.hpp). A function
// that runs several ops names each one in its switch; an op routed to it that it does not
// name reaches not_handled, which throws the model's NotModelledError naming the op, the
// function and the instruction: the model never skips an instruction silently.
#pragma once

namespace gs::model {

struct ExecContext;

[[noreturn]] void not_handled(const ExecContext& x, const char* exec);

// The guard of an exec function that runs a fixed set of ops with if/else rather than a
// switch: throws (not_handled) unless the instruction's op is one of `ops`. First thing in
// the function, before any operand is read. (A template so that ExecContext may stay
// incomplete here.)
template <class Context, class... Ops>
inline void expect_op(const Context& x, const char* exec, Ops... ops) {
  if (((x.inst.op != ops) && ...)) not_handled(x, exec);
}

void exec_alu(ExecContext& x);      // integer/float arithmetic, logic, setp, selp, cvta
void exec_convert(ExecContext& x);  // cvt, cvt pack
void exec_memory(ExecContext& x);   // ld/st of param, global and shared memory
void exec_control(ExecContext& x);  // bra, ret, exit, trap

void exec_bar(ExecContext& x);    // bar.sync, bar.arrive
void exec_fence(ExecContext& x);  // fence.proxy.async, fence.mbarrier_init

void exec_mbarrier_init(ExecContext& x);
void exec_mbarrier_arrive(ExecContext& x);  // arrive, arrive.expect_tx, expect_tx
void exec_mbarrier_wait(ExecContext& x);    // try_wait.parity, test_wait.parity

void exec_tma_load(ExecContext& x);
void exec_tma_load_multicast(ExecContext& x);  // .multicast::cluster
void exec_tma_store(ExecContext& x);
void exec_bulk_group(ExecContext& x);           // cp.async.bulk.commit_group, cp.async.bulk.wait_group.read
void exec_tma_nothing_pending(ExecContext& x);  // prefetch.tensormap
void exec_createpolicy(ExecContext& x);         // createpolicy: an L2 cache policy for .L2::cache_hint

void exec_cluster(ExecContext& x);  // mapa, barrier.cluster.arrive/wait, fence.acq_rel.cluster

void exec_wgmma(ExecContext& x);  // fence, mma_async, commit_group, wait_group
void exec_mma(ExecContext& x);    // mma.sync
void exec_ldmatrix(ExecContext& x);  // ldmatrix .x1/.x2/.x4 (.trans): shared -> mma fragments
void exec_stmatrix(ExecContext& x);  // stmatrix .x1/.x2/.x4 (.trans): fragments -> shared

void exec_setmaxnreg(ExecContext& x);   // setmaxnreg.inc/.dec: the CTA's register pool
void exec_elect_sync(ExecContext& x);   // elect.sync: one leader lane

// alloc/dealloc/relinquish, mma, commit, ld/st 32x32b, wait::ld/st, fences (Blackwell)
void exec_tcgen05(ExecContext& x);

// clusterlaunchcontrol.try_cancel and its two queries: the grid's queue of clusters not yet
// launched (exec_launch_control.cpp, grid.cpp's launch-controlled run)
void exec_launch_control(ExecContext& x);
void exec_ld_shared_b128(ExecContext& x);  // ld.shared.b128: 16 bytes into a .b128 register

void exec_cp_async(ExecContext& x);  // cp.async.cg/.ca: global -> shared, asynchronously
void exec_cp_async_commit_group(ExecContext& x);
void exec_cp_async_wait_group(ExecContext& x);

}  // namespace gs::model
