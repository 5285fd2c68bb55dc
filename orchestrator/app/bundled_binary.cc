// See bundled_binary.h.
#include "orchestrator/app/bundled_binary.h"

#include <cstdlib>
#include <filesystem>

namespace benchgate::app {

std::string bundled_binary(const std::string& given, const std::string& name,
                           const char* env_override) {
  if (!given.empty()) return given;
  if (const char* value = std::getenv(env_override); value && *value) return value;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto candidate = self.parent_path() / name;
    if (std::filesystem::exists(candidate)) return candidate.string();
  }
  return name;
}

bool spawns_bundled_worker(const std::string& worker_bin_flag) {
  const char* env = std::getenv("BENCHGATE_WORKER_BIN");
  return worker_bin_flag.empty() && (env == nullptr || *env == '\0');
}

}  // namespace benchgate::app
