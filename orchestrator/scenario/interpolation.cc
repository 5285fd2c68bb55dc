// ${scenario_dir}, ${env:NAME} and ${port:NAME} substitution in scenario strings.
#include "orchestrator/scenario/interpolation.h"

#include <cctype>
#include <filesystem>
#include <system_error>
#include <utility>

#include "common/util/shown_text.h"

namespace benchgate::scenario {
namespace {

constexpr int kPortAttempts = 16;
constexpr std::string_view kForms = "${scenario_dir}, ${env:NAME} or ${port:NAME}";

bool is_env_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

bool is_port_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') {
      return false;
    }
  }
  return true;
}

}  // namespace

Interpolator::Interpolator(std::string scenario_dir, EnvLookup env, PortAllocator allocate_port,
                           bool submitted)
    : scenario_dir_(std::move(scenario_dir)),
      env_(std::move(env)),
      allocate_port_(std::move(allocate_port)),
      submitted_(submitted) {}

Expected<std::string> Interpolator::expand(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '$' || i + 1 >= text.size() || text[i + 1] != '{') {
      out += text[i++];
      continue;
    }
    const size_t close = text.find('}', i + 2);
    if (close == std::string_view::npos) {
      return Error{"unterminated '${' in \"" + shown_text(text) + "\" (expected " +
                   std::string(kForms) + ")"};
    }
    auto value = resolve(text.substr(i + 2, close - i - 2));
    if (!value) return value.error();
    out += *value;
    i = close + 1;
  }
  return out;
}

Expected<std::string> Interpolator::resolve(std::string_view expression) {
  // Refused before anything is looked up, so that not even an error message can carry a
  // value of the service's machine back to the client.
  if (expression == "scenario_dir") {
    if (submitted_) {
      return Error{
          "'${scenario_dir}' is not allowed in a scenario submitted to a service: "
          "the file has no folder on the service's machine"};
    }
    return scenario_dir_;
  }
  if (expression.starts_with("env:")) {
    const std::string name(expression.substr(4));
    if (!is_env_name(name)) {
      return Error{"'${env:" + shown_text(name) + "}' does not name an environment variable"};
    }
    if (submitted_) {
      return Error{"'${env:" + name +
                   "}' is not allowed in a scenario submitted to a service: it would read "
                   "the service's environment"};
    }
    auto value = env_ ? env_(name) : std::nullopt;
    if (!value)
      return Error{"environment variable '" + name + "' is not set (used as ${env:" + name + "})"};
    return *value;
  }
  if (expression.starts_with("port:")) {
    const std::string name(expression.substr(5));
    if (!is_port_name(name)) {
      return Error{"'${port:" + shown_text(name) +
                   "}' needs a NAME of letters, digits, '_', '-' or '.'"};
    }
    if (auto it = ports_.find(name); it != ports_.end()) return std::to_string(it->second);
    if (ports_.size() >= kMaxPortNames) {
      return Error{"'${port:" + name + "}' is one more distinct port name than the " +
                   std::to_string(kMaxPortNames) +
                   " a scenario may use (one per address of the systems it starts)"};
    }
    if (!allocate_port_) return Error{"no port allocator for ${port:" + name + "}"};
    // Each NAME its own port: two names given one number would let the second's readiness probe
    // reach the first's server.
    for (int attempt = 0; attempt < kPortAttempts; ++attempt) {
      auto port = allocate_port_();
      if (!port) return Error{"cannot allocate a port for ${port:" + name + "}: " + port.message()};
      if (!taken_.insert(*port).second) continue;
      ports_.emplace(name, *port);
      return std::to_string(*port);
    }
    return Error{"cannot allocate a port for ${port:" + name + "} that no other name has"};
  }
  return Error{"unknown interpolation '${" + shown_text(expression) + "}' (expected " +
               std::string(kForms) + ")"};
}

std::filesystem::path folder_of_scenario(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path file = fs::path(path).lexically_normal();
  const fs::path folder = file.parent_path();
  // /dev/stdin, /dev/fd/63 (what `<(generate)` names), /proc/self/fd/0: a descriptor the shell
  // handed on, whose "folder" holds none of the user's files.
  const bool descriptor =
      folder == "/dev" || folder == "/dev/fd" ||
      (folder.filename() == "fd" && folder.parent_path().parent_path() == "/proc");
  return descriptor ? fs::path() : folder;
}

std::string scenario_dir_of(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path dir = folder_of_scenario(path);
  if (dir.empty()) dir = ".";
  std::error_code ec;
  fs::path absolute = fs::absolute(dir, ec);
  if (ec) absolute = dir;
  std::string out = absolute.lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string path_beside_scenario(const std::string& scenario_file, const std::string& path) {
  std::filesystem::path p(path);
  if (p.is_absolute()) return path;
  return (folder_of_scenario(scenario_file) / p).lexically_normal().string();
}

}  // namespace benchgate::scenario
