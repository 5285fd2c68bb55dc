// OrchestratorService::Promote (orchestrator_service.h): the runs of jobs submitted with
// deferred_promote join that baseline, all or none. A request names jobs, never runs, so that
// no other stored run can be reached (c5ecaaa took run ids, and was reverted for it).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/util/baseline_name.h"
#include "common/util/shown_text.h"
#include "orchestrator/serve/orchestrator_service.h"
#include "orchestrator/serve/promote_key.h"

namespace benchgate::serve {

std::string promote_refusal(const Job& job, const std::string& baseline) {
  const JobOptions& options = job.options();
  const std::string asked = "'" + shown_text(baseline) + "'";
  if (!options.promote_deferred) {
    return options.promote.empty()
               ? "was submitted without deferred_promote (not to be promoted)"
               : "was submitted to promote its own run (promote, not deferred_promote)";
  }
  if (options.promote != baseline) {
    return "was submitted with deferred_promote '" + shown_text(options.promote) + "', not " +
           asked;
  }
  const JobStatus status = job.status();
  switch (status.state) {
    case JobState::kQueued:
      return "has not started yet: a run joins a baseline once its job exited 0";
    case JobState::kRunning:
      return "is still running: a run joins a baseline once its job exited 0";
    case JobState::kCancelled:
      return "was cancelled (exit code " + std::to_string(status.exit_code) + ")";
    case JobState::kFinished:
      break;
  }
  if (status.exit_code != 0) {
    return "exited " + std::to_string(status.exit_code) + "; only a run that exited 0 joins a " +
           "baseline, as with run --promote";
  }
  if (status.run_id == 0) return "stored no run";
  if (auto with = job.promoted_with(); !with.empty()) {
    std::string jobs;
    for (uint64_t id : with) jobs += (jobs.empty() ? "" : ", ") + std::to_string(id);
    return "was promoted to " + asked + " already, by a request naming job" +
           (with.size() > 1 ? "s " : " ") + jobs;
  }
  return "";
}

grpc::Status OrchestratorService::Promote(grpc::ServerContext*, const v1::PromoteRequest* request,
                                          v1::PromoteResponse* response) {
  const std::string& baseline = request->baseline();
  if (baseline.empty()) {
    return {grpc::StatusCode::INVALID_ARGUMENT, "field 'baseline' is empty: name the baseline"};
  }
  if (!baseline_name_reason(baseline).empty()) {
    return {grpc::StatusCode::INVALID_ARGUMENT,
            "field 'baseline': " + baseline_name_problem(baseline)};
  }
  // No job could have been submitted for it; said before the jobs are looked at.
  if (std::string refused = promotion_refusal(baseline, policy_.allowed_promotions, "baseline");
      !refused.empty()) {
    return {grpc::StatusCode::PERMISSION_DENIED, refused};
  }
  if (request->validate_only()) return grpc::Status::OK;
  if (request->job_ids().empty()) {
    return {grpc::StatusCode::INVALID_ARGUMENT, "field 'job_ids' is empty: name the jobs"};
  }
  const std::vector<uint64_t> ids(request->job_ids().begin(), request->job_ids().end());
  std::set<uint64_t> sorted;
  for (uint64_t id : ids) {
    if (!sorted.insert(id).second) {
      return {grpc::StatusCode::INVALID_ARGUMENT,
              "field 'job_ids' names job " + std::to_string(id) + " twice"};
    }
  }
  if (store_ == nullptr) {
    return {grpc::StatusCode::UNAVAILABLE, "this service promotes no runs (it has no database)"};
  }
  const std::string nothing = "; nothing was added to '" + shown_text(baseline) + "'";
  std::lock_guard lock(promote_mutex_);
  std::vector<std::shared_ptr<Job>> jobs;
  for (uint64_t id : ids) {
    auto job = queue_.find(id);
    if (!job) {
      return {grpc::StatusCode::FAILED_PRECONDITION,
              "job " + std::to_string(id) +
                  " is not held by this service (unknown, or forgotten: it keeps the newest "
                  "--keep-finished ended jobs)" +
                  nothing};
    }
    // Another client's job (its key differs) is refused before anything else is said about it
    // or done with it, its already-promoted runs included; the message is the same whatever
    // the keys are, so it tells nothing about the job's.
    if (job->options().promote_deferred &&
        !promote_key_matches(request->promote_key(), job->options().promote_key_sha256)) {
      return {grpc::StatusCode::PERMISSION_DENIED,
              "job " + std::to_string(id) +
                  " was submitted by another client: only the client that submitted it, with "
                  "its promote_key, may promote it" +
                  nothing};
    }
    jobs.push_back(std::move(job));
  }
  // The same jobs promoted together before: a client asking again after its answer was lost
  // learns that they were, and nothing is added twice.
  const std::vector<uint64_t> together(sorted.begin(), sorted.end());
  if (std::all_of(jobs.begin(), jobs.end(),
                  [&](const auto& job) { return job->promoted_with() == together; }) &&
      jobs.front()->options().promote == baseline) {
    for (const auto& job : jobs) response->add_run_ids(job->status().run_id);
    response->set_already_promoted(true);
    return grpc::Status::OK;
  }
  std::vector<int64_t> runs;
  for (const auto& job : jobs) {
    if (std::string why = promote_refusal(*job, baseline); !why.empty()) {
      return {grpc::StatusCode::FAILED_PRECONDITION,
              "job " + std::to_string(job->id()) + " " + why + nothing};
    }
    runs.push_back(job->status().run_id);
  }
  int64_t refused = 0;
  if (auto added = store_->add_baselines(baseline, runs, &refused); !added) {
    // A run the store's rule refuses is the request's; a database that failed is the
    // service's, and nothing was committed either way.
    if (refused != 0) {
      const auto job = std::find(runs.begin(), runs.end(), refused) - runs.begin();
      return {grpc::StatusCode::FAILED_PRECONDITION,
              "job " + std::to_string(ids[job]) + ": " + added.message() + nothing};
    }
    return {grpc::StatusCode::ABORTED,
            "the service's database failed: " + added.message() + nothing};
  }
  std::string listed;
  for (size_t i = 0; i < jobs.size(); ++i) {
    jobs[i]->set_promoted_with(together);
    response->add_run_ids(runs[i]);
    listed +=
        (i == 0 ? "" : ", ") + std::to_string(runs[i]) + " (job " + std::to_string(ids[i]) + ")";
  }
  // The operator's record of what each Promote added.
  std::fprintf(stderr, "serve: Promote added run%s %s to baseline '%s'\n",
               jobs.size() > 1 ? "s" : "", listed.c_str(), shown_text(baseline).c_str());
  return grpc::Status::OK;
}

}  // namespace benchgate::serve
