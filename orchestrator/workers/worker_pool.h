// The workers a run uses. Two real alternatives (docs/ARCHITECTURE.md, "Beyond one machine"): a
// pool that spawns worker processes on this machine, and one that connects to workers that
// are already running elsewhere (for example pods of a StatefulSet). The engine only sees
// gRPC stubs and a way to ask why a worker is gone.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "benchgate/v1/worker.grpc.pb.h"
#include "common/util/expected.h"

namespace benchgate::workers {

class WorkerPool {
 public:
  virtual ~WorkerPool() = default;
  // Makes `count` workers ready (answering Describe) by the deadline.
  virtual Expected<void> start(size_t count, std::chrono::steady_clock::time_point deadline) = 0;
  virtual size_t size() const = 0;
  virtual v1::Worker::Stub& stub(size_t index) = 0;
  // The HOST:PORT the orchestrator reaches the worker at; empty for a worker this pool
  // spawned on this machine (where the load came from, results::WorkloadResult::load_from).
  virtual std::string address(size_t /*index*/) const { return {}; }
  // "worker 2 (pid 1234) killed by signal 9" (its stderr tail as the error's detail), "worker
  // 2 (pid 1234) is stopped ...", or nothing while the worker looks alive and able to run.
  virtual std::optional<Error> failure(size_t index) = 0;
  // How messages name a worker: "worker 2 at 10.77.0.12:7800" for one this orchestrator
  // connects to; "worker 2" by default.
  virtual std::string name(size_t index) const { return "worker " + std::to_string(index); }
  // "worker 2 (pid 1234)" when that worker was stopped (SIGSTOP, a debugger) at any moment
  // since the previous call, even if it has been continued since; else empty. Workers this
  // orchestrator did not spawn cannot be watched.
  virtual std::string stopped_since_last_call(size_t /*index*/) { return {}; }
  // Called before every workload but the first: makes the workers usable again by the
  // deadline, or says why they cannot be. Workers that are gone or stopped are always
  // replaced. After a failed workload (`after_failure`) every worker is suspect (a stream cut
  // mid-window, a result half sent, a process hung without being stopped), so a spawning pool
  // replaces them all and a connecting pool checks that each still answers Describe. Returns
  // what it did, for the log ("" when nothing was needed).
  virtual Expected<std::string> recover(bool after_failure,
                                        std::chrono::steady_clock::time_point deadline) = 0;
  // Stops what start() started.
  virtual void stop() = 0;
  // What worker `index` answered to Describe when it was made ready; empty, which admits any
  // workload (describe_rules.h), from a pool that keeps no answer.
  virtual v1::DescribeResponse description(size_t /*index*/) const { return {}; }
  // The command line this pool starts its workers with ("PROGRAM ARGS...", without the
  // --listen the protocol appends); empty for workers it connects to.
  virtual std::string command_line() const { return {}; }
};

struct SpawnConfig {
  std::string worker_binary;  // executable of the worker (the bundled one by default)
  std::vector<std::string> extra_args;
  std::string log_dir;  // where each worker's stderr log goes
  // The worker takes --token-file (the bundled one does; the protocol does not ask it of
  // others): the pool makes a fresh random token, stores it in a 0600 file in `log_dir`,
  // passes --token-file FILE, and sends the token on every call, so that other local users
  // cannot drive these loopback workers.
  bool authenticate = false;
};

std::unique_ptr<WorkerPool> make_spawning_pool(const SpawnConfig& config);
// Workers already running at these "HOST:PORT" addresses. A non-empty `token` is sent on
// every call (`authorization: Bearer <token>`).
std::unique_ptr<WorkerPool> make_connecting_pool(std::vector<std::string> addresses,
                                                 std::string token = {});

// What Describe answered: the response, or why not, and whether that is `final`, an answer
// asking again cannot change, told by its status code alone (never by the words of a peer's
// message): the worker refused the orchestrator's token (UNAUTHENTICATED, PERMISSION_DENIED),
// or it does not serve benchgate.v1.Worker's Describe (UNIMPLEMENTED).
struct DescribeAnswer {
  Expected<v1::DescribeResponse> response;
  bool final = false;
};

// Calls Describe until it answers or the deadline passes; fails at once on a final answer,
// naming what to check.
DescribeAnswer ask_describe(v1::Worker::Stub& stub, const std::string& name,
                            std::chrono::steady_clock::time_point deadline);
// ask_describe's response.
Expected<v1::DescribeResponse> describe_worker(v1::Worker::Stub& stub, const std::string& name,
                                               std::chrono::steady_clock::time_point deadline);

}  // namespace benchgate::workers
