#include "orchestrator/app/interrupt.h"

#include <signal.h>
#include <string.h>

#include <atomic>

namespace benchgate::app {
namespace {

std::atomic<int> g_signal{0};
std::atomic<RunStop> g_stopped{RunStop::kNone};

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
         g_stopped.load(std::memory_order_relaxed) != RunStop::kNone;
}

void set_run_stopped(RunStop why) { g_stopped.store(why, std::memory_order_relaxed); }

void set_run_cancelled(bool cancelled) {
  set_run_stopped(cancelled ? RunStop::kCancelled : RunStop::kNone);
}

int interrupt_signal() { return g_signal.load(std::memory_order_relaxed); }

std::string interrupt_description() {
  if (const int sig = interrupt_signal(); sig != 0) {
    return "interrupted by signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
  }
  switch (g_stopped.load(std::memory_order_relaxed)) {
    case RunStop::kCancelled:
      return "cancelled through the service";
    case RunStop::kTimeLimit:
      return "stopped at the service's --max-run-seconds";
    case RunStop::kNone:
      break;
  }
  return "not interrupted";
}

}  // namespace benchgate::app
