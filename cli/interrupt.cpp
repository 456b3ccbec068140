#include "cli/interrupt.hpp"

namespace gs::cli {

namespace {

// A signal handler may only touch lock-free atomics: one flag for the process, as SIGINT is.
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_sigint(int) { g_interrupted.store(true); }

}  // namespace

InterruptFlag::InterruptFlag() {
  g_interrupted.store(false);
  struct sigaction action {};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // a second Ctrl-C: the default action, the program ends
  sigaction(SIGINT, &action, &previous_);
}

InterruptFlag::~InterruptFlag() { sigaction(SIGINT, &previous_, nullptr); }

const std::atomic<bool>* InterruptFlag::flag() const { return &g_interrupted; }

}  // namespace gs::cli
