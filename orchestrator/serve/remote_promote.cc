// See remote_promote.h.
#include "orchestrator/serve/remote_promote.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string_view>

#include "common/util/shown_text.h"
#include "orchestrator/app/interrupt.h"
#include "orchestrator/cli/exit_codes.h"

namespace benchgate::serve {
namespace {

grpc::Status ask(v1::Orchestrator::Stub& stub, const v1::PromoteRequest& request,
                 v1::PromoteResponse& response) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  return stub.Promote(&context, request, &response);
}

// The service answered, and added nothing: a refusal of the request, or its database failed
// (ABORTED, rolled back). Any other code may be gRPC's own (a deadline passed, the connection
// broke) while the service went on and committed.
bool answered_none_added(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::ABORTED:
      return true;
    default:
      return false;
  }
}

// Asked again after a lost answer, only a refusal of the request itself says that nothing was
// ever added: a job forgotten since (FAILED_PRECONDITION) or a database failing now (ABORTED)
// says nothing about what the first request, whose answer was lost, committed.
bool refused_the_request(grpc::StatusCode code) {
  return code == grpc::StatusCode::INVALID_ARGUMENT || code == grpc::StatusCode::PERMISSION_DENIED;
}

}  // namespace

grpc::Status check_promote_later(v1::Orchestrator::Stub& stub, const std::string& baseline) {
  v1::PromoteRequest request;
  request.set_baseline(baseline);
  request.set_validate_only(true);
  v1::PromoteResponse response;
  const grpc::Status status = ask(stub, request, response);
  // The service names its request's field; the user gave --promote (and "field 'baseline'"
  // would read as --baseline, another flag).
  constexpr std::string_view kField = "field 'baseline'";
  if (const std::string& message = status.error_message(); message.starts_with(kField)) {
    return {status.error_code(), "--promote" + message.substr(kField.size()),
            status.error_details()};
  }
  return status;
}

int promote_together(v1::Orchestrator::Stub& stub, const std::string& server,
                     const std::string& baseline, const std::string& key,
                     const std::vector<WatchedJob>& jobs, int exit_code) {
  const std::string name = "'" + shown_text(baseline) + "'";
  // As a local run: an interrupt stops what was asked for, the runs completed before it
  // included, and the invocation exits 3 (its jobs keep their own exit codes on the service).
  if (exit_code != cli::kExitOk || app::interrupted()) {
    if (app::interrupted()) exit_code = std::max(exit_code, cli::kExitRunError);
    const std::string why =
        (app::interrupted() ? app::interrupt_description() + " during this invocation"
                            : "the invocation exits " + std::to_string(exit_code)) +
        "; --promote adds runs only when the whole invocation exits 0";
    bool any = false;
    for (const WatchedJob& job : jobs) {
      if (job.run_id == 0) continue;
      any = true;
      std::printf("run %lld (job %llu) not promoted to %s: %s\n",
                  static_cast<long long>(job.run_id), static_cast<unsigned long long>(job.job_id),
                  name.c_str(), why.c_str());
    }
    if (!any) std::printf("no run promoted to %s: %s\n", name.c_str(), why.c_str());
    std::fflush(stdout);
    return exit_code;
  }
  v1::PromoteRequest request;
  request.set_baseline(baseline);
  request.set_promote_key(key);
  for (const WatchedJob& job : jobs) request.add_job_ids(job.job_id);
  v1::PromoteResponse response;
  grpc::Status status = ask(stub, request, response);
  bool asked_again = false;
  if (!status.ok() && !answered_none_added(status.error_code())) {
    // The answer was lost, not necessarily the request: asked again, the service says whether
    // it added them then (already_promoted) or adds them now, never twice.
    std::fprintf(stderr, "no answer from %s to the promotion to %s (%s); asking again\n",
                 server.c_str(), name.c_str(), status.error_message().c_str());
    response.Clear();
    status = ask(stub, request, response);
    asked_again = true;
  }
  if (!status.ok()) {
    if (asked_again ? refused_the_request(status.error_code())
                    : answered_none_added(status.error_code())) {
      std::fprintf(stderr, "error: cannot promote the runs to %s on %s, none was added: %s\n",
                   name.c_str(), server.c_str(), status.error_message().c_str());
    } else {
      // An answer to the repeat (a job forgotten since, a database failing now) still leaves
      // the first request's outcome unknown.
      const std::string why =
          answered_none_added(status.error_code())
              ? "the first answer was lost, and asked again it answered: " + status.error_message()
              : "no answer (" + status.error_message() + ")";
      std::fprintf(stderr,
                   "error: cannot tell whether the runs were promoted to %s on %s: %s; "
                   "`orchestrator baseline list %s` on the service's database says\n",
                   name.c_str(), server.c_str(), why.c_str(), shown_text(baseline).c_str());
    }
    return cli::kExitRunError;
  }
  for (int i = 0; i < response.run_ids_size(); ++i) {
    std::printf("promoted run %lld (job %llu) to baseline %s%s\n",
                static_cast<long long>(response.run_ids(i)),
                static_cast<unsigned long long>(request.job_ids(i)), name.c_str(),
                response.already_promoted() ? " (by an earlier request naming these jobs)" : "");
  }
  std::fflush(stdout);
  return exit_code;
}

}  // namespace benchgate::serve
