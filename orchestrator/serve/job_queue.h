// The service's scheduler: one job at a time, the others wait in submission order. A single
// thread takes the next job and hands it to the executor; cancel and shutdown reach a
// running job through the executor's interrupt(). Bounded, so that a long-running service's
// memory does not grow with its clients: at most `max_waiting` jobs wait (a submission past
// that is refused, `full` set), and of the jobs that ended only the newest `finished_kept` stay
// listed and watchable (their runs stay in the store; a watcher that already holds a job
// keeps it; the executor forgets what it kept of them, JobExecutor::forget), each with at most
// `event_bytes_kept` of its output, all of them together with at most `total_bytes_kept` (and the
// running job with its own on top).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "common/util/expected.h"
#include "orchestrator/serve/job.h"

namespace benchgate::serve {

class JobExecutor {
 public:
  virtual ~JobExecutor() = default;
  // Runs the job to its end on the calling thread; sets its final status.
  virtual void run(Job& job) = 0;
  // Asks the running job to stop soon (its children stopped, the run recorded as aborted).
  virtual void interrupt() = 0;
  // The queue forgot the ended job `id` (JobQueueLimits::finished_kept): what the executor
  // kept of it beyond the job goes with it (RunExecutor: its children's log folder). Called
  // without the queue's lock held.
  virtual void forget(uint64_t /*id*/) {}
};

struct JobQueueLimits {
  size_t max_waiting = 100;     // serve --max-queued
  size_t finished_kept = 1000;  // serve --keep-finished
  // serve --keep-output-bytes: what each job keeps of its output (Job).
  size_t event_bytes_kept = kDefaultKeptEventBytes;
  // serve --keep-output-total-bytes: what the ended jobs keep together; past it the oldest
  // ended jobs' output goes first, their final statuses stay.
  size_t total_bytes_kept = kDefaultKeptTotalBytes;
};

class JobQueue {
 public:
  explicit JobQueue(JobExecutor& executor, JobQueueLimits limits = {});
  ~JobQueue();  // shutdown()

  // Queues a job; an error once shutdown has begun, or with max_waiting jobs waiting (then
  // `full` is set: try again later). `position` receives the jobs ahead.
  Expected<std::shared_ptr<Job>> submit(scenario::Scenario scenario, JobOptions options,
                                        std::string origin, uint32_t& position, bool& full);
  // Whether `jobs` submissions in a row would all be taken now, and queues nothing: an error as
  // submit's (`full` set alike) when the jobs that wait and these would be more than
  // max_waiting, else the jobs the first of them would have ahead (a Submit with validate_only
  // and jobs_to_submit; `run --server` with several files asks for room for all of them).
  Expected<uint32_t> would_accept(size_t jobs, bool& full) const;
  // serve --keep-finished: how many ended jobs are held (a forgotten one cannot be promoted).
  size_t finished_kept() const { return limits_.finished_kept; }
  std::shared_ptr<Job> find(uint64_t id) const;
  std::vector<JobStatus> list() const;  // newest first
  // Cancels a queued or running job; nullptr for an unknown id.
  std::shared_ptr<Job> cancel(uint64_t id);
  // True when nothing runs and nothing waits.
  bool idle() const;
  // Refuses new jobs, cancels the queued ones, interrupts the running one, waits for it.
  void shutdown();

 private:
  void loop();
  // Why `jobs` submissions are refused now, if they are (the mutex held).
  std::optional<Error> refusal(size_t jobs, bool& full) const;
  // Forgets the oldest ended jobs past finished_kept, then drops the oldest ended jobs' output
  // past total_bytes_kept (the mutex held). The ids forgotten, for JobExecutor::forget once
  // the mutex is released.
  [[nodiscard]] std::vector<uint64_t> forget_old_finished();
  // JobExecutor::forget for each of `ids` (the mutex not held).
  void forget(const std::vector<uint64_t>& ids);

  JobExecutor& executor_;
  const JobQueueLimits limits_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::map<uint64_t, std::shared_ptr<Job>> jobs_;
  std::deque<std::shared_ptr<Job>> waiting_;
  std::shared_ptr<Job> running_;
  uint64_t next_id_ = 1;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace benchgate::serve
