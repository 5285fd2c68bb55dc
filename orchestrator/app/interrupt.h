// Ctrl-C and SIGTERM handling for the orchestrator: the signal only sets a flag; every wait
// in the engine polls it, so an interrupted run stops its children in order and records
// what it had.
#pragma once

namespace benchgate::app {

// Installs SIGINT/SIGTERM handlers (and ignores SIGPIPE). Call once from main.
void install_interrupt_handlers();
// True once SIGINT or SIGTERM arrived.
bool interrupted();
// The signal that interrupted the run (0 when none).
int interrupt_signal();

}  // namespace benchgate::app
