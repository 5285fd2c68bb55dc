#include "orchestrator/app/interrupt.h"

#include <signal.h>

#include <atomic>

namespace benchgate::app {
namespace {

std::atomic<int> g_signal{0};
std::atomic<bool> g_cancelled{false};

void on_signal(int sig) { g_signal.store(sig, std::memory_order_relaxed); }

}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

bool interrupted() {
  return g_signal.load(std::memory_order_relaxed) != 0 ||
         g_cancelled.load(std::memory_order_relaxed);
}

void set_run_cancelled(bool cancelled) { g_cancelled.store(cancelled, std::memory_order_relaxed); }

int interrupt_signal() { return g_signal.load(std::memory_order_relaxed); }

}  // namespace benchgate::app
