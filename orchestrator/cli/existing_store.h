// Opening the database for a command that only reads or re-evaluates stored runs (gate, runs,
// baseline, compare, history changes): never creating it, and with one message per problem,
// so that every command says the same thing about the same --db.
#pragma once

#include <memory>
#include <string>

#include "common/util/expected.h"
#include "orchestrator/store/store.h"

namespace benchgate::cli {

// An error (for exit code 2, as `run` answers a --db it cannot open) when the file is missing
// or holds nothing (0 bytes, or a SQLite database without a table: nothing is written into
// it), or the store refuses it: no file (":memory:"), a folder, not SQLite, another program's
// database, read-only, locked while it is opened, too new; or when `busy_timeout` is no
// --db-busy-timeout.
Expected<std::unique_ptr<store::Store>> open_existing_store(const std::string& path,
                                                            const std::string& busy_timeout);

}  // namespace benchgate::cli
