// See run_executor.h.
#include "orchestrator/serve/run_executor.h"

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "common/net/host_port.h"
#include "common/security/token.h"
#include "common/time/clock.h"
#include "common/util/shown_text.h"
#include "orchestrator/app/interrupt.h"
#include "orchestrator/app/listen_probe.h"
#include "orchestrator/app/run_one.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/engine/fan_out_observer.h"
#include "orchestrator/processes/pinned_programs.h"
#include "orchestrator/report/run_outputs.h"
#include "orchestrator/serve/admission.h"
#include "orchestrator/serve/client_paths.h"
#include "orchestrator/serve/job_output.h"

namespace benchgate::serve {
namespace {

// Engine progress -> the job's Progress events (what `run --server` shows live).
class ProgressForwarder : public engine::RunObserver {
 public:
  explicit ProgressForwarder(Job& job) : job_(job) {}
  void progress(const scenario::Workload& workload, const engine::WindowInfo& window,
                double ops_per_second, int64_t p99_ns, int64_t elapsed_ns) override {
    job_.emit(JobProgress{workload.name, window.measured ? window.repetition : 0,
                          window.repetitions, ops_per_second, static_cast<double>(p99_ns) / 1e9,
                          static_cast<double>(elapsed_ns) / 1e9,
                          static_cast<double>(window.duration_ns) / 1e9});
  }

 private:
  Job& job_;
};

// Stops the run as a cancel does once `limit_ns` has passed (0: never): admission bounds a
// submitted scenario by its own timeouts, which leave out the startups it leaves at their
// defaults and the time its children take to stop; this bounds the rest.
class RunDeadline {
 public:
  explicit RunDeadline(int64_t limit_ns) {
    if (limit_ns <= 0) return;
    thread_ = std::thread([this, limit_ns] {
      std::unique_lock lock(mutex_);
      if (wake_.wait_for(lock, std::chrono::nanoseconds(limit_ns), [this] { return done_; })) {
        return;
      }
      pass();
    });
  }
  // Passes now, as at its time (a test's seam: RunExecutor::Seams).
  void pass_now() {
    std::lock_guard lock(mutex_);
    if (!done_) pass();
  }
  // The run is over: no stop after this.
  void finished() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  ~RunDeadline() { finished(); }
  bool passed() const { return passed_; }  // after finished()

 private:
  void pass() {  // the mutex held
    passed_ = true;
    app::set_run_stopped(app::RunStop::kTimeLimit);
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  bool passed_ = false;
  std::thread thread_;  // last: it starts once the members it uses exist
};

}  // namespace

std::optional<std::string> port_taken_since_loaded(const scenario::Scenario& scenario) {
  auto taken = [](const std::string& name, uint16_t port, const std::string& why) {
    return "${port:" + name + "} = " + std::to_string(port) +
           " was free when the scenario was submitted and cannot be used now (" + why +
           "); nothing was started: submit the scenario again for a free port";
  };
  for (const auto& [name, port] : scenario.ports) {
    if (auto why = app::why_cannot_listen("127.0.0.1:" + std::to_string(port))) {
      return taken(name, port, *why);
    }
  }
  // A key may name the port on another loopback address (127.0.0.53:${port:sut}, [::1]:...),
  // where a listener holds no port of 127.0.0.1's and would be what the load reaches: each such
  // address is bound as written too.
  for (const Reach& address : addresses_reached(scenario)) {
    const net::HostPortSplit split = net::split_host_port(address.value, net::kDialMinPort);
    if (!split.ok() || !security::is_loopback_host(split.host)) continue;
    for (const auto& [name, port] : scenario.ports) {
      if (port != split.port) continue;
      if (auto why = app::why_cannot_listen(address.value)) {
        return taken(name, port, address.what + " '" + shown_text(address.value) + "': " + *why);
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> pin_checked_programs(const scenario::Scenario& scenario,
                                                const std::vector<std::string>& allowed,
                                                processes::PinnedPrograms& pinned) {
  const std::vector<Reach> programs = programs_started(scenario);
  // pin_programs made each program a run spawns absolute; the others (an adapter's tool) are
  // the files the service resolved as it started (resolve_adapter_programs), which the bundled
  // worker runs.
  for (const Reach& program : programs) {
    if (program.value.find('/') != std::string::npos) pinned.pin(program.value);
  }
  if (auto changed = program_changed_since_admitted(scenario, allowed)) return changed;
  for (const Reach& program : programs) {
    if (pinned.names_another_file(program.value)) {
      return program.what + " '" + shown_text(program.value) +
             "' named another file while it was checked again as the job started; nothing was "
             "started: submit the scenario again";
    }
  }
  if (!pinned.install()) return "the programs of another job are pinned; nothing was started";
  return std::nullopt;
}

bool stop_reached_run(const report::ScenarioReport& r) {
  // The engine stopped for it, or the engine had ended well and run_one made the run exit 3
  // for it (app/run_one.cc). A run that failed on its own exits 3 anyway: its failure is what
  // it is told.
  return r.result.interrupted || (r.result.ok() && r.exit_code == cli::kExitRunError);
}

void RunExecutor::interrupt() { app::set_run_cancelled(true); }

std::string RunExecutor::job_log_dir(uint64_t id) const {
  return (std::filesystem::path(options_.log_dir) / ("job-" + std::to_string(id))).string();
}

void RunExecutor::forget(uint64_t id) {
  std::error_code ec;
  std::filesystem::remove_all(job_log_dir(id), ec);
}

void RunExecutor::run(Job& job) {
  // Cleared first, then set for a cancel already asked: a cancel asked meanwhile is either seen
  // here or sets the flag itself afterwards (JobQueue::cancel asks the job, then interrupts).
  app::set_run_cancelled(false);
  if (job.cancel_requested()) app::set_run_cancelled(true);
  job.update([](JobStatus& s) {
    s.state = JobState::kRunning;
    s.started_unix_ns = unix_now_ns();
  });
  // Checked again as late as possible: the job may have waited long in the queue (a port taken
  // meanwhile; a program no longer the file allowed at submission, admission.h).
  std::optional<std::string> cannot_start = port_taken_since_loaded(job.scenario());
  // A submitted scenario's programs start from the files checked now, however long into the
  // run they start (processes/pinned_programs.h): opened before the check, so that each
  // descriptor is of a file that passed it.
  processes::PinnedPrograms pinned;
  if (!cannot_start && job.options().allowed_commands) {
    cannot_start = pin_checked_programs(job.scenario(), *job.options().allowed_commands, pinned);
  }
  if (seams_.programs_checked) seams_.programs_checked();
  if (cannot_start) {
    if (UniqueFile err = open_job_output(job, true, private_folders_)) {
      std::fprintf(err.get(), "error: %s\n", cannot_start->c_str());
    }
    const bool cancelled = job.close_cancels();
    job.update([&](JobStatus& s) {
      s.state = cancelled ? JobState::kCancelled : JobState::kFinished;
      s.exit_code = cli::kExitRunError;
      s.error = *cannot_start;
      s.finished_unix_ns = unix_now_ns();
    });
    app::set_run_cancelled(false);
    return;
  }

  const app::RunPolicy policy{job.options().baseline, job.options().promote, job.options().strict};
  store::RunInfo info = info_;
  info.commit = job.options().commit;
  info.branch = job.options().branch;
  info.labels = job.options().labels;
  // A client's run is a point of the clients' series only, never of the operator's
  // (docs/GATES.md, "Series and baselines").
  info.origin = job.status().origin;

  // Each run gets its own folder for the children's logs, kept when the run fails, until the
  // queue forgets the job (forget).
  engine::EngineOptions options = options_;
  std::error_code ec;
  options.log_dir = job_log_dir(job.id());
  std::filesystem::create_directories(options.log_dir, ec);

  UniqueFile out = open_job_output(job, false, private_folders_);
  UniqueFile err = open_job_output(job, true, private_folders_);
  report::ScenarioReport r;
  RunDeadline deadline(job.options().max_run_ns);
  bool stopped_by_deadline = false;
  bool stopped = false;
  {
    report::TerminalReport terminal(out.get(), err.get());
    ProgressForwarder progress(job);
    engine::FanOutObserver extra({&metrics_, &progress, &live_});
    if (store::submitted_by(info.origin) == store::kClientRuns) metrics_.begin_client_run();
    // The run's id as soon as its row exists: GetRun, ListRuns and the live page link it
    // while it runs.
    r = app::run_one(
        job.scenario(), policy, options, db_, info, terminal, &extra,
        [&job](int64_t run_id) { job.update([&](JobStatus& s) { s.run_id = run_id; }); });
    if (seams_.judged) seams_.judged([&deadline] { deadline.pass_now(); });
    deadline.finished();  // what comes after the run is not stopped
    // The deadline may have come once run_one had judged the run for the last time (while it
    // stored it, or as it returned): that run went to its end, and is not made a stopped one.
    stopped_by_deadline = deadline.passed() && stop_reached_run(r);
    if (seams_.deadline_checked) seams_.deadline_checked();
    // The job's outcome is settled here, once: a cancel asked before counts wherever the run
    // was when it came, one asked after is refused (Job::request_cancel), so none is lost or
    // half taken. The job's exit, its stored run and the gauges all follow `stopped`; the flag
    // says the same, whatever a deadline that came too late had set.
    stopped = job.close_cancels() || stopped_by_deadline || app::interrupt_signal() != 0;
    // Why, for the stored run's reason (interrupt_description): the limit where it stopped
    // the run, else the client's cancel.
    app::set_run_stopped(stopped_by_deadline ? app::RunStop::kTimeLimit
                         : stopped           ? app::RunStop::kCancelled
                                             : app::RunStop::kNone);
    // A cancel that came after the run was stored still makes the job exit 3: the stored run
    // says so too, and is not promoted (app::promote_run).
    if (stopped && r.exit_code != cli::kExitRunError) {
      r.exit_code = cli::kExitRunError;
      if (r.run_id != 0) {
        if (auto raised = db_.raise_exit_code(r.run_id, r.exit_code, app::interrupt_description());
            !raised) {
          terminal.message("error: " + raised.message());
        } else {
          r.add_error(app::interrupt_description());
        }
      }
    }
    // A deferred promotion is the client's, through Promote once every job of its invocation
    // exited 0 (orchestrator_service.h): the run is not added here.
    if (!job.options().promote_deferred) app::promote_run(r, policy, db_, terminal);
  }
  live_.finished();
  // The verdict gauges are the operator's: a client's run only counts (client_run_finished).
  if (store::submitted_by(info.origin) == store::kClientRuns) {
    metrics_.client_run_finished(r);
  } else {
    metrics_.scenario_finished(r, info.commit);
  }

  // The same lines `orchestrator run` prints after each scenario.
  report::print_scenario_end(r, out.get(), err.get());
  const bool cancelled = stopped;
  const std::string over_time = stopped_by_deadline
                                    ? "the run went on for this service's --max-run-seconds (" +
                                          std::to_string(job.options().max_run_ns / 1'000'000'000) +
                                          " s), the longest it lets a submitted scenario run"
                                    : "";
  if (!over_time.empty()) {
    std::fprintf(err.get(), "run stopped: %s; every child process was stopped\n",
                 over_time.c_str());
  } else if (cancelled) {
    std::fprintf(err.get(), "run cancelled: every child process was stopped\n");
  }
  if (r.exit_code == cli::kExitRunError) {
    // The client learns the folder's name, the operator (the service's log) where it is.
    std::fprintf(err.get(), "child process logs: job-%llu in the service's log folder\n",
                 static_cast<unsigned long long>(job.id()));
    std::fprintf(stderr,
                 "serve: job %llu: child process logs kept in %s until the service forgets the "
                 "job (--keep-finished)\n",
                 static_cast<unsigned long long>(job.id()), options.log_dir.c_str());
  } else {
    std::filesystem::remove_all(options.log_dir, ec);
  }
  std::fflush(out.get());
  std::fflush(err.get());
  out.reset();
  err.reset();

  job.update([&](JobStatus& s) {
    s.state = cancelled ? JobState::kCancelled : JobState::kFinished;
    s.exit_code = r.exit_code;  // 3 when stopped, as the stored run and the gauge say
    s.run_id = r.run_id;
    // What the stored run says (runs.error), so that GetRun, Watch and the store agree; the
    // lines above said more to the client.
    s.error = without_folders(r.run_error(), private_folders_);
    s.finished_unix_ns = unix_now_ns();
  });
  app::set_run_cancelled(false);
}

}  // namespace benchgate::serve
