// See orchestrator_service.h.
#include "orchestrator/serve/orchestrator_service.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/net/host_port.h"
#include "common/util/baseline_name.h"
#include "orchestrator/serve/promote_key.h"

namespace benchgate::serve {
namespace {

v1::RunStatus::State to_proto(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return v1::RunStatus::QUEUED;
    case JobState::kRunning:
      return v1::RunStatus::RUNNING;
    case JobState::kFinished:
      return v1::RunStatus::FINISHED;
    case JobState::kCancelled:
      return v1::RunStatus::CANCELLED;
  }
  return v1::RunStatus::STATE_UNSPECIFIED;
}

// An invalid scenario and a denied one are refused with their diagnostics (admission.h); a
// scenario that is not found has none.
grpc::Status refusal_status(const Admission& a) {
  switch (a.refusal) {
    case Refusal::kNotFound:
      return {grpc::StatusCode::NOT_FOUND, a.message};
    case Refusal::kDenied:
      return {grpc::StatusCode::PERMISSION_DENIED, a.message, kRefusedWithDiagnostics};
    default:
      return {grpc::StatusCode::INVALID_ARGUMENT, a.message, kRefusedWithDiagnostics};
  }
}

void to_proto(const JobEvent& event, v1::WatchEvent& out) {
  if (const auto* o = std::get_if<JobOutput>(&event)) {
    out.mutable_output()->set_stream(o->to_stderr ? v1::RunOutput::STDERR : v1::RunOutput::STDOUT);
    out.mutable_output()->set_text(o->text);
  } else if (const auto* p = std::get_if<JobProgress>(&event)) {
    auto* progress = out.mutable_progress();
    progress->set_workload(p->workload);
    progress->set_repetition(p->repetition);
    progress->set_repetitions(p->repetitions);
    progress->set_ops_per_second(p->ops_per_second);
    progress->set_p99_seconds(p->p99_seconds);
    progress->set_elapsed_seconds(p->elapsed_seconds);
    progress->set_duration_seconds(p->duration_seconds);
  } else if (const auto* s = std::get_if<JobStatus>(&event)) {
    serve::to_proto(*s, *out.mutable_status());
  }
}

grpc::Status unknown_job(uint64_t id) {
  return {grpc::StatusCode::NOT_FOUND, "no job " + std::to_string(id)};
}

// A listener given port 0, not yet bound: the port it will have is not known.
bool port_unknown(const std::pair<const char*, std::string>& listener) {
  const net::HostPortSplit split = net::split_host_port(listener.second, net::kListenMinPort);
  return split.ok() && split.port == 0;
}

}  // namespace

void to_proto(const JobStatus& s, v1::RunStatus& out) {
  out.set_job_id(s.id);
  out.set_scenario(s.scenario);
  out.set_state(to_proto(s.state));
  out.set_exit_code(s.exit_code);
  out.set_run_id(s.run_id);
  out.set_error(s.error);
  out.set_submitted_unix_ns(s.submitted_unix_ns);
  out.set_started_unix_ns(s.started_unix_ns);
  out.set_finished_unix_ns(s.finished_unix_ns);
  out.set_origin(s.origin);
}

void OrchestratorService::listening_at(const std::string& address) {
  {
    std::lock_guard lock(own_ports_mutex_);
    // Only a port 0 is replaced: a Submit reads the policy without the lock once no port is 0,
    // and one may come as soon as gRPC listens, before this call.
    for (auto& listener : policy_.own_listeners) {
      if (std::string_view(listener.first) == "--listen" && port_unknown(listener)) {
        listener.second = address;
      }
    }
  }
  own_ports_known_.notify_all();
}

void OrchestratorService::wait_for_own_ports() {
  std::unique_lock lock(own_ports_mutex_);
  own_ports_known_.wait(lock, [&] {
    return std::none_of(policy_.own_listeners.begin(), policy_.own_listeners.end(), port_unknown);
  });
}

grpc::Status OrchestratorService::Submit(grpc::ServerContext*, const v1::SubmitRequest* request,
                                         v1::SubmitResponse* response) {
  // A slot for the validation below, which costs up to half a second and 42 MB for the largest
  // submitted scenario (1 MiB): without the bound, clients sending such files at once took
  // memory without end.
  const std::optional<ValidationSlots::Slot> slot = validations_.acquire();
  if (!slot) {
    if (validations_.closed()) {
      return {grpc::StatusCode::UNAVAILABLE,
              "the service is shutting down and accepts no new runs"};
    }
    const std::string max = std::to_string(validations_.max());
    return {grpc::StatusCode::RESOURCE_EXHAUSTED,
            "the service validates at most " + max + " submitted scenarios at once, and " + max +
                " were being validated for as long as this one waited; submit again in a moment"};
  }
  // A client reaches the service only once it listens, but may guess the port before serve
  // has read it back (microseconds).
  wait_for_own_ports();
  Admission admitted;
  switch (request->scenario_case()) {
    case v1::SubmitRequest::kName:
      admitted = admit_by_name(request->name(), policy_);
      break;
    case v1::SubmitRequest::kContent:
      admitted = admit_content(request->content().file_name(), request->content().text(), policy_);
      break;
    default:
      return {grpc::StatusCode::INVALID_ARGUMENT, "a submission names a scenario or sends one"};
  }
  if (!admitted.scenario) return refusal_status(admitted);

  JobOptions options;
  options.commit = request->commit();
  options.branch = request->branch();
  options.labels = {request->labels().begin(), request->labels().end()};
  options.baseline = request->baseline();
  options.promote = request->promote();
  // Deferred: the baseline is named the same way, and promoted only by a later Promote.
  if (!request->deferred_promote().empty()) {
    if (!request->promote().empty()) {
      return {grpc::StatusCode::INVALID_ARGUMENT,
              "fields 'promote' and 'deferred_promote' exclude each other: a job promotes its "
              "run itself when it exits 0, or leaves it to a later Promote"};
    }
    if (!baseline_name_reason(request->deferred_promote()).empty()) {
      return {grpc::StatusCode::INVALID_ARGUMENT,
              "field 'deferred_promote': " + baseline_name_problem(request->deferred_promote())};
    }
    // The key ties the later Promote to this client: without one, any client that read the
    // job's id from ListRuns could promote it (promote_key.h).
    if (request->promote_key().size() < kMinPromoteKeyBytes) {
      return {grpc::StatusCode::INVALID_ARGUMENT,
              request->promote_key().empty()
                  ? "field 'promote_key' is empty: a job submitted with deferred_promote needs "
                    "the key its client's later Promote will carry"
                  : "field 'promote_key' has " + std::to_string(request->promote_key().size()) +
                        " bytes; at least " + std::to_string(kMinPromoteKeyBytes) +
                        " random bytes, so that no other client can guess it"};
    }
    options.promote = request->deferred_promote();
    options.promote_deferred = true;
    options.promote_key_sha256 = promote_key_digest(request->promote_key());
  } else if (!request->promote_key().empty()) {
    return {grpc::StatusCode::INVALID_ARGUMENT,
            "field 'promote_key' is for a job submitted with deferred_promote"};
  }
  options.strict = request->strict();
  if (request->scenario_case() == v1::SubmitRequest::kContent) {
    options.max_run_ns = policy_.max_run_ns;
    options.allowed_commands = policy_.allowed_commands;
  }
  // As `orchestrator run` checks its flags: a bad --promote name found when the run ends would
  // have cost the whole run (and left the client exit code 3 for a usage mistake). The error
  // names the request's field.
  if (auto valid = check_job_options(options, OptionNames::kFields); !valid) {
    return {grpc::StatusCode::INVALID_ARGUMENT, valid.message()};
  }
  // A baseline is the operator's bar: a client adds its run to one only where serve
  // --allow-promote names it. Refused here, before anything is queued, and so for a
  // validate_only request too, rather than found when the run ends.
  if (std::string refused =
          promotion_refusal(options.promote, policy_.allowed_promotions,
                            options.promote_deferred ? "deferred_promote" : "promote");
      !refused.empty()) {
    return {grpc::StatusCode::PERMISSION_DENIED, refused};
  }
  if (request->jobs_to_submit() != 0 && !request->validate_only()) {
    return {grpc::StatusCode::INVALID_ARGUMENT,
            "field 'jobs_to_submit' is for a validate_only request; a submission queues one job"};
  }
  uint32_t position = 0;
  bool full = false;
  if (request->validate_only()) {
    // More jobs than the queue holds even when empty can never be taken together: that is the
    // request's mistake (exit 2 for `run --server`), not a full queue to try again later
    // (RESOURCE_EXHAUSTED, exit 3), which would fail again however long the client waited.
    if (request->jobs_to_submit() > policy_.max_queued) {
      const std::string max = std::to_string(policy_.max_queued);
      return {grpc::StatusCode::INVALID_ARGUMENT,
              std::to_string(request->jobs_to_submit()) +
                  " runs submitted together can never all wait in this service's queue, which "
                  "holds at most " +
                  max + " (serve --max-queued " + max + "); submit at most " + max + " at a time"};
    }
    // Deferred jobs are promoted once every one has ended; more of them than the service keeps
    // ended jobs would have the first forgotten by then, and the Promote refused after every
    // run was spent (`job 1 is not held`). Other clients' jobs ending in between can still
    // push them out: this refuses only what could never work.
    const size_t kept = queue_.finished_kept();
    if (options.promote_deferred && request->jobs_to_submit() > kept) {
      const std::string k = std::to_string(kept);
      return {grpc::StatusCode::INVALID_ARGUMENT,
              std::to_string(request->jobs_to_submit()) +
                  " runs to promote together can never all be held until they are promoted: "
                  "this service keeps the newest " +
                  k + " ended jobs (serve --keep-finished " + k + "); promote at most " + k +
                  " scenario files at a time"};
    }
    // Room for every job the client will submit, not for one: `run --server a.toml b.toml`
    // against a queue with room for one passed the check and then overflowed it.
    auto accepted = queue_.would_accept(std::max<size_t>(request->jobs_to_submit(), 1), full);
    if (!accepted) {
      return {full ? grpc::StatusCode::RESOURCE_EXHAUSTED : grpc::StatusCode::UNAVAILABLE,
              accepted.message()};
    }
    response->set_job_id(0);
    response->set_scenario(admitted.scenario->name);
    response->set_queue_position(*accepted);
    return grpc::Status::OK;
  }
  auto job =
      queue_.submit(std::move(*admitted.scenario), std::move(options), "client", position, full);
  if (!job) {
    return {full ? grpc::StatusCode::RESOURCE_EXHAUSTED : grpc::StatusCode::UNAVAILABLE,
            job.message()};
  }
  response->set_job_id((*job)->id());
  response->set_scenario((*job)->scenario().name);
  response->set_queue_position(position);
  return grpc::Status::OK;
}

grpc::Status OrchestratorService::Watch(grpc::ServerContext* context,
                                        const v1::WatchRequest* request,
                                        grpc::ServerWriter<v1::WatchEvent>* writer) {
  auto job = queue_.find(request->job_id());
  if (!job) return unknown_job(request->job_id());
  // Counted from here until the stream ends, however it ends.
  struct Watching {
    explicit Watching(std::atomic<size_t>& c) : count(c), now(++c) {}
    ~Watching() { --count; }
    std::atomic<size_t>& count;
    const size_t now;
  } watching(watchers_);
  if (watching.now > max_watchers_) {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED,
            std::to_string(max_watchers_) +
                " clients are watching runs already, the most the service serves at once; "
                "watch again when one has ended, or ask for the run's status (GetRun)"};
  }
  uint64_t next = 0;
  for (;;) {
    bool ended = false;
    auto events = job->events_since(next, std::chrono::milliseconds(200), ended);
    for (const auto& event : events) {
      v1::WatchEvent out;
      to_proto(event, out);
      if (!writer->Write(out)) return grpc::Status::OK;  // the client went away
    }
    if (ended && events.empty()) return grpc::Status::OK;
    if (context->IsCancelled()) return grpc::Status::CANCELLED;
  }
}

grpc::Status OrchestratorService::ListRuns(grpc::ServerContext*, const v1::ListRunsRequest*,
                                           v1::ListRunsResponse* response) {
  for (const auto& status : queue_.list()) to_proto(status, *response->add_runs());
  return grpc::Status::OK;
}

grpc::Status OrchestratorService::GetRun(grpc::ServerContext*, const v1::GetRunRequest* request,
                                         v1::RunStatus* response) {
  auto job = queue_.find(request->job_id());
  if (!job) return unknown_job(request->job_id());
  to_proto(job->status(), *response);
  return grpc::Status::OK;
}

grpc::Status OrchestratorService::Cancel(grpc::ServerContext*, const v1::CancelRequest* request,
                                         v1::RunStatus* response) {
  auto job = queue_.cancel(request->job_id());
  if (!job) return unknown_job(request->job_id());
  to_proto(job->status(), *response);
  return grpc::Status::OK;
}

}  // namespace benchgate::serve
