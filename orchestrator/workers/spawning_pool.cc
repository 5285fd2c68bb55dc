// Worker processes spawned on this machine, each listening on a loopback port it chose.
#include <signal.h>

#include <memory>

#include "orchestrator/grpc/channel.h"
#include "orchestrator/processes/child_process.h"
#include "orchestrator/sut/builtin_router.h"
#include "orchestrator/workers/worker_pool.h"

namespace benchgate::workers {
namespace {

class SpawningPool : public WorkerPool {
 public:
  explicit SpawningPool(SpawnConfig config) : config_(std::move(config)) {}
  ~SpawningPool() override { stop(); }

  Expected<void> start(size_t count, std::chrono::steady_clock::time_point deadline) override {
    // Spawn all first, then wait: workers start in parallel.
    for (size_t i = processes_.size(); i < count; ++i) {
      processes::SpawnOptions options;
      options.name = "worker " + std::to_string(i);
      options.executable = config_.worker_binary;
      options.args = {"--listen", "127.0.0.1:0"};
      options.args.insert(options.args.end(), config_.extra_args.begin(), config_.extra_args.end());
      options.stderr_log = config_.log_dir + "/worker-" + std::to_string(i) + ".stderr.log";
      auto child = processes::ChildProcess::spawn(options);
      if (!child) return child.error();
      processes_.push_back(std::move(child).value());
    }
    for (size_t i = stubs_.size(); i < count; ++i) {
      auto line = processes_[i]->wait_ready_line(deadline);
      if (!line) return line.error();
      auto fields = sut::parse_ready_line(*line);
      if (!fields.count("grpc")) {
        return Error{processes_[i]->name() + " printed an unexpected READY line: '" + *line + "'"};
      }
      stubs_.push_back(v1::Worker::NewStub(grpcutil::make_control_channel(fields["grpc"])));
      auto described = describe_worker(*stubs_.back(), processes_[i]->name(), deadline);
      if (!described) return described.error();
    }
    return {};
  }

  size_t size() const override { return stubs_.size(); }
  v1::Worker::Stub& stub(size_t index) override { return *stubs_.at(index); }

  std::string failure(size_t index) override {
    auto& process = *processes_.at(index);
    if (process.running()) return {};
    std::string tail = process.stderr_tail();
    return process.name() + " (pid " + std::to_string(process.pid()) + ") " +
           process.exit_description() + (tail.empty() ? "" : "; its stderr ends with:\n" + tail);
  }

  void stop() override {
    stubs_.clear();
    // SIGTERM to all first so they stop in parallel, then wait for each.
    for (auto& process : processes_) {
      if (process->running()) ::kill(process->pid(), SIGTERM);
    }
    for (auto& process : processes_) process->stop();
    processes_.clear();
  }

 private:
  SpawnConfig config_;
  std::vector<std::unique_ptr<processes::ChildProcess>> processes_;
  std::vector<std::unique_ptr<v1::Worker::Stub>> stubs_;
};

}  // namespace

std::unique_ptr<WorkerPool> make_spawning_pool(const SpawnConfig& config) {
  return std::make_unique<SpawningPool>(config);
}

}  // namespace benchgate::workers
