// Which process wrote a 'running' run, and whether that writer still exists, so that opening
// the store marks as abandoned only runs whose orchestrator is gone, never a run that another
// live process (or another Store in this process) is still measuring.
#pragma once

#include <cstdint>
#include <string>

namespace benchgate::store {

// A new id for a Store in this process, registered as live until release_instance().
uint64_t register_instance();
void release_instance(uint64_t instance);

// "host/pid/process start ticks/instance" of the calling process and a Store instance.
std::string owner_token(uint64_t instance);

// Whether the writer named by an owner token still runs: same host, a process with that pid
// and the same start time that has not exited (a zombie counts as gone), and, for this very
// process, a Store instance still open. Tokens
// from another host count as gone: SQLite's WAL mode does not work across hosts, so such a
// database was copied, not shared.
bool owner_alive(const std::string& token);

}  // namespace benchgate::store
