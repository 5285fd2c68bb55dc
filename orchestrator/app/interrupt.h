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
// `serve` cancels the run in progress without a signal; cleared before the next run.
void set_run_cancelled(bool cancelled);
// The signal that interrupted the run (0 when none).
int interrupt_signal();
// What stopped the run, for messages: "interrupted by signal 2 (Interrupt)", or "cancelled
// through the service" when `serve` cancelled it without a signal.
std::string interrupt_description();

}  // namespace benchgate::app
