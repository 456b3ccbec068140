// gs::cuda isolation: run GPU work in a forked child under a time limit.
//
// A kernel that deadlocks on an mbarrier, executes `trap`, or faults leaves its CUDA context
// unusable (or never returns). Running it in a child process keeps the parent alive and clean:
// the child's context dies with the child, and the next job gets a fresh one.
//
// THE FORK RULE. CUDA is not fork-safe after cuInit: a child forked from a process that has
// initialised CUDA cannot use CUDA. So the process that calls run_isolated for GPU jobs must
// itself never touch the driver (no Driver::instance(), Context, list_devices, ...): every GPU
// call, even "is there a GPU?", happens inside a job. If the rule is broken, the child's
// Driver::instance().available() is false and its reason says so (the job then fails with that
// message rather than hanging). Driver::cuda_initialised() tells a caller whether the rule still
// holds. We chose fork (not exec of a helper binary) because jobs are ordinary C++ closures.
//
// Other notes:
//  * the child resets SIGSEGV/SIGBUS/SIGFPE/SIGILL/SIGABRT/SIGTRAP to their default action, so
//    a crash is reported as the signal even under sanitizers that would catch it;
//  * the child runs in its own process group, and the whole group is killed when the job ends
//    or times out (processes a job leaves behind do not outlive it);
//  * a job should return, not call exit(): exit() would run the parent's atexit handlers in the
//    child. The child always leaves with _exit();
//  * in a multi-threaded parent only the calling thread exists in the child; a job must not
//    wait for locks other threads might have held at fork time.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

namespace gs::cuda {

struct ChildResult {
  enum class Status {
    ok,         // the job returned; payload holds its result
    failed,     // the job threw (error = its message), or the child exited without a result
    timed_out,  // still running at the limit: killed with SIGKILL
    crashed,    // the child died of a signal (SIGSEGV, SIGABRT, ...)
  };
  Status status = Status::failed;
  std::string payload;  // the job's result; on failure, whatever part of it arrived
  std::string error;    // empty when ok
  int signal = 0;       // the signal that ended the child (SIGKILL after a timeout), else 0
  int exit_code = -1;   // the child's exit status when it exited normally, else -1
  double wall_s = 0.0;  // from fork to the end of the child

  bool ok() const { return status == Status::ok; }
};

// Runs job() in a forked child and waits at most `limit` for it. `what` names the job in
// messages ("kernel 'gemm_06'"). Throws std::system_error only if pipe() or fork() fails.
// Examples of `error`:
//   "job threw: CudaError ..."   (status failed; the exception's what())
//   "kernel 'spin' did not finish in 10 s: killed with SIGKILL. A kernel that never finishes
//    is usually waiting on an mbarrier phase that never completes (a deadlock) or spinning on
//    a flag; the CPU model can show where"                                  (status timed_out)
//   "job crashed: the child process was killed by SIGSEGV (Segmentation fault)" (crashed)
//   "job exited with status 3 before returning a result"                   (failed)
ChildResult run_isolated(std::function<std::string()> job, std::chrono::milliseconds limit,
                         std::string_view what = "job");

// "ok", "failed", "timed out", "crashed".
std::string_view to_string(ChildResult::Status status);

// "SIGSEGV" for 11, "signal 42" for names we do not know.
std::string signal_name(int signal);

}  // namespace gs::cuda
