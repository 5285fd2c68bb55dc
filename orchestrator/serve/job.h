// One submission to `orchestrator serve` (a job): its scenario, options, state and the events
// it produced (output text, live progress, status changes), kept so that a Watch started
// late replays them. Domain types only; the gRPC service translates.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/util/expected.h"
#include "orchestrator/scenario/scenario.h"

namespace benchgate::serve {

enum class JobState { kQueued, kRunning, kFinished, kCancelled };

// What `orchestrator run` takes as flags, per submission.
struct JobOptions {
  std::string commit;
  std::string branch;
  std::map<std::string, std::string> labels;
  std::string baseline;
  std::string promote;
  // A Submit's deferred_promote: `promote` names the baseline, but the job does not promote its
  // run itself; a later Promote naming the job may (orchestrator_service.h).
  bool promote_deferred = false;
  // With promote_deferred: the SHA-256 (hex) of the Submit's promote_key, which a Promote must
  // carry (promote_key.h). Only the digest is kept, and nothing returns it to any client.
  std::string promote_key_sha256;
  bool strict = false;
  // A scenario a client sent: the longest its run may go (serve --max-run-seconds), after
  // which it is stopped as a cancel stops it; 0: no limit (the operator's scenarios).
  int64_t max_run_ns = 0;
  // A scenario a client sent: serve --allow-command. Its programs were pinned to the files
  // checked at submission (admission.h, pin_programs), are checked against it again as the
  // job starts and then start from the files opened for that check (run_executor.h,
  // pin_checked_programs); none for the operator's scenarios.
  std::optional<std::vector<std::string>> allowed_commands;
};

// How check_job_options' errors name a value: as `orchestrator run`'s flag (--commit, --label),
// as the field of a Submit request (commit, labels), or as what the git work tree gave (a
// commit or branch found there, not given as a flag; the error says so and which flag gives
// another value): kFromGitStored for a local run or `calibrate`, which store it ("give --branch
// to store another"), kFromGitSent for `run --server`, which sends it ("... to send another").
enum class OptionNames { kFlags, kFields, kFromGitStored, kFromGitSent };

// The longest commit and branch, the most labels and the longest label key and value a run
// may carry: each is stored with the run and kept by the service (a label of its metrics, a
// row of its pages) for every job it lists, so a client's submission cannot grow the service's
// memory without bound. Far above what git gives (a SHA-256 commit with -dirty is 70 bytes).
inline constexpr size_t kMaxCommitOrBranchBytes = 256;
inline constexpr size_t kMaxLabels = 64;
inline constexpr size_t kMaxLabelKeyBytes = 128;
inline constexpr size_t kMaxLabelValueBytes = 1024;

// The options' values, checked as `orchestrator run` checks its flags before anything starts
// (the service checks a submission's before queueing it): a --promote name the store would
// refuse only when the run ends would cost the whole run. The commit, the branch and every
// label's key and value are stored and printed by `runs list` and `runs show`: one with a
// control character (a line break, an escape; any that shown_text escapes) or invalid UTF-8
// would forge rows or colour a terminal there, and is refused. The error names the flag or
// the field, and shows the value escaped. So is a value longer than the bounds above (its
// first characters and its length shown), and more labels than kMaxLabels.
Expected<void> check_job_options(const JobOptions& options,
                                 OptionNames names = OptionNames::kFlags);

struct JobStatus {
  uint64_t id = 0;
  std::string scenario;
  JobState state = JobState::kQueued;
  int exit_code = 0;
  int64_t run_id = 0;
  std::string error;
  int64_t submitted_unix_ns = 0;
  int64_t started_unix_ns = 0;
  int64_t finished_unix_ns = 0;
  std::string origin;  // "client" or "scheduled"

  bool ended() const { return state == JobState::kFinished || state == JobState::kCancelled; }
};

struct JobOutput {
  bool to_stderr = false;
  std::string text;
};

struct JobProgress {
  std::string workload;
  uint32_t repetition = 0;
  uint32_t repetitions = 0;
  double ops_per_second = 0;
  double p99_seconds = 0;
  double elapsed_seconds = 0;
  double duration_seconds = 0;
};

using JobEvent = std::variant<JobOutput, JobProgress, JobStatus>;

// What a job keeps of its events for watchers (serve --keep-output-bytes): its output and
// statuses up to this many bytes, the oldest dropped past it, and its latest progress events.
inline constexpr size_t kDefaultKeptEventBytes = 1 << 20;
// What the ended jobs keep together (serve --keep-output-total-bytes, JobQueue).
inline constexpr size_t kDefaultKeptTotalBytes = size_t{64} << 20;
inline constexpr size_t kProgressEventsKept = 64;

class Job {
 public:
  Job(uint64_t id, scenario::Scenario scenario, JobOptions options, std::string origin,
      size_t kept_event_bytes = kDefaultKeptEventBytes);

  uint64_t id() const { return id_; }
  const scenario::Scenario& scenario() const { return scenario_; }
  const JobOptions& options() const { return options_; }

  JobStatus status() const;
  // Cancel asked for (by a client or a shutdown); the executor checks it when it starts. False,
  // and nothing asked, once the job's outcome is final (close_cancels): a cancel that came too
  // late to change it, which then must not stop anything either.
  bool request_cancel();
  bool cancel_requested() const;
  // The executor settles the job's outcome: from now on a cancel is refused. Whether one was
  // asked before, which the job's exit, its stored run and the gauges then all follow.
  bool close_cancels();
  // Changes the status (the update sees the current one) and emits the new status.
  template <class F>
  void update(F&& change) {
    std::lock_guard lock(mutex_);
    change(status_);
    keep(status_);
    changed_.notify_all();
  }
  void emit(JobEvent event);

  // The jobs of the Promote request that added this job's run to its deferred-promote
  // baseline (this one among them), or empty: not promoted. Set once, by that request.
  std::vector<uint64_t> promoted_with() const;
  void set_promoted_with(std::vector<uint64_t> jobs);

  // What the job's kept events cost, as kept_event_bytes counts them.
  size_t kept_bytes() const;
  // For `total_bound`, the bound on the ended jobs' output together (JobQueue): drops the job's
  // oldest events until `bytes` are freed or only its latest one (the final status) is left,
  // and returns the bytes freed. A watcher that had not read them is told, naming the bound.
  size_t drop_oldest(size_t bytes, size_t total_bound);

  // The events kept from position `next` on (0 at first), waiting up to `wait` for at least
  // one; `next` moves past them for the next call. When output from `next` on was dropped
  // (kept_event_bytes), the events start with a line saying so. `ended` tells whether the job
  // has ended (no further events will come).
  std::vector<JobEvent> events_since(uint64_t& next, std::chrono::milliseconds wait,
                                     bool& ended) const;

 private:
  struct Kept {
    uint64_t position;
    JobEvent event;
  };
  // Appends an event and drops what the bounds say (the mutex held).
  void keep(JobEvent event);
  // Drops the oldest kept event and returns its bytes (the mutex held, two or more kept).
  size_t drop_front();

  const uint64_t id_;
  const scenario::Scenario scenario_;
  const JobOptions options_;
  mutable std::mutex mutex_;
  bool cancel_requested_ = false;  // the mutex held, as cancels_closed_
  bool cancels_closed_ = false;
  std::vector<uint64_t> promoted_with_;  // the mutex held
  mutable std::condition_variable changed_;
  JobStatus status_;
  const size_t kept_event_bytes_;
  std::deque<Kept> events_;  // in position order, with gaps where events were dropped
  uint64_t next_position_ = 0;
  size_t kept_bytes_ = 0;              // of events_ (event_bytes)
  size_t progress_kept_ = 0;           // progress events in events_
  uint64_t dropped_before_ = 0;        // output before this position was dropped
  uint64_t dropped_output_bytes_ = 0;  // its text, in all
  bool dropped_for_total_ = false;     // the latest drop was drop_oldest's
  size_t kept_total_bytes_ = 0;        // its total_bound
};

}  // namespace benchgate::serve
