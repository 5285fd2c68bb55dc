#include "worker/adapters/tool_args.h"

#include <algorithm>
#include <cctype>

namespace benchgate::worker::adapters {
namespace {

constexpr int64_t kMillisecond = 1'000'000;
constexpr int64_t kSecond = 1'000'000'000;

const char* name_of(ToolKind kind) { return kind == ToolKind::kH2load ? "h2load" : "wrk"; }

Error refuse(ToolKind kind, const WorkloadSpec& spec, const std::string& what) {
  return Error{"workload '" + spec.name + "': the " + name_of(kind) + " adapter cannot run " +
               what};
}

bool is_host(const std::string& name) {
  return name.size() == 4 && std::tolower(static_cast<unsigned char>(name[0])) == 'h' &&
         std::tolower(static_cast<unsigned char>(name[1])) == 'o' &&
         std::tolower(static_cast<unsigned char>(name[2])) == 's' &&
         std::tolower(static_cast<unsigned char>(name[3])) == 't';
}

}  // namespace

Expected<void> check_workload(ToolKind kind, const WorkloadSpec& spec) {
  if (spec.protocol != "http1") {
    return refuse(kind, spec, "protocol '" + spec.protocol + "' (it generates http1 only)");
  }
  if (spec.open_loop()) {
    return refuse(kind, spec, "the open loop (rate > 0): it runs the closed loop only");
  }
  const HttpRequestSpec& http = spec.http;
  if (http.method != "GET") {
    return refuse(kind, spec, "http.method '" + http.method + "' (GET only)");
  }
  if (http.request_body_bytes > 0) {
    return refuse(kind, spec, "a request body (http.request_body_bytes > 0)");
  }
  if (http.expect_echo) return refuse(kind, spec, "echo checks (http.expect_echo)");
  if (http.expect_status < 200 || http.expect_status > 299) {
    return refuse(kind, spec,
                  "http.expect_status " + std::to_string(http.expect_status) +
                      " (it only tells 2xx from other answers)");
  }
  if (http.target.empty() || http.target.front() != '/') {
    return refuse(kind, spec, "http.target '" + http.target + "' (it must start with '/')");
  }
  if (kind == ToolKind::kWrk && spec.in_flight > 1) {
    return refuse(kind, spec,
                  "in_flight " + std::to_string(spec.in_flight) + ": wrk does not pipeline");
  }
  return {};
}

Expected<void> check_window(ToolKind kind, const WindowCommand& window) {
  const int64_t unit = kind == ToolKind::kH2load ? kMillisecond : kSecond;
  if (window.duration_ns % unit != 0) {
    return Error{"window " + std::to_string(window.index) + ": the " + name_of(kind) +
                 " adapter cannot run a window of " + std::to_string(window.duration_ns) + " ns (" +
                 (kind == ToolKind::kH2load ? "h2load -D takes whole milliseconds"
                                            : "wrk -d takes whole seconds") +
                 ")"};
  }
  return {};
}

uint32_t tool_threads(const WorkloadSpec& spec) {
  return std::max<uint32_t>(1, std::min(spec.threads, spec.connections));
}

std::vector<std::string> tool_argv(const Tool& tool, const WorkloadSpec& spec, int64_t duration_ns,
                                   const std::string& wrk_script) {
  const bool h2load = tool.kind == ToolKind::kH2load;
  std::vector<std::string> argv{tool.path};
  auto add = [&](std::initializer_list<std::string> args) {
    argv.insert(argv.end(), args.begin(), args.end());
  };
  add({"-c", std::to_string(spec.connections), "-t", std::to_string(tool_threads(spec))});
  if (h2load) {
    add({"--h1", "-m", std::to_string(spec.in_flight), "-D",
         std::to_string(duration_ns / kMillisecond) + "ms"});
  } else {
    add({"-d", std::to_string(duration_ns / kSecond) + "s", "--latency", "-s", wrk_script});
  }
  // h2load sends its own Host (from the URL) and adds -H "Host" as a second one; it takes a
  // replacement only as the :authority pseudo-header. wrk replaces "Host" (capitalised).
  auto host_header = [&](const std::string& value) {
    return h2load ? ":authority: " + value : "Host: " + value;
  };
  std::string host = spec.http.host;
  for (const auto& [name, value] : spec.http.headers) {
    if (is_host(name)) host = value;
  }
  if (!host.empty()) add({"-H", host_header(host)});
  for (const auto& [name, value] : spec.http.headers) {
    if (!is_host(name)) add({"-H", name + ": " + value});
  }
  argv.push_back("http://" + spec.address + spec.http.target);
  return argv;
}

}  // namespace benchgate::worker::adapters
