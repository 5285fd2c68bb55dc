#include "worker/adapters/tool_session.h"

#include <fcntl.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "common/net/connect_within.h"
#include "common/time/clock.h"
#include "common/workload/adapter_limits.h"
#include "worker/adapters/h2load_output.h"
#include "worker/adapters/tool_args.h"
#include "worker/adapters/tool_runner.h"
#include "worker/adapters/wrk_output.h"
#include "worker/engine/validate.h"

namespace benchgate::worker::adapters {
namespace {

// Beyond the window's length, how long a tool may take to start and print its summary before
// it is killed (h2load and wrk stop on their own at the end of the duration).
constexpr std::chrono::seconds kToolGrace{10};

int64_t unix_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Sleeps until `unix_ns` in short steps so a cancel is noticed. False when cancelled.
bool wait_until(int64_t unix_ns, const ToolSession::CancelledFn& cancelled) {
  for (;;) {
    if (cancelled && cancelled()) return false;
    const int64_t left = unix_ns - unix_now_ns();
    if (left <= 0) return true;
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<int64_t>(left, 20'000'000)));
  }
}

Expected<std::string> write_script(std::string_view content) {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/benchgate-wrk-XXXXXX.lua";
  const int fd = ::mkstemps(path.data(), 4);
  if (fd < 0) return Error{"cannot create wrk's script file " + path + ": " + std::strerror(errno)};
  const bool written =
      ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
  ::close(fd);
  if (!written) {
    ::unlink(path.c_str());
    return Error{"cannot write wrk's script file " + path};
  }
  return path;
}

}  // namespace

Expected<void> probe_address(const std::string& address, int64_t timeout_ns) {
  auto host_port = split_address(address);
  if (!host_port) return host_port.error();
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(host_port->port);
  if (int rc = ::getaddrinfo(host_port->host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return Error{"cannot resolve " + address + ": " + ::gai_strerror(rc)};
  }
  std::string why = "no address";
  for (addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
    const int error = net::connect_within(ai->ai_addr, ai->ai_addrlen,
                                          std::chrono::milliseconds(timeout_ns / 1'000'000));
    if (error == 0) {
      ::freeaddrinfo(found);
      return {};
    }
    why = std::strerror(error);
  }
  ::freeaddrinfo(found);
  return Error{"cannot connect to " + address + ": " + why};
}

Expected<std::unique_ptr<ToolSession>> ToolSession::start(const Tool& tool,
                                                          const WorkloadSpec& spec) {
  const int64_t timeout =
      spec.connect_timeout_ns > 0 ? spec.connect_timeout_ns : kDefaultConnectTimeoutNs;
  if (auto reachable = probe_address(spec.address, timeout); !reachable) {
    return reachable.error();
  }
  std::unique_ptr<ToolSession> session(new ToolSession(tool, spec));
  if (tool.kind == ToolKind::kWrk) {
    auto path = write_script(kWrkSummaryScript);
    if (!path) return path.error();
    session->script_path_ = *path;
  }
  return session;
}

ToolSession::~ToolSession() {
  if (!script_path_.empty()) ::unlink(script_path_.c_str());
}

uint32_t ToolSession::threads() const { return tool_threads(spec_); }

std::vector<std::string> ToolSession::not_measured() const {
  // The request bytes (neither tool counts them), the data window (neither gives timestamps),
  // the latency histogram (tool_latency holds what they print instead) and the payload bytes
  // (they count response bytes with their headers).
  std::vector<std::string> names{"bytes_sent", "data_window", "latency", "payload_bytes"};
  // The error kinds the tool cannot detect (h2load's failed connects, either tool's body
  // lengths), as the scenario loader knows them.
  const auto tool =
      tool_.kind == ToolKind::kH2load ? adapter_limits::Tool::kH2load : adapter_limits::Tool::kWrk;
  for (std::string_view kind :
       adapter_limits::unmeasured_error_kinds(tool, spec_.http.expect_body_bytes >= 0)) {
    names.push_back("errors." + std::string(kind));
  }
  return names;
}

Expected<WindowResult> ToolSession::run_window(const WindowCommand& window,
                                               const CancelledFn& cancelled) {
  if (window.start_at_unix_ns > 0 && !wait_until(window.start_at_unix_ns, cancelled)) {
    return Error{"window " + std::to_string(window.index) + " stopped before it started"};
  }
  const int64_t started_unix_ns = unix_now_ns();
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + std::chrono::nanoseconds(window.duration_ns) + kToolGrace;
  auto run =
      run_tool(tool_argv(tool_, spec_, window.duration_ns, script_path_), deadline, cancelled);
  if (!run) return run.error();
  if (!run->succeeded()) {
    return Error{"window " + std::to_string(window.index) + ": " +
                 describe_failure(tool_.name, *run)};
  }
  auto figures =
      tool_.kind == ToolKind::kH2load ? parse_h2load_output(run->out) : parse_wrk_output(run->out);
  if (!figures) {
    std::string message = "window " + std::to_string(window.index) + ": " + figures.message();
    if (const std::string line = last_line(run->err); !line.empty()) {
      message += " (" + tool_.name + " stderr: " + line + ")";
    }
    return Error{message};
  }
  WindowResult result;
  result.window = window.index;
  result.operations = figures->operations;
  result.successes = figures->successes;
  result.errors = figures->errors;
  result.bytes_received = figures->bytes_received.value_or(0);
  // Both tools count what completed within their own duration (the window), as the bundled
  // worker's in_window figures do; neither counts payload bytes apart from headers.
  result.window_successes = result.successes;
  result.window_bytes_received = result.bytes_received;
  result.started_unix_ns = started_unix_ns;
  result.cpu_user_ns = run->cpu_user_ns;
  result.cpu_system_ns = run->cpu_system_ns;
  result.threads = threads();
  result.tool_latency = std::move(figures->latency);
  result.tls = std::move(figures->tls);
  result.tool_latency->tool = tool_.label();
  result.not_measured = not_measured();
  if (!figures->bytes_received) result.not_measured.push_back("bytes_received");
  result.wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::steady_clock::now() - started)
                       .count();
  return result;
}

}  // namespace benchgate::worker::adapters
