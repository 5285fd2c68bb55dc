// See engine_fakes.h.
#include "engine_fakes.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "common/histogram/hdr_histogram.h"
#include "common/time/clock.h"
#include "common/workload/run_stream_end.h"

namespace benchgate::engine::testing {
namespace {

// A test set up wrongly: said once, and the test binary stops.
[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "engine_fakes: %s\n", what);
  std::abort();
}

// A window's result that holds together (window_merge checks it): 100 successes of 100 us,
// inside the window as planned.
v1::WindowResult consistent_result(const v1::Window& window) {
  constexpr uint64_t kOperations = 100;
  v1::WindowResult result;
  result.set_window(window.index());
  result.set_operations(kOperations);
  result.set_successes(kOperations);
  result.set_bytes_received(100 * kOperations);
  result.set_first_send_unix_ns(window.start_at_unix_ns());
  result.set_last_receive_unix_ns(window.start_at_unix_ns() + window.duration_ns());
  result.set_wall_ns(window.duration_ns());
  result.set_threads(1);
  HdrHistogram latency;
  latency.record_n(100'000, static_cast<int64_t>(kOperations));
  auto bytes = latency.encode_compressed();
  result.mutable_latency()->set_hdr_v2_compressed(std::string(bytes.begin(), bytes.end()));
  return result;
}

// A window's result in which nothing completed and nothing failed: no operation, an empty
// histogram, no send or receive instant.
v1::WindowResult idle_result(const v1::Window& window) {
  v1::WindowResult result;
  result.set_window(window.index());
  result.set_wall_ns(window.duration_ns());
  result.set_threads(1);
  auto bytes = HdrHistogram().encode_compressed();
  result.mutable_latency()->set_hdr_v2_compressed(std::string(bytes.begin(), bytes.end()));
  return result;
}

}  // namespace

std::optional<Error> FakeSut::failure() {
  ++*script_.failure_asked;
  std::lock_guard lock(mutex_);
  if (!death_ && paused_) {
    return Error{"router (pid 42) is stopped (SIGSTOP or a debugger) and serves nothing"};
  }
  return death_;
}

std::optional<Error> FakeSut::exited() {
  std::lock_guard lock(mutex_);
  return death_;
}

std::string FakeSut::stopped_since_last_call() {
  std::lock_guard lock(mutex_);
  if (!std::exchange(paused_since_last_call_, paused_)) return {};
  return "router (pid 42)";
}

void FakeSut::die(Error why) {
  std::lock_guard lock(mutex_);
  death_ = std::move(why);
}

void FakeSut::pause() {
  std::lock_guard lock(mutex_);
  paused_ = true;
  paused_since_last_call_ = true;
}

void FakeSut::resume() {
  std::lock_guard lock(mutex_);
  paused_ = false;
}

class FakePool::Service final : public v1::Worker::Service {
 public:
  Service(WorkerScript script, size_t index) : script_(std::move(script)), index_(index) {}

  grpc::Status Describe(grpc::ServerContext*, const v1::DescribeRequest*,
                        v1::DescribeResponse* response) override {
    response->set_name("fake worker");
    return grpc::Status::OK;
  }

  grpc::Status Run(grpc::ServerContext* context,
                   grpc::ServerReaderWriter<v1::RunEvent, v1::RunCommand>* stream) override {
    v1::RunCommand command;
    if (!stream->Read(&command) || !command.has_spec()) return grpc::Status::OK;
    if (script_.cannot_connect) {
      if (script_.marks_its_end) {
        context->AddTrailingMetadata(run_stream::kEndedByWorkerKey,
                                     run_stream::kEndedByWorkerValue);
      }
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "workload '" + command.spec().name() + "': cannot connect to " +
                              command.spec().address() + ": Connection refused");
    }
    if (!script_.silent.count(command.spec().name())) {
      v1::RunEvent ready;
      ready.mutable_ready()->set_connections(
          script_.ready_connections.value_or(command.spec().connections()));
      ready.mutable_ready()->set_threads(script_.ready_threads.value_or(command.spec().threads()));
      ready.mutable_ready()->set_clock_exchange(script_.clock_exchange);
      if (!stream->Write(ready)) return grpc::Status::OK;
    }
    // Until the engine half-closes the stream (the workload is over).
    while (stream->Read(&command)) {
      if (command.has_clock_probe()) {
        auto it = script_.windows.find(windows_);
        if (it != script_.windows.end() && it->second.die_at_probe.count(index_)) {
          return grpc::Status(grpc::StatusCode::UNAVAILABLE, "fake worker died");
        }
        if (it != script_.windows.end() && it->second.mute_at_probe.count(index_)) continue;
        v1::RunEvent reply;
        reply.mutable_clock_reply()->set_sequence(command.clock_probe().sequence());
        reply.mutable_clock_reply()->set_receive_ns(steady_now_ns());
        reply.mutable_clock_reply()->set_send_ns(steady_now_ns());
        if (!stream->Write(reply)) break;
        continue;
      }
      if (!command.has_window()) continue;
      const v1::Window& window = command.window();
      auto it = script_.windows.find(windows_++);
      bool idle = false;
      std::function<void(v1::WindowResult&)> alter;
      bool twice = false;
      if (it != script_.windows.end()) {
        alter = it->second.alter;
        twice = it->second.twice.count(index_) > 0;
        idle = it->second.idle;
        if (it->second.before) it->second.before();
        if (it->second.die.count(index_)) {
          return grpc::Status(grpc::StatusCode::UNAVAILABLE, "fake worker died");
        }
        if (!it->second.answer || it->second.mute.count(index_)) continue;
        if (it->second.progress) {
          v1::RunEvent progress;
          *progress.mutable_progress() = *it->second.progress;
          if (!stream->Write(progress)) break;
        }
      }
      v1::RunEvent event;
      *event.mutable_result() = idle ? idle_result(window) : consistent_result(window);
      if (alter) alter(*event.mutable_result());
      if (!stream->Write(event)) break;
      if (twice && !stream->Write(event)) break;
    }
    return grpc::Status::OK;
  }

 private:
  const WorkerScript script_;
  const size_t index_;
  std::atomic<uint32_t> windows_{0};
};

FakePool::FakePool(Script script) : script_(std::move(script)) {}

FakePool::~FakePool() {
  stubs_.clear();
  for (auto& server : servers_) {
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  }
}

Expected<void> FakePool::start(size_t count, std::chrono::steady_clock::time_point) {
  script_.starts->push_back(count);
  if (script_.start_error) return *script_.start_error;
  while (stubs_.size() < count) {
    services_.push_back(std::make_unique<Service>(script_.worker, stubs_.size()));
    grpc::ServerBuilder builder;
    builder.RegisterService(services_.back().get());
    servers_.push_back(builder.BuildAndStart());
    if (!servers_.back()) fail("cannot start an in-process gRPC server");
    stubs_.push_back(
        v1::Worker::NewStub(servers_.back()->InProcessChannel(grpc::ChannelArguments())));
  }
  return {};
}

Expected<std::string> FakePool::recover(bool after_failure, std::chrono::steady_clock::time_point) {
  script_.recovers->push_back(after_failure);
  if (script_.recover_fails_at > 0 &&
      static_cast<int>(script_.recovers->size()) >= script_.recover_fails_at) {
    return script_.recover_error;
  }
  return std::string(after_failure ? "replaced worker 0 (fake, after the failed workload)" : "");
}

std::unique_ptr<sut::SystemUnderTest> FakeFactories::system_under_test(
    const scenario::RouterConfig&, const sut::SutContext&) const {
  if (next_sut_ >= suts.size()) fail("the runner asked for more systems under test than scripted");
  auto made = std::make_unique<FakeSut>(suts[next_sut_++]);
  made_suts.push_back(made.get());
  return made;
}

std::unique_ptr<workers::WorkerPool> FakeFactories::spawning_pool(
    const workers::SpawnConfig& config) const {
  if (next_pool_ >= pools.size()) fail("the runner asked for more worker pools than scripted");
  pool_binaries.push_back(config.worker_binary);
  return std::make_unique<FakePool>(pools[next_pool_++]);
}

std::unique_ptr<workers::WorkerPool> FakeFactories::connecting_pool(const std::vector<std::string>&,
                                                                    const std::string&) const {
  if (next_pool_ >= pools.size()) fail("the runner asked for more worker pools than scripted");
  pool_binaries.push_back("(connecting)");
  return std::make_unique<FakePool>(pools[next_pool_++]);
}

}  // namespace benchgate::engine::testing
