#include "orchestrator/sut/external_system.h"

#include "common/util/shell_words.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <optional>
#include <thread>

#include "common/net/connect_within.h"
#include "common/net/host_port.h"
#include "common/process/process_tree.h"
#include "common/units/units.h"
#include "common/util/errno_text.h"
#include "orchestrator/app/interrupt.h"
#include "orchestrator/sut/metrics_scrape.h"

namespace benchgate::sut {

using namespace std::chrono_literals;

namespace {

// The longest one connection attempt of a readiness probe may wait for an answer.
constexpr std::chrono::milliseconds kConnectTimeout = 1s;
// How long a program already accepting on a command's address has to stop before the command
// is refused.
constexpr std::chrono::milliseconds kGoneWithin = 1s;

// 0 when a connection was made within `timeout`, else the errno of the attempt.
int try_connect(const sockaddr_in& addr, std::chrono::milliseconds timeout) {
  return net::connect_within(reinterpret_cast<const sockaddr*>(&addr), sizeof addr, timeout);
}

// The IPv4 address of a readiness probe "HOST:PORT" or "tcp://HOST:PORT"; "HOST:PORT" for
// messages in `shown`.
Expected<sockaddr_in> probe_address(const std::string& endpoint, std::string* shown) {
  std::string target = endpoint;
  if (target.rfind("tcp://", 0) == 0) target = target.substr(6);
  // HOST:PORT by the parser every benchgate address is read by (common/net/host_port.h), as the
  // loader checked it.
  const net::HostPortSplit split = net::split_host_port(target, net::kDialMinPort);
  if (!split.ok()) {
    return Error{"readiness probe '" + endpoint + "' is not HOST:PORT: " + split.reason};
  }
  const std::string host = split.host == "localhost" ? "127.0.0.1" : split.host;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(split.port);
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    return Error{"readiness probe '" + endpoint + "': '" + host + "' is not an IPv4 address"};
  }
  *shown = std::move(target);
  return addr;
}

// Something that accepts on `probe` before the command runs is not the command: the readiness
// probe would pass at once and the run would measure that program (a server left from an
// earlier run, another program on a fixed port). A server of this run's that is still going
// away (a variant stopped a moment ago) has kGoneWithin, up to `deadline`, to stop accepting.
// `key`: the scenario key that gave the probe; `program`: the command's.
Expected<void> ensure_not_served(const std::string& probe, const char* key,
                                 const std::string& program,
                                 std::chrono::steady_clock::time_point deadline) {
  std::string target;
  auto address = probe_address(probe, &target);
  if (!address) return address.error();
  const auto until = std::min(std::chrono::steady_clock::now() + kGoneWithin, deadline);
  while (try_connect(*address, kConnectTimeout) == 0) {
    if (std::chrono::steady_clock::now() >= until) {
      return Error{target + " (the scenario's " + key + ") accepts connections before '" + program +
                   "' was started: another program listens there, which the run would "
                   "measure in its place; stop it, or choose another port (${port:NAME} "
                   "allocates a free one)"};
    }
    std::this_thread::sleep_for(20ms);
  }
  return {};
}

}  // namespace

Expected<void> wait_for_tcp(const std::string& endpoint, std::chrono::nanoseconds time_given,
                            std::chrono::steady_clock::time_point deadline,
                            const std::function<std::optional<Error>()>& gone,
                            std::string_view key) {
  std::string target;
  auto address = probe_address(endpoint, &target);
  if (!address) return address.error();
  const sockaddr_in addr = *address;
  int last_error = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (app::interrupted()) {
      return Error{"interrupted while waiting for " + target + " to accept connections",
                   ErrorKind::kInterrupted};
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    last_error = try_connect(addr, std::clamp(left, 1ms, kConnectTimeout));
    if (last_error == 0) return {};
    if (gone) {
      if (auto why = gone()) return *why;
    }
    std::this_thread::sleep_for(20ms);
  }
  if (gone) {
    if (auto why = gone()) return *why;
  }
  // The key that sets it is named, whether or not the scenario gave it.
  const std::string named = key.empty() ? "" : " (key '" + std::string(key) + "')";
  return Error{"nothing accepted connections on " + target + named + " within " +
               format_duration_ns(static_cast<double>(time_given.count())) + " (startup_timeout" +
               (last_error ? "; the last attempt: " + errno_text(last_error) : "") + ")"};
}

std::vector<std::pair<std::string, std::string>> readiness_probes(
    const scenario::RouterConfig& config) {
  if (config.key_where.count("ready") > 0 || config.address.empty()) {
    return {{config.ready.empty() ? config.address : config.ready, "ready"}};
  }
  std::vector<std::pair<std::string, std::string>> probes{{config.address, "address"}};
  for (const auto& [value, key] : {std::pair{&config.rawsocket_address, "rawsocket_address"},
                                   std::pair{&config.websocket_address, "websocket_address"}}) {
    const bool known = std::any_of(probes.begin(), probes.end(),
                                   [&](const auto& probe) { return probe.first == *value; });
    if (!value->empty() && !known) probes.emplace_back(*value, key);
  }
  return probes;
}

ExternalSystem::ExternalSystem(const scenario::RouterConfig& config, const SutContext& context)
    : config_(config), context_(context) {}

ExternalSystem::~ExternalSystem() { stop(); }

Expected<void> ExternalSystem::start(std::chrono::steady_clock::time_point deadline) {
  const auto began = std::chrono::steady_clock::now();
  const auto probes = readiness_probes(config_);
  if (config_.impl == scenario::RouterImpl::kCommand) {
    // A path to a program that is missing fails the start (a typo in a candidate build's path
    // must fail its run): one definition with [worker_impls.NAME] (child_process.h).
    if (auto problem = processes::program_path_problem(config_.command.front())) {
      return Error{*problem, ErrorKind::kFailed};
    }
    for (const auto& [probe, key] : probes) {
      if (auto unused = ensure_not_served(probe, key.c_str(), config_.command.front(), deadline);
          !unused) {
        return unused.error();
      }
    }
    if (app::interrupted()) {
      return Error{"interrupted before " + config_.command.front() + " was started",
                   ErrorKind::kInterrupted};
    }
    processes::SpawnOptions options;
    options.name = "system under test '" + config_.command.front() + "'";
    options.executable = config_.command.front();
    options.args.assign(config_.command.begin() + 1, config_.command.end());
    options.stderr_log = context_.log_dir + "/sut.stderr.log";
    options.capture_stdout = false;
    // A private folder for what the command writes (nginx's configuration copy, pid file and
    // temporary folders), removed with the logs after a run that went well.
    const std::string work_dir = context_.log_dir + "/sut";
    std::error_code ec;
    std::filesystem::create_directories(work_dir, ec);
    if (!ec) options.environment.push_back("BENCHGATE_SUT_DIR=" + work_dir);
    auto spawned = processes::ChildProcess::spawn(options);
    if (!spawned) return spawned.error();
    process_ = std::move(spawned).value();
  }
  // A command that exited will never accept: say so at once, with its exit status.
  std::function<std::optional<Error>()> gone;
  if (process_) {
    gone = [this]() -> std::optional<Error> {
      if (process_->running()) return std::nullopt;
      return Error{
          process_->name() + " " + process_->exit_description() + " before it accepted connections",
          ErrorKind::kFailed, process_->stderr_tail()};
    };
  }
  // Each in turn, within the one deadline: the workers connect to every one of them. A
  // transport address's timeout names its key: the address alone does not say which it is.
  for (const auto& [probe, key] : probes) {
    const bool transport = key == "rawsocket_address" || key == "websocket_address";
    if (auto ready = wait_for_tcp(probe, startup_time_given(config_, context_, began, deadline),
                                  deadline, gone, transport ? std::string_view(key) : "");
        !ready) {
      return ready;
    }
  }
  return {};
}

Expected<std::string> ExternalSystem::wamp_address(const std::string& transport) const {
  const std::string& own =
      transport == "rawsocket" ? config_.rawsocket_address : config_.websocket_address;
  return own.empty() ? config_.address : own;
}

std::string ExternalSystem::wamp_address_hint(const std::string& transport) const {
  const std::string key = transport == "rawsocket" ? "rawsocket_address" : "websocket_address";
  const std::string& own =
      transport == "rawsocket" ? config_.rawsocket_address : config_.websocket_address;
  if (!own.empty()) return {};
  const std::string name = transport == "rawsocket" ? "RawSocket" : "WebSocket";
  return "the scenario names no " + key + " for this " +
         (config_.impl == scenario::RouterImpl::kCommand ? "command" : "external") +
         " system, so its WAMP " + name + " workloads connect to its 'address' " + config_.address +
         ": where it serves " + name + " on another port, as the bundled router does on its --" +
         transport + " port, give key '" + key + "' = \"HOST:PORT\"";
}

std::optional<Error> ExternalSystem::failure() {
  if (process_ && process_->stopped()) {
    return Error{process_->name() + " (pid " + std::to_string(process_->pid()) +
                 ") is stopped (SIGSTOP or a debugger) and serves nothing"};
  }
  return exited();
}

std::optional<Error> ExternalSystem::exited() {
  if (!process_ || process_->running()) return std::nullopt;
  return Error{process_->name() + " " + process_->exit_description(), ErrorKind::kFailed,
               process_->stderr_tail()};
}

std::string ExternalSystem::stopped_since_last_call() {
  if (!process_ || !process_->stopped_since_last_call()) return {};
  return process_->name() + " (pid " + std::to_string(process_->pid()) + ")";
}

Expected<std::optional<MetricsSnapshot>> ExternalSystem::snapshot() {
  if (!process_ && config_.metrics.empty()) return std::optional<MetricsSnapshot>{};
  MetricsSnapshot snapshot;
  if (process_) {
    // The whole tree: a server such as nginx serves from worker processes, children of the one
    // spawned here.
    auto usage = process_tree_usage(process_->pid());
    if (!usage) {
      if (auto gone = failure()) return *gone;
      return Error{"cannot read /proc of the system under test"};
    }
    snapshot.has_resources = true;
    snapshot.cpu_seconds = static_cast<double>(usage->cpu_ns) / 1e9;
    snapshot.rss_bytes = usage->rss_bytes;
  }
  if (!config_.metrics.empty()) {
    // A scrape that fails fails the workload, as a failed control call of the bundled router
    // does: a window without its counters would look like one in which nothing was counted.
    auto scraped = scrape_counters(config_.metrics);
    if (!scraped) {
      if (auto gone = failure()) return *gone;  // the cause, not its symptom
      return scraped.error();
    }
    snapshot.has_counters = true;
    snapshot.counters = std::move(scraped->counters);
    snapshot.uncounted = std::move(scraped->uncounted);
  }
  return std::optional<MetricsSnapshot>(std::move(snapshot));
}

void ExternalSystem::stop() {
  if (process_) process_->stop();
  process_.reset();
}

std::string ExternalSystem::description() const {
  // The whole command line, as `runs show` and the reports list the command's binary: two
  // variants of one program differ in their arguments only.
  if (config_.impl == scenario::RouterImpl::kCommand) {
    return "command " + shell_words(config_.command);
  }
  return "external " + config_.address;
}

}  // namespace benchgate::sut
