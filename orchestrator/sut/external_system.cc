#include "orchestrator/sut/external_system.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "common/process/process_stats.h"
#include "orchestrator/app/interrupt.h"

namespace benchgate::sut {

using namespace std::chrono_literals;

namespace {

bool try_connect(const std::string& host, uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) return false;
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

Expected<void> wait_for_tcp(const std::string& endpoint,
                            std::chrono::steady_clock::time_point deadline) {
  std::string target = endpoint;
  if (target.rfind("tcp://", 0) == 0) target = target.substr(6);
  auto colon = target.rfind(':');
  if (colon == std::string::npos) return Error{"readiness probe '" + endpoint + "' has no port"};
  std::string host = target.substr(0, colon);
  if (host == "localhost") host = "127.0.0.1";
  int port = std::atoi(target.c_str() + colon + 1);
  if (port <= 0 || port > 65535) return Error{"readiness probe '" + endpoint + "': bad port"};
  while (std::chrono::steady_clock::now() < deadline && !app::interrupted()) {
    if (try_connect(host, static_cast<uint16_t>(port))) return {};
    std::this_thread::sleep_for(20ms);
  }
  return Error{"nothing accepted connections on " + target + " before the deadline"};
}

ExternalSystem::ExternalSystem(const scenario::RouterConfig& config, const SutContext& context)
    : config_(config), context_(context) {}

ExternalSystem::~ExternalSystem() { stop(); }

Expected<void> ExternalSystem::start(std::chrono::steady_clock::time_point deadline) {
  if (config_.impl == scenario::RouterImpl::kCommand) {
    processes::SpawnOptions options;
    options.name = "system under test '" + config_.command.front() + "'";
    options.executable = config_.command.front();
    options.args.assign(config_.command.begin() + 1, config_.command.end());
    options.stderr_log = context_.log_dir + "/sut.stderr.log";
    options.capture_stdout = false;
    auto spawned = processes::ChildProcess::spawn(options);
    if (!spawned) return spawned.error();
    process_ = std::move(spawned).value();
  }
  auto ready = wait_for_tcp(config_.ready.empty() ? config_.address : config_.ready, deadline);
  if (!ready && process_ && !process_->running()) return Error{failure()};
  return ready;
}

std::string ExternalSystem::failure() {
  if (!process_) return {};
  if (process_->stopped()) {
    return process_->name() + " (pid " + std::to_string(process_->pid()) +
           ") is stopped (SIGSTOP or a debugger) and serves nothing";
  }
  if (process_->running()) return {};
  std::string tail = process_->stderr_tail();
  return process_->name() + " " + process_->exit_description() +
         (tail.empty() ? "" : "; its stderr ends with:\n" + tail);
}

std::string ExternalSystem::stopped_since_last_call() {
  if (!process_ || !process_->stopped_since_last_call()) return {};
  return process_->name() + " (pid " + std::to_string(process_->pid()) + ")";
}

Expected<std::optional<MetricsSnapshot>> ExternalSystem::snapshot() {
  if (!process_) return std::optional<MetricsSnapshot>{};
  auto cpu = process_cpu_times(process_->pid());
  auto rss = process_rss_bytes(process_->pid());
  if (!cpu || !rss)
    return Error{failure().empty() ? "cannot read /proc of the system under test" : failure()};
  MetricsSnapshot snapshot;
  snapshot.cpu_seconds = static_cast<double>(cpu->user_ns + cpu->system_ns) / 1e9;
  snapshot.rss_bytes = *rss;
  return std::optional<MetricsSnapshot>(std::move(snapshot));
}

void ExternalSystem::stop() {
  if (process_) process_->stop();
  process_.reset();
}

std::string ExternalSystem::description() const {
  if (config_.impl == scenario::RouterImpl::kCommand) return "command " + config_.command.front();
  return "external " + config_.address;
}

}  // namespace benchgate::sut
