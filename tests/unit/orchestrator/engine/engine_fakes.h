// Fakes of what the engine starts (orchestrator/engine/factories.h), so a unit test runs a
// scenario's failure paths in one process: a system under test that fails when told to, a
// worker pool whose workers are gRPC services in this process (in-process channels, no port),
// scripted window by window, and factories that hand them out in the order they are asked for.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "benchgate/v1/worker.grpc.pb.h"
#include "orchestrator/engine/factories.h"

namespace benchgate::engine::testing {

// A system under test that serves nothing itself (the fake workers never connect) and fails
// when a test says so: at start, or at any moment (die()), as a dead router reports itself; or
// is stopped for a while (pause(), resume()), as a router under SIGSTOP: failed, not exited.
class FakeSut : public sut::SystemUnderTest {
 public:
  struct Script {
    std::optional<Error> start_error;  // start() fails with it
    std::function<void()> on_start;    // called as it starts (what a real router spawns)
    // How often failure() was asked, kept for the test beyond the system's life.
    std::shared_ptr<std::atomic<int>> failure_asked = std::make_shared<std::atomic<int>>(0);
  };
  explicit FakeSut(Script script) : script_(std::move(script)) {}

  Expected<void> start(std::chrono::steady_clock::time_point) override {
    if (script_.on_start) script_.on_start();
    if (script_.start_error) return *script_.start_error;
    return {};
  }
  std::string address() const override { return "127.0.0.1:9"; }
  std::optional<Error> failure() override;
  std::optional<Error> exited() override;
  std::string stopped_since_last_call() override;
  Expected<std::optional<sut::MetricsSnapshot>> snapshot() override {
    return std::optional<sut::MetricsSnapshot>{};
  }
  void stop() override {}
  std::string description() const override { return "fake router"; }

  // From now on failure() and exited() say the router died with `why` (a worker thread may
  // call it).
  void die(Error why);
  // Until resume(), failure() says the router is stopped and exited() says nothing; the next
  // stopped_since_last_call() names it.
  void pause();
  void resume();

 private:
  Script script_;
  std::mutex mutex_;
  std::optional<Error> death_;
  bool paused_ = false;
  bool paused_since_last_call_ = false;
};

// What one fake worker does with a window: send its result, or first run `before` (kill the
// router, interrupt the run), or never answer. The workers (0-based) named in `die` end their
// stream with UNAVAILABLE instead, as a worker whose process was killed or whose host went
// away; the workers in `mute` never answer it (a hung or cut-off host).
struct WindowScript {
  std::function<void()> before;
  bool answer = true;
  std::set<size_t> die;
  std::set<size_t> mute;
  // Workers that end their stream (UNAVAILABLE) at the first clock probe before this window
  // (WorkerScript::clock_exchange).
  std::set<size_t> die_at_probe;
  // Workers that never answer the clock probes before this window (a frozen host).
  std::set<size_t> mute_at_probe;
  // Answered with a result that holds together but counts nothing: no operation completed and
  // none failed (a window that measured nothing).
  bool idle = false;
  // Changes the result before it is sent (a worker that breaks a rule of the protocol).
  std::function<void(v1::WindowResult&)> alter;
  // Sent before the result (a worker's Progress event).
  std::optional<v1::Progress> progress;
  // Workers that send their result twice, one right after the other (a protocol violation).
  std::set<size_t> twice;
};

// A fake pool's workers: ready (never, for the workloads named in `silent`), then the windows
// as they come, numbered over the pool's whole life (0 the first window its workers were sent,
// in whichever workload; a comparison runs each window as a workload of its own). A window
// with no script is answered with a small consistent result.
struct WorkerScript {
  std::set<std::string> silent;
  std::map<uint32_t, WindowScript> windows;
  // Ready says the workers answer clock probes (each at once, on the steady clock).
  bool clock_exchange = false;
  // Ready counts this many connections rather than those the spec asked for.
  std::optional<uint32_t> ready_connections;
  // Ready says the worker runs this many threads rather than those the spec asked for.
  std::optional<uint32_t> ready_threads;
  // Rather than Ready, the workers end their stream with UNAVAILABLE as one that cannot connect
  // does; `marks_its_end`: with the trailing metadata that says the worker ended it itself
  // (common/workload/run_stream_end.h), as the bundled worker does.
  bool cannot_connect = false;
  bool marks_its_end = false;
};

// A pool of in-process fake workers. The same script serves every workload it runs.
class FakePool : public workers::WorkerPool {
 public:
  struct Script {
    std::optional<Error> start_error;
    // recover() fails with this from its `recover_fails_at`-th call on (1-based; 0: never).
    int recover_fails_at = 0;
    Error recover_error;
    WorkerScript worker;
    // What every worker answers to Describe (empty: admits any workload).
    v1::DescribeResponse described;
    // after_failure of each recover() call, kept for the test beyond the pool's life.
    std::shared_ptr<std::vector<bool>> recovers = std::make_shared<std::vector<bool>>();
    // The count of each start() call.
    std::shared_ptr<std::vector<size_t>> starts = std::make_shared<std::vector<size_t>>();
    // How often failure() was asked, of any worker.
    std::shared_ptr<std::atomic<int>> failure_asked = std::make_shared<std::atomic<int>>(0);
  };
  explicit FakePool(Script script);
  ~FakePool() override;

  Expected<void> start(size_t count, std::chrono::steady_clock::time_point) override;
  size_t size() const override { return stubs_.size(); }
  v1::Worker::Stub& stub(size_t index) override { return *stubs_.at(index); }
  std::optional<Error> failure(size_t) override {
    ++*script_.failure_asked;
    return std::nullopt;
  }
  std::string name(size_t index) const override {
    return "worker " + std::to_string(index) + " at fake:" + std::to_string(index);
  }
  v1::DescribeResponse description(size_t) const override { return script_.described; }
  std::string command_line() const override { return "fake-worker --flag"; }

  Expected<std::string> recover(bool after_failure, std::chrono::steady_clock::time_point) override;
  void stop() override {}

 private:
  class Service;
  Script script_;
  // One in-process server per worker, so each counts its own windows and can die alone.
  std::vector<std::unique_ptr<Service>> services_;
  std::vector<std::unique_ptr<grpc::Server>> servers_;
  std::vector<std::unique_ptr<v1::Worker::Stub>> stubs_;
};

// Hands out the fakes in the order the runner asks for them, and keeps them (owned by the
// runner) visible to the test while the run lasts.
class FakeFactories : public Factories {
 public:
  std::deque<FakeSut::Script> suts;
  std::deque<FakePool::Script> pools;
  // Valid while the run that made them lasts (a script's `before` may use them).
  mutable std::vector<FakeSut*> made_suts;
  mutable std::vector<std::string> pool_binaries;  // SpawnConfig::worker_binary of each

  std::unique_ptr<sut::SystemUnderTest> system_under_test(const scenario::RouterConfig&,
                                                          const sut::SutContext&) const override;
  std::unique_ptr<workers::WorkerPool> spawning_pool(
      const workers::SpawnConfig& config) const override;
  std::unique_ptr<workers::WorkerPool> connecting_pool(const std::vector<std::string>&,
                                                       const std::string&) const override;

 private:
  mutable size_t next_sut_ = 0;
  mutable size_t next_pool_ = 0;
};

}  // namespace benchgate::engine::testing
