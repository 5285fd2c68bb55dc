// --db-busy-timeout: a duration from 0s to 1h, in whole milliseconds (rounded up) for SQLite's
// busy handler.
#include "orchestrator/cli/db_busy_timeout.h"

#include <CLI/CLI.hpp>

#include "common/units/units.h"

namespace benchgate::cli {

Expected<int> parse_db_busy_timeout(const std::string& text) {
  constexpr int64_t kMaxNs = int64_t{3600} * 1'000'000'000;
  auto ns = parse_duration_ns(text);
  if (!ns || *ns < 0 || *ns > kMaxNs) {
    return Error{"--db-busy-timeout '" + text + "': expected a duration from 0s to 1h, such as 5s"};
  }
  return static_cast<int>((*ns + 999'999) / 1'000'000);  // 500us waits 1 ms, not none
}

void add_db_busy_timeout_option(CLI::App& command, std::string& value, DbUse use) {
  command
      .add_option("--db-busy-timeout", value,
                  use == DbUse::kWrites ? kDbBusyTimeoutHelp : kDbBusyTimeoutReadHelp)
      ->capture_default_str();
}

}  // namespace benchgate::cli
