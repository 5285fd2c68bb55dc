// See existing_store.h.
#include "orchestrator/cli/existing_store.h"

#include <filesystem>

namespace benchgate::cli {

Expected<std::unique_ptr<store::Store>> open_existing_store(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return Error{"no database at " + path + "; run `orchestrator run` first or pass --db"};
  }
  return store::Store::open(path);
}

}  // namespace benchgate::cli
