// The service's scheduler: one job at a time, the others wait in submission order. A single
// thread takes the next job and hands it to the executor; cancel and shutdown reach a
// running job through the executor's interrupt().
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
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
};

class JobQueue {
 public:
  explicit JobQueue(JobExecutor& executor);
  ~JobQueue();  // shutdown()

  // Queues a job; an error once shutdown has begun. `position` receives the jobs ahead.
  Expected<std::shared_ptr<Job>> submit(scenario::Scenario scenario, JobOptions options,
                                        std::string origin, uint32_t& position);
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

  JobExecutor& executor_;
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
