// Ctrl-C and SIGTERM handling for the orchestrator: the signal only sets a flag; every wait
// in the engine polls it, so an interrupted run stops its children in order and records
// what it had.
#pragma once

#include <string>

namespace benchgate::app {

// Installs SIGINT/SIGTERM handlers (and ignores SIGPIPE). Call once from main.
void install_interrupt_handlers();
// True once SIGINT or SIGTERM arrived, or while the current run is cancelled.
bool interrupted();
// Why `serve` stopped the run in progress without a signal: its client cancelled it, or it
// ran past the service's --max-run-seconds. kNone clears it before the next run.
enum class RunStop { kNone, kCancelled, kTimeLimit };
void set_run_stopped(RunStop why);
// set_run_stopped(kCancelled) or (kNone).
void set_run_cancelled(bool cancelled);
// The signal that interrupted the run (0 when none).
int interrupt_signal();
// What stopped the run, for messages: "interrupted by signal 2 (Interrupt)", "cancelled
// through the service", or "stopped at the service's --max-run-seconds" (RunStop).
std::string interrupt_description();

}  // namespace benchgate::app
