// fault_worker: a stand-in for the bundled worker that serves benchgate.v1.Worker and
// misbehaves on purpose, so the fault suites (tests/e2e/test_faults.py and
// test_faults_untimed.py) can check how the orchestrator copes with a worker that breaks the
// protocol. It generates no real load: a well-behaved window waits for its start instant and
// duration, then reports a small, consistent, made-up result.
//
//   fault_worker --listen 127.0.0.1:0 --mode MODE [--workload NAME] [--window N]
//                [--counter-file PATH] [--start-late-us N]
//
// Modes (the fault applies to the workload NAME, or to every workload without --workload):
//   well_behaved       every window gets a consistent result
//   never_ready        reads the spec, never answers ready, holds the stream open
//   malformed_count    window N's latency histogram holds one sample more than its successes
//   garbage_histogram  window N's latency histogram is random bytes, not HdrHistogram V2
//   other_layout       window N's latency histogram tracks 1 ns..1 s with 2 digits, not
//                      benchgate's 1 ns..1 h with 3
//   other_layout_progress  window N sends a Progress event before its result whose latency
//                      histogram tracks 1 ns..1 s with 2 digits (no other window sends
//                      progress; every result is in benchgate's layout)
//   exit_in_window     the process exits with status 1 when window N's command arrives, as a
//                      worker killed mid-window (its stream ends, the process is gone)
//   exit_at_start      exits with status 1 before printing READY
//   errors_in_window   window N reports 500 "status" errors besides its 100 successes
//   hidden_errors      window N reports 300 operations, its 100 successes and no error: the
//                      200 failed operations are counted under no error kind
//   inflated_in_window window N reports 300 successes inside the window (in_window) of its 100
//                      successes in all
//   negative_cpu       window N reports -5 ns of user CPU over a wall time of -1000 ns
//   slow_window        window N's 100 successes took 10 ms each instead of 100 us
//   busy_thread        every window reports two load threads (thread CPU clocks): in window
//                      N one was on a CPU for exactly 90% of the window, in the others for
//                      89.9%; the other thread 10%, and never waiting for a CPU. The
//                      process CPU is their sum, half of two threads' capacity
//   alternate_runs     a testbed whose speed changes between runs: the worker counts its
//                      starts in --counter-file; in every odd-numbered start (the 2nd, 4th,
//                      ...) all windows' successes took 130 us instead of 100 us
//   wild_window        a paired gate's wild pair: every measured window's successes took
//                      110 us, except the Nth measured window of the process (counted over
//                      all its Run streams, from 1: a comparison runs each window on a stream
//                      of its own), whose took 10 us
//
// --start-late-us N: every result says the worker started its window N us after the start
// instant (started_unix_ns), so that the orchestrator's per-worker start skew tells the workers
// apart; without it no start is reported.
#include <grpcpp/grpcpp.h>
#include <pthread.h>
#include <signal.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "benchgate/v1/worker.grpc.pb.h"
#include "common/histogram/hdr_histogram.h"

namespace {

using namespace std::chrono_literals;
namespace v1 = benchgate::v1;

struct Fault {
  std::string mode = "well_behaved";
  std::string workload;        // empty: every workload
  uint32_t window = 1;         // window index (0 is the warm-up when there is one)
  bool slow_process = false;   // alternate_runs: this start is an odd-numbered one
  int64_t start_late_us = -1;  // < 0: started_unix_ns not reported
};

int64_t unix_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Sleeps until `unix_ns`, waking early when the orchestrator cancels the stream.
void sleep_until_unix(int64_t unix_ns, grpc::ServerContext& context) {
  while (!context.IsCancelled()) {
    const int64_t left = unix_ns - unix_now_ns();
    if (left <= 0) return;
    std::this_thread::sleep_for(
        std::min(std::chrono::nanoseconds(left), std::chrono::nanoseconds(10ms)));
  }
}

// Two load threads over the window, the busier at 90% of it (saturated: docs/MEASUREMENT.md
// "Flags") in the faulty window and just below elsewhere. Exact tenths of the window, so the
// orchestrator's shares are exactly 0.9 and 0.899.
void add_busy_threads(v1::WindowResult& result, int64_t window_ns, bool faulty) {
  const int64_t busy = faulty ? window_ns / 10 * 9 : window_ns / 1000 * 899;
  const int64_t other = window_ns / 10;
  for (int64_t cpu : {busy, other}) {
    auto* thread = result.add_thread_cpu();
    thread->set_cpu_ns(cpu);
    thread->set_run_delay_ns(0);
    thread->set_wall_ns(window_ns);
  }
  result.set_threads(2);
  result.set_cpu_user_ns(busy + other);
}

v1::WindowResult window_result(const v1::Window& window, const Fault& fault, bool faulty) {
  constexpr uint64_t kOperations = 100;
  v1::WindowResult result;
  result.set_window(window.index());
  const bool errors = faulty && fault.mode == "errors_in_window";
  result.set_operations(kOperations + (errors ? 500 : 0));
  result.set_successes(kOperations);
  result.set_bytes_received(100 * kOperations);
  if (errors) (*result.mutable_errors())["status"] = 500;
  if (faulty && fault.mode == "hidden_errors") result.set_operations(3 * kOperations);
  if (faulty && fault.mode == "inflated_in_window") {
    result.mutable_in_window()->set_successes(3 * kOperations);
  }
  if (fault.start_late_us >= 0) {
    result.set_started_unix_ns(window.start_at_unix_ns() + fault.start_late_us * 1000);
  }
  result.set_first_send_unix_ns(window.start_at_unix_ns());
  result.set_last_receive_unix_ns(window.start_at_unix_ns() + window.duration_ns());
  result.set_wall_ns(window.duration_ns());
  result.set_threads(1);
  if (faulty && fault.mode == "negative_cpu") {
    result.set_cpu_user_ns(-5);
    result.set_wall_ns(-1000);
  }
  benchgate::HdrHistogram latency = faulty && fault.mode == "other_layout"
                                        ? benchgate::HdrHistogram(1, 1'000'000'000, 2)
                                        : benchgate::HdrHistogram();
  const bool slow = faulty && fault.mode == "slow_window";
  int64_t each = slow ? 10'000'000 : fault.slow_process ? 130'000 : 100'000;
  if (fault.mode == "wild_window") each = faulty ? 10'000 : 110'000;
  latency.record_n(each, static_cast<int64_t>(kOperations));
  if (faulty && fault.mode == "malformed_count") latency.record(200'000);
  auto bytes = latency.encode_compressed();
  std::string blob(bytes.begin(), bytes.end());
  if (fault.mode == "busy_thread") add_busy_threads(result, window.duration_ns(), faulty);
  if (faulty && fault.mode == "garbage_histogram") {
    blob = "\x13\x37garbage, not an HdrHistogram";
  }
  result.mutable_latency()->set_hdr_v2_compressed(blob);
  return result;
}

class FaultyWorker final : public v1::Worker::Service {
 public:
  explicit FaultyWorker(Fault fault) : fault_(std::move(fault)) {}

  grpc::Status Describe(grpc::ServerContext*, const v1::DescribeRequest*,
                        v1::DescribeResponse* response) override {
    response->set_name("benchgate-fault-worker");
    response->set_version(fault_.mode);
    response->add_protocols("http1");
    response->add_load_models("closed");
    response->add_load_models("open");
    response->set_max_threads(1);
    return grpc::Status::OK;
  }

  grpc::Status Run(grpc::ServerContext* context,
                   grpc::ServerReaderWriter<v1::RunEvent, v1::RunCommand>* stream) override {
    v1::RunCommand command;
    if (!stream->Read(&command) || !command.has_spec()) return grpc::Status::OK;
    const bool target = fault_.workload.empty() || command.spec().name() == fault_.workload;
    std::fprintf(stderr, "fault_worker: workload '%s'%s\n", command.spec().name().c_str(),
                 target ? (" gets fault " + fault_.mode).c_str() : "");
    if (target && fault_.mode == "never_ready") {
      while (stream->Read(&command)) {
      }
      return grpc::Status::OK;
    }
    v1::RunEvent ready;
    ready.mutable_ready()->set_connections(command.spec().connections());
    ready.mutable_ready()->set_threads(1);
    if (!stream->Write(ready)) return grpc::Status::OK;
    while (stream->Read(&command)) {
      if (!command.has_window()) {
        return {grpc::StatusCode::INVALID_ARGUMENT, "expected a Window command"};
      }
      const auto& window = command.window();
      const uint32_t measured = window.measured() ? ++measured_windows_ : 0;
      const bool faulty = fault_.mode == "wild_window" ? measured == fault_.window
                                                       : window.index() == fault_.window;
      if (target && faulty && fault_.mode == "exit_in_window") {
        std::fprintf(stderr, "fault_worker: exiting in window %u, as asked\n", window.index());
        std::fflush(stderr);
        std::_Exit(1);
      }
      sleep_until_unix(window.start_at_unix_ns() + window.duration_ns(), *context);
      if (target && faulty && fault_.mode == "other_layout_progress") {
        v1::RunEvent progress;
        progress.mutable_progress()->set_window(window.index());
        progress.mutable_progress()->set_operations(100);
        progress.mutable_progress()->set_interval_ns(window.duration_ns());
        benchgate::HdrHistogram other(1, 1'000'000'000, 2);
        other.record_n(100'000, 100);
        auto bytes = other.encode_compressed();
        progress.mutable_progress()->mutable_latency()->set_hdr_v2_compressed(
            std::string(bytes.begin(), bytes.end()));
        if (!stream->Write(progress)) break;
      }
      v1::RunEvent event;
      *event.mutable_result() = window_result(window, fault_, target && faulty);
      if (!stream->Write(event)) break;
    }
    return grpc::Status::OK;
  }

 private:
  Fault fault_;
  std::atomic<uint32_t> measured_windows_{0};  // wild_window: over every Run stream
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"benchgate fault_worker: a Worker that misbehaves on purpose (tests only)"};
  std::string listen = "127.0.0.1:0";
  Fault fault;
  app.add_option("--listen", listen, "HOST:PORT of the gRPC service")->capture_default_str();
  app.add_option("--mode", fault.mode, "The fault")
      ->check(CLI::IsMember({"well_behaved", "never_ready", "malformed_count", "garbage_histogram",
                             "other_layout", "exit_at_start", "errors_in_window", "hidden_errors",
                             "inflated_in_window", "negative_cpu", "slow_window", "busy_thread",
                             "alternate_runs", "wild_window", "other_layout_progress",
                             "exit_in_window"}))
      ->capture_default_str();
  app.add_option("--workload", fault.workload, "Only this workload gets the fault");
  app.add_option("--window", fault.window, "Window index that gets the fault")
      ->capture_default_str();
  app.add_option("--start-late-us", fault.start_late_us,
                 "Results say the window started this many us after its start instant");
  std::string counter_file;
  app.add_option("--counter-file", counter_file, "alternate_runs: where starts are counted");
  CLI11_PARSE(app, argc, argv);

  if (fault.mode == "alternate_runs") {
    if (counter_file.empty()) {
      std::fprintf(stderr, "fault_worker: alternate_runs needs --counter-file\n");
      return 2;
    }
    long starts = 0;
    if (FILE* f = std::fopen(counter_file.c_str(), "r")) {
      if (std::fscanf(f, "%ld", &starts) != 1) starts = 0;
      std::fclose(f);
    }
    fault.slow_process = starts % 2 == 1;
    FILE* f = std::fopen(counter_file.c_str(), "w");
    if (f == nullptr) {
      std::fprintf(stderr, "fault_worker: cannot write %s\n", counter_file.c_str());
      return 2;
    }
    std::fprintf(f, "%ld\n", starts + 1);
    std::fclose(f);
  }

  if (fault.mode == "exit_at_start") {
    std::fprintf(stderr, "fault_worker: exiting before READY, as asked\n");
    return 1;
  }

  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  FaultyWorker service(fault);
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  auto server = builder.BuildAndStart();
  if (!server || port == 0) {
    std::fprintf(stderr, "fault_worker: cannot listen on %s\n", listen.c_str());
    return 1;
  }
  std::printf("READY grpc=%s:%d\n", listen.substr(0, listen.rfind(':')).c_str(), port);
  std::fflush(stdout);

  int signal = 0;
  sigwait(&stop_signals, &signal);
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  return 0;
}
