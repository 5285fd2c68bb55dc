// The benchgate.v1.Orchestrator gRPC service: translates protobuf to the domain (admission,
// job queue) and back. No run logic here.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>

#include "benchgate/v1/orchestrator.grpc.pb.h"
#include "orchestrator/serve/admission.h"
#include "orchestrator/serve/job_queue.h"
#include "orchestrator/serve/validation_slots.h"
#include "orchestrator/store/store.h"

namespace benchgate::serve {

// The error details of a Submit refusal whose message is the scenario's diagnostics, one
// "file:line:column: error: ..." line each: the client prints them as they are, as a local run
// does, and any other refusal after "error: " (decided on this, never on the message's text).
inline constexpr const char* kRefusedWithDiagnostics = "benchgate.v1.diagnostics";

// Each Watch holds one of the gRPC server's threads until its job ends; past this many at once
// a Watch is refused with RESOURCE_EXHAUSTED, so clients cannot make the service start
// threads without bound (GetRun answers without holding one).
inline constexpr size_t kMaxWatchers = 64;

class OrchestratorService final : public v1::Orchestrator::Service {
 public:
  OrchestratorService(JobQueue& queue, AdmissionPolicy policy, size_t max_watchers = kMaxWatchers,
                      ValidationSlots::Limits validations = {})
      : queue_(queue),
        policy_(std::move(policy)),
        max_watchers_(max_watchers),
        validations_(validations) {}

  grpc::Status Submit(grpc::ServerContext*, const v1::SubmitRequest* request,
                      v1::SubmitResponse* response) override;
  grpc::Status Watch(grpc::ServerContext* context, const v1::WatchRequest* request,
                     grpc::ServerWriter<v1::WatchEvent>* writer) override;
  grpc::Status ListRuns(grpc::ServerContext*, const v1::ListRunsRequest*,
                        v1::ListRunsResponse* response) override;
  grpc::Status GetRun(grpc::ServerContext*, const v1::GetRunRequest* request,
                      v1::RunStatus* response) override;
  grpc::Status Cancel(grpc::ServerContext*, const v1::CancelRequest* request,
                      v1::RunStatus* response) override;
  // Adds the runs of jobs submitted with deferred_promote to that baseline, all or none
  // (proto/benchgate/v1/orchestrator.proto says each refusal).
  grpc::Status Promote(grpc::ServerContext*, const v1::PromoteRequest* request,
                       v1::PromoteResponse* response) override;

  // The connection Promote writes baselines through: one of the service's own (the job
  // executor's is its job thread's). Without one, Promote answers UNAVAILABLE.
  void set_store(store::Store* db) { store_ = db; }

  // serve --listen as bound, its port 0 replaced by the kernel's choice: known only once gRPC
  // listens, after this service was built. Until then a Submit waits where the policy's own
  // listeners hold a port 0, which no router port would be compared with (admission.h).
  void listening_at(const std::string& address);

  // The scenarios validated at once (validation_slots.h): serve closes them as it stops, so
  // that a Submit waiting for one ends at once; tests hold them.
  ValidationSlots& validations() { return validations_; }

 private:
  // Waits until no own listener of the policy has port 0 (listening_at).
  void wait_for_own_ports();

  JobQueue& queue_;
  AdmissionPolicy policy_;  // own_listeners' --listen of port 0 set once, by listening_at
  std::mutex own_ports_mutex_;
  std::condition_variable own_ports_known_;
  const size_t max_watchers_;
  std::atomic<size_t> watchers_{0};
  ValidationSlots validations_;
  store::Store* store_ = nullptr;
  // One Promote at a time: its checks and its transaction see no other's half done, and a job
  // is promoted by one request at most.
  std::mutex promote_mutex_;
};

// Why `job` may not join `baseline` through Promote, or "": it must have FINISHED with exit
// code 0, with a stored run, submitted with deferred_promote `baseline`, and not be promoted.
std::string promote_refusal(const Job& job, const std::string& baseline);

// Domain -> protobuf, shared with tests.
void to_proto(const JobStatus& status, v1::RunStatus& out);

}  // namespace benchgate::serve
