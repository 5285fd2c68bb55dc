// See remote_run.h.
#include "orchestrator/serve/remote_run.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "benchgate/v1/orchestrator.grpc.pb.h"
#include "common/security/token.h"
#include "common/util/shown_text.h"
#include "orchestrator/app/interrupt.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/grpc/channel.h"
#include "orchestrator/scenario/scenario_loader.h"
#include "orchestrator/serve/admission.h"
#include "orchestrator/serve/orchestrator_service.h"
#include "orchestrator/serve/remote_promote.h"

namespace benchgate::serve {
namespace {

// gRPC's own refusal of a request past the service's receive limit: "Received message larger
// than max (4194413 vs. 4194304)".
bool over_message_limit(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
         status.error_message().find("larger than max") != std::string::npos;
}

// gRPC's words for a peer that answered, but not in HTTP/2: a web server ("Trying to connect
// an http1.x server"; "Failed parsing HTTP/2" for one that sent other bytes), such as the
// service's own --metrics-listen or --http port.
bool not_grpc(const std::string& message) {
  return message.find("http1.x server") != std::string::npos ||
         message.find("HTTP/2") != std::string::npos;
}

// An address that answered, but not as a gRPC endpoint: --server names something else.
bool not_a_service(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAVAILABLE && not_grpc(status.error_message());
}

// Submission refusals are invalid input (nothing started); a service that cannot be reached
// or fails mid-run is a run error. A request past the service's message limit is the first:
// sent again, it is refused again; so is an address that answers, but not as a service (its
// --metrics-listen or --http port, any web server): --server is wrong, and submitting again
// later reaches the same program, where an unreachable service may be back.
int exit_code_for(const grpc::Status& status) {
  if (over_message_limit(status) || not_a_service(status)) return cli::kExitInvalidInput;
  switch (status.error_code()) {
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::NOT_FOUND:
    case grpc::StatusCode::PERMISSION_DENIED:
      return cli::kExitInvalidInput;
    default:
      return cli::kExitRunError;
  }
}

void print_refusal(const std::string& server, const grpc::Status& status,
                   const SubmittedFile& file) {
  std::string message = status.error_message();
  if (!message.empty() && message.back() == '\n') message.pop_back();
  unsigned long long sent = 0, limit = 0;
  if (over_message_limit(status) &&
      std::sscanf(message.c_str(), "Received message larger than max (%llu vs. %llu)", &sent,
                  &limit) == 2) {
    // A service of this version receives a submitted scenario of kMaxSubmittedScenarioBytes
    // with the rest of its request (kMaxSubmitRequestBytes); another program, less or more.
    std::fprintf(stderr,
                 "error: service %s receives at most %llu bytes in one request, and this "
                 "submission of %s is %llu (the scenario's text with its file name, labels, "
                 "commit and branch); nothing was submitted: shorten the file (an `orchestrator "
                 "serve` of this version receives a scenario file of up to %llu bytes with the "
                 "rest of its request)\n",
                 server.c_str(), limit, file.name.c_str(), sent,
                 static_cast<unsigned long long>(kMaxSubmittedScenarioBytes));
  } else if (not_a_service(status)) {
    std::fprintf(stderr,
                 "error: %s did not answer as an `orchestrator serve` gRPC endpoint (is it "
                 "serve's --listen address, not its --metrics-listen or --http?): %s\n",
                 server.c_str(), message.c_str());
  } else if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
    std::fprintf(stderr, "error: service %s: %s\n", server.c_str(), message.c_str());
  } else if (status.error_details() == kRefusedWithDiagnostics) {
    std::fprintf(stderr, "%s\n", message.c_str());  // diagnostics already name file:line
  } else {
    std::fprintf(stderr, "error: %s\n", message.c_str());
  }
}

void cancel(v1::Orchestrator::Stub& stub, uint64_t job_id) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::CancelRequest request;
  request.set_job_id(job_id);
  v1::RunStatus ignored;
  stub.Cancel(&context, request, &ignored);
}

// What a local run prints when interrupted, for the job cancelled on the service. `outcome`:
// how the job's stream ended.
void print_interrupted(uint64_t job_id, const std::string& server, const char* outcome) {
  std::fprintf(stderr, "%s: job %llu on %s %s\n", app::interrupt_description().c_str(),
               static_cast<unsigned long long>(job_id), server.c_str(), outcome);
}

constexpr const char* kCancelled = "was cancelled, and every child process there was stopped";

// Ctrl-C (or SIGTERM) while a job is watched: a signal only sets a flag and the stream may be
// silent for long (a queued job sends nothing), so a thread watches the flag, cancels the job
// on the service, and stops waiting for the stream if the service does not end it in time.
class CancelOnInterrupt {
 public:
  CancelOnInterrupt(v1::Orchestrator::Stub& stub, uint64_t job_id, grpc::ClientContext& context)
      : thread_([this, &stub, job_id, &context] {
          std::unique_lock lock(mutex_);
          while (!done_ && !app::interrupted()) wake_.wait_for(lock, std::chrono::milliseconds(50));
          if (done_) return;
          lock.unlock();
          cancel(stub, job_id);
          lock.lock();
          // The service stops the run's children (3 s each at most) before it ends the stream.
          if (!wake_.wait_for(lock, std::chrono::seconds(30), [this] { return done_; })) {
            gave_up_ = true;
            context.TryCancel();
          }
        }) {}
  ~CancelOnInterrupt() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  // Call after the stream ended: whether the wait for the service's confirmation was cut off.
  bool gave_up() {
    std::lock_guard lock(mutex_);
    return gave_up_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  bool gave_up_ = false;
  std::thread thread_;  // last: it starts once the members it uses exist
};

// Streams one job; returns its exit code, and sets `run_id` to its stored run's (0: none).
int watch(v1::Orchestrator::Stub& stub, uint64_t job_id, const std::string& server,
          int64_t& run_id) {
  run_id = 0;
  grpc::ClientContext context;
  v1::WatchRequest request;
  request.set_job_id(job_id);
  auto reader = stub.Watch(&context, request);
  v1::WatchEvent event;
  int exit_code = cli::kExitRunError;
  bool ended = false;
  bool cancelled = false;
  bool gave_up = false;
  {
    CancelOnInterrupt canceller(stub, job_id, context);
    while (reader->Read(&event)) {
      if (event.has_output()) {
        std::FILE* f = event.output().stream() == v1::RunOutput::STDERR ? stderr : stdout;
        // What the job's children wrote is quoted in it (a router's stderr tail): shown as
        // `runs show` shows a stored error, an escape sequence or a bell escaped.
        std::fputs(shown_lines(event.output().text(), "", true).c_str(), f);
        std::fflush(f);
      } else if (event.has_status()) {
        const auto& s = event.status();
        if (s.state() == v1::RunStatus::FINISHED || s.state() == v1::RunStatus::CANCELLED) {
          exit_code = s.exit_code();
          run_id = s.run_id();
          ended = true;
          cancelled = s.state() == v1::RunStatus::CANCELLED;
          if (s.state() == v1::RunStatus::CANCELLED && s.run_id() == 0 && !app::interrupted()) {
            std::fprintf(stderr, "job %llu cancelled: %s\n",
                         static_cast<unsigned long long>(job_id), s.error().c_str());
          }
        }
      }
    }
    gave_up = canceller.gave_up();
  }
  const grpc::Status status = reader->Finish();
  if (app::interrupted() && ended && !cancelled) {
    // The service refused the cancel: the job's outcome was settled (its run stored, promoted
    // when it exited 0 with --promote and one file). The client exits with that outcome, so that
    // its exit code says what the service keeps: 0 only for a run that stands as one that exited 0.
    const std::string outcome =
        "had finished before the cancellation reached it; it keeps "
        "its exit code " +
        std::to_string(exit_code);
    print_interrupted(job_id, server, outcome.c_str());
    return exit_code;
  }
  if (app::interrupted()) {
    // As a local run: an interrupt is exit code 3, and says which signal.
    print_interrupted(job_id, server,
                      cancelled ? kCancelled
                      : gave_up ? "was cancelled; the service did not confirm it within 30 s"
                                : "was cancelled; its stream broke before it confirmed it");
    return cli::kExitRunError;
  }
  if (!ended) {
    std::fprintf(stderr, "error: lost the stream of job %llu on %s: %s\n",
                 static_cast<unsigned long long>(job_id), server.c_str(),
                 status.error_message().c_str());
    return cli::kExitRunError;
  }
  return exit_code;
}

}  // namespace

int remote_run(const RemoteRunOptions& options) {
  // The service refuses a file name that does not print as itself (admission.h): said here,
  // before anything is submitted, naming the file as the user gave it, escaped.
  for (const SubmittedFile& file : options.files) {
    if (prints_as_itself(file.name)) continue;
    std::fprintf(stderr,
                 "error: %s '%s' has a control character (a line break, a tab, an escape, a "
                 "C1 control, a bidi control) or is not UTF-8; the service refuses such a name: "
                 "rename the file\n",
                 file.by_name ? "the scenario name" : "the scenario file's name",
                 shown_text(file.name).c_str());
    return cli::kExitInvalidInput;
  }
  // A control channel, as every other of ours: a proxy of the environment (http_proxy,
  // grpc_proxy) is not used, as one could not reach the service's loopback address.
  auto channel = grpcutil::make_control_channel(options.server);
  auto stub = v1::Orchestrator::NewStub(channel);
  // One file's job promotes its own run when it exits 0. Several files' jobs are submitted with
  // deferred_promote and promoted together (Promote) only when the whole invocation exits 0:
  // one promoted on its own could not be held back for another file's failed gate, as a local
  // run holds it (docs/GATES.md, "Series and baselines"). A service without Promote, or one
  // that refuses the name, is found before anything is submitted.
  const bool promote_later = !options.job.promote.empty() && options.files.size() > 1;
  // This invocation's secret, sent with each deferred job and with the Promote: the service
  // promotes them only for the client holding it (promote_key.h).
  std::string promote_key;
  if (promote_later) {
    auto key = security::random_token();
    if (!key) {
      std::fprintf(stderr, "error: %s\n", key.message().c_str());
      return cli::kExitRunError;
    }
    promote_key = *key;
    const grpc::Status status = check_promote_later(*stub, options.job.promote);
    if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
      std::fprintf(stderr,
                   "error: the service at %s cannot promote runs after they ended (it has no "
                   "Promote call): --promote with --server takes one scenario file there, not "
                   "%zu; submit them one at a time, or run them locally\n",
                   options.server.c_str(), options.files.size());
      return cli::kExitInvalidInput;
    }
    if (!status.ok()) {
      print_refusal(options.server, status, options.files.front());
      return exit_code_for(status);
    }
  }
  auto request_for = [&options, promote_later, &promote_key](const SubmittedFile& file,
                                                             bool validate_only) {
    v1::SubmitRequest request;
    if (file.by_name) {
      request.set_name(file.name);  // the service's own file; NOT_FOUND names a missing one
    } else {
      request.mutable_content()->set_file_name(file.name);
      request.mutable_content()->set_text(file.text);
    }
    request.set_commit(options.job.commit);
    request.set_branch(options.job.branch);
    for (const auto& [k, v] : options.job.labels) (*request.mutable_labels())[k] = v;
    request.set_baseline(options.job.baseline);
    if (promote_later) {
      request.set_deferred_promote(options.job.promote);
      request.set_promote_key(promote_key);
    } else {
      request.set_promote(options.job.promote);
    }
    request.set_strict(options.job.strict);
    request.set_validate_only(validate_only);
    // The queue must have room for all of them, not for one each.
    if (validate_only) request.set_jobs_to_submit(static_cast<uint32_t>(options.files.size()));
    return request;
  };
  auto submit = [&stub](const v1::SubmitRequest& request, v1::SubmitResponse& response) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    return stub->Submit(&context, request, &response);
  };
  // With several files, the service checks every one (validate_only) before any is submitted,
  // and that its queue has room for all of them: a refused file or a queue without that room
  // leaves no job of the others queued or started, as a local run starts nothing when one file
  // is invalid. A service older than validate_only queues the job at
  // once (its id is not 0): that is then the file's submission.
  std::vector<v1::SubmitResponse> checked(options.files.size());
  if (options.files.size() > 1) {
    for (size_t i = 0; i < options.files.size(); ++i) {
      const grpc::Status status = submit(request_for(options.files[i], true), checked[i]);
      if (!status.ok()) {
        print_refusal(options.server, status, options.files[i]);
        for (const auto& old_service_job : checked) {
          if (old_service_job.job_id() != 0) cancel(*stub, old_service_job.job_id());
        }
        return exit_code_for(status);
      }
    }
  }
  // Then each is submitted; one the service refuses now (its queue filled meanwhile, it began
  // to shut down) cancels those submitted before it.
  std::vector<uint64_t> jobs;
  for (size_t i = 0; i < options.files.size(); ++i) {
    const SubmittedFile& file = options.files[i];
    v1::SubmitResponse response = checked[i];
    if (response.job_id() == 0) {
      const grpc::Status status = submit(request_for(file, false), response);
      if (!status.ok()) {
        print_refusal(options.server, status, file);
        for (uint64_t id : jobs) cancel(*stub, id);
        for (size_t later = i + 1; later < checked.size(); ++later) {
          if (checked[later].job_id() != 0) cancel(*stub, checked[later].job_id());
        }
        return exit_code_for(status);
      }
    }
    const std::string shown =
        file.by_name ? "scenario '" + shown_text(file.name) + "' of the service" : file.name;
    std::fprintf(stderr, "submitted %s to %s as job %llu (%u ahead)\n", shown.c_str(),
                 options.server.c_str(), static_cast<unsigned long long>(response.job_id()),
                 response.queue_position());
    jobs.push_back(response.job_id());
  }
  int exit_code = cli::kExitOk;
  std::vector<WatchedJob> watched;
  for (uint64_t id : jobs) {
    if (app::interrupted()) {
      // Interrupted while watching an earlier job or while submitting: the later jobs too.
      cancel(*stub, id);
      print_interrupted(id, options.server, "was cancelled");
      exit_code = cli::kExitRunError;
      watched.push_back({id, 0});
      continue;
    }
    int64_t run_id = 0;
    exit_code = std::max(exit_code, watch(*stub, id, options.server, run_id));
    watched.push_back({id, run_id});
  }
  if (promote_later) {
    exit_code = promote_together(*stub, options.server, options.job.promote, promote_key, watched,
                                 exit_code);
  }
  return exit_code;
}

}  // namespace benchgate::serve
