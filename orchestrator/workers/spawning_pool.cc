// Worker processes spawned on this machine, each listening on a loopback port it chose. A
// worker that died, froze or took part in a failed workload is replaced by a fresh process
// at the same index, so one broken worker never poisons the workloads after it.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>

#include "common/security/token.h"

#include "orchestrator/grpc/channel.h"
#include "orchestrator/processes/child_process.h"
#include "orchestrator/sut/builtin_router.h"
#include "orchestrator/workers/worker_pool.h"

namespace benchgate::workers {
namespace {

using namespace std::chrono_literals;

// A worker being replaced has no work worth finishing: a short grace before SIGKILL.
constexpr auto kReplaceGrace = 1000ms;

class SpawningPool : public WorkerPool {
 public:
  explicit SpawningPool(SpawnConfig config) : config_(std::move(config)) {}
  ~SpawningPool() override { stop(); }

  Expected<void> start(size_t count, std::chrono::steady_clock::time_point deadline) override {
    // Spawn all first, then wait: workers start in parallel.
    for (size_t i = slots_.size(); i < count; ++i) {
      slots_.emplace_back();
      auto spawned = spawn(i);
      if (!spawned) return spawned;
    }
    for (size_t i = 0; i < count; ++i) {
      if (slots_[i].stub) continue;
      auto connected = connect(i, deadline);
      if (!connected) return connected;
    }
    return {};
  }

  size_t size() const override { return slots_.size(); }
  v1::Worker::Stub& stub(size_t index) override { return *slots_.at(index).stub; }
  v1::DescribeResponse description(size_t index) const override {
    return slots_.at(index).described;
  }
  std::string command_line() const override {
    std::string line = config_.worker_binary;
    for (const auto& arg : config_.extra_args) line += " " + arg;
    return line;
  }

  std::optional<Error> failure(size_t index) override {
    auto& process = *slots_.at(index).process;
    const std::string who = process.name() + " (pid " + std::to_string(process.pid()) + ")";
    if (process.stopped()) {
      return Error{who + " is stopped (SIGSTOP or a debugger) and answers nothing"};
    }
    if (process.running()) return std::nullopt;
    return Error{who + " " + process.exit_description(), ErrorKind::kFailed, process.stderr_tail()};
  }

  std::string stopped_since_last_call(size_t index) override {
    auto& process = *slots_.at(index).process;
    if (!process.stopped_since_last_call()) return {};
    return process.name() + " (pid " + std::to_string(process.pid()) + ")";
  }

  Expected<std::string> recover(bool after_failure,
                                std::chrono::steady_clock::time_point deadline) override {
    std::string done;
    std::vector<size_t> replaced;
    for (size_t i = 0; i < slots_.size(); ++i) {
      auto& process = *slots_[i].process;
      std::string why;
      if (!process.running()) {
        why = process.exit_description();
      } else if (process.stopped()) {
        why = "stopped";
      } else if (after_failure) {
        why = "after the failed workload";
      } else {
        continue;
      }
      done += (done.empty() ? "replaced " : ", ") + process.name() + " (pid " +
              std::to_string(process.pid()) + ", " + why + ")";
      slots_[i].stub.reset();
      process.stop(kReplaceGrace);
      auto spawned = spawn(i);
      if (!spawned) return spawned.error();
      replaced.push_back(i);
    }
    for (size_t i : replaced) {
      auto connected = connect(i, deadline);
      if (!connected) return connected.error();
    }
    return done;
  }

  void stop() override {
    for (auto& slot : slots_) slot.stub.reset();
    // SIGTERM to all first so they stop in parallel, then wait for each.
    for (auto& slot : slots_) {
      if (slot.process && slot.process->running()) {
        ::kill(slot.process->pid(), SIGTERM);
        ::kill(slot.process->pid(), SIGCONT);  // a frozen worker cannot act on SIGTERM
      }
    }
    for (auto& slot : slots_) {
      if (slot.process) slot.process->stop();
    }
    slots_.clear();
    // The workers that read it are gone; a later start() makes a new token.
    if (!token_file_.empty()) {
      std::error_code ec;
      std::filesystem::remove(token_file_, ec);
      token_file_.clear();
      token_.clear();
    }
  }

 private:
  struct Slot {
    std::unique_ptr<processes::ChildProcess> process;
    std::unique_ptr<v1::Worker::Stub> stub;
    v1::DescribeResponse described;  // its answer to Describe
    int generation = 0;  // 0 for the first process at this index, 1 for its replacement, ...
  };

  // The pool's token and its file, made at the first spawn (README "Security").
  Expected<void> make_token() {
    static std::atomic<unsigned> pools{0};
    auto token = security::random_token();
    if (!token) return token.error();
    const std::string path = config_.log_dir + "/worker-token-" + std::to_string(::getpid()) + "-" +
                             std::to_string(pools++);
    if (auto written = security::write_token_file(path, *token); !written) return written;
    token_ = std::move(token).value();
    token_file_ = path;
    return {};
  }

  Expected<void> spawn(size_t index) {
    if (config_.authenticate && token_.empty()) {
      if (auto made = make_token(); !made) return made;
    }
    Slot& slot = slots_[index];
    processes::SpawnOptions options;
    options.name = "worker " + std::to_string(index);
    options.executable = config_.worker_binary;
    // The command's own arguments first: the protocol appends --listen (docs/WORKER_PROTOCOL.md).
    options.args = config_.extra_args;
    options.args.insert(options.args.end(), {"--listen", "127.0.0.1:0"});
    if (!token_file_.empty())
      options.args.insert(options.args.end(), {"--token-file", token_file_});
    // A replacement keeps the log of the process it replaces: that log says what went wrong.
    const std::string suffix =
        slot.process ? ".restart-" + std::to_string(++slot.generation) : std::string();
    options.stderr_log =
        config_.log_dir + "/worker-" + std::to_string(index) + suffix + ".stderr.log";
    auto child = processes::ChildProcess::spawn(options);
    if (!child) return child.error();
    slot.process = std::move(child).value();
    return {};
  }

  Expected<void> connect(size_t index, std::chrono::steady_clock::time_point deadline) {
    Slot& slot = slots_[index];
    auto line = slot.process->wait_ready_line(deadline);
    if (!line) return line.error();
    if (auto wrong =
            sut::check_ready_line(slot.process->name(), *line, {"grpc"}, sut::kWorkerReadyForms);
        !wrong.empty()) {
      return Error{wrong};  // docs/WORKER_PROTOCOL.md, "Starting and readiness"
    }
    auto fields = sut::parse_ready_line(*line);
    auto stub = v1::Worker::NewStub(grpcutil::make_worker_channel(fields["grpc"], token_));
    auto described = describe_worker(*stub, slot.process->name(), deadline);
    if (!described) return described.error();
    slot.described = std::move(described).value();
    slot.stub = std::move(stub);
    return {};
  }

  SpawnConfig config_;
  std::vector<Slot> slots_;
  std::string token_;       // empty unless config_.authenticate
  std::string token_file_;  // 0600, in config_.log_dir
};

}  // namespace

std::unique_ptr<WorkerPool> make_spawning_pool(const SpawnConfig& config) {
  return std::make_unique<SpawningPool>(config);
}

}  // namespace benchgate::workers
