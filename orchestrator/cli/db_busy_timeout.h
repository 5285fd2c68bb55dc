// --db-busy-timeout of every command with --db: how long a write to the database waits for
// another writer's lock (another orchestrator, a `serve`, a reader holding a write transaction)
// before it gives up; reads go on beside a writer. A run whose workload could not be stored in
// that time says so and exits 3. A command that only reads writes only while it opens the
// database (a schema to bring up to date, runs to mark abandoned), so its help says that.
#pragma once

#include <string>

#include "common/util/expected.h"

namespace CLI {
class App;
}

namespace benchgate::cli {

inline constexpr const char* kDbBusyTimeoutHelp =
    "How long a write to the database waits for another writer's lock before it gives up "
    "(0s to 1h)";
inline constexpr const char* kDbBusyTimeoutReadHelp =
    "How long opening the database waits for another writer's lock when it must first bring "
    "the schema up to date or mark abandoned runs; reading goes on beside a writer (0s to 1h)";

// Whether a command writes to the database (run, gate, baseline add) or only reads it.
enum class DbUse { kWrites, kReadsOnly };

// The timeout in milliseconds (rounded up: 500us waits 1 ms), or an error naming the flag and
// the value.
Expected<int> parse_db_busy_timeout(const std::string& text);

// Adds --db-busy-timeout (default 5s) to `command`, into `value`, with the help of its use.
void add_db_busy_timeout_option(CLI::App& command, std::string& value, DbUse use = DbUse::kWrites);

}  // namespace benchgate::cli
