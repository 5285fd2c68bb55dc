// See existing_store.h.
#include "orchestrator/cli/existing_store.h"

#include <filesystem>

#include "orchestrator/cli/db_busy_timeout.h"
#include "orchestrator/store/database_file.h"

namespace benchgate::cli {

Expected<std::unique_ptr<store::Store>> open_existing_store(const std::string& path,
                                                            const std::string& busy_timeout) {
  auto busy_timeout_ms = parse_db_busy_timeout(busy_timeout);
  if (!busy_timeout_ms) return busy_timeout_ms.error();
  if (auto ok = store::check_database_file_name(path); !ok) return ok.error();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return Error{"no database at " + path + "; run `orchestrator run` first or pass --db"};
  }
  if (auto ok = store::check_holds_a_store(path, *busy_timeout_ms); !ok) return ok.error();
  return store::Store::open(path, {.busy_timeout_ms = *busy_timeout_ms});
}

}  // namespace benchgate::cli
