// See job_queue.h.
#include "orchestrator/serve/job_queue.h"

#include <algorithm>
#include <string>

#include "common/time/clock.h"
#include "orchestrator/cli/exit_codes.h"

namespace benchgate::serve {
namespace {

void mark_cancelled(Job& job, const std::string& why) {
  job.update([&](JobStatus& s) {
    s.state = JobState::kCancelled;
    s.exit_code = cli::kExitRunError;
    s.error = why;
    s.finished_unix_ns = unix_now_ns();
  });
}

}  // namespace

JobQueue::JobQueue(JobExecutor& executor, JobQueueLimits limits)
    : executor_(executor), limits_(limits), thread_([this] { loop(); }) {}

JobQueue::~JobQueue() { shutdown(); }

Expected<std::shared_ptr<Job>> JobQueue::submit(scenario::Scenario scenario, JobOptions options,
                                                std::string origin, uint32_t& position,
                                                bool& full) {
  std::lock_guard lock(mutex_);
  if (auto refused = refusal(1, full)) return *refused;
  auto job = std::make_shared<Job>(next_id_++, std::move(scenario), std::move(options),
                                   std::move(origin), limits_.event_bytes_kept);
  position = static_cast<uint32_t>(waiting_.size() + (running_ ? 1 : 0));
  jobs_[job->id()] = job;
  waiting_.push_back(job);
  wake_.notify_all();
  return job;
}

Expected<uint32_t> JobQueue::would_accept(size_t jobs, bool& full) const {
  std::lock_guard lock(mutex_);
  if (auto refused = refusal(jobs, full)) return *refused;
  return static_cast<uint32_t>(waiting_.size() + (running_ ? 1 : 0));
}

std::optional<Error> JobQueue::refusal(size_t jobs, bool& full) const {
  full = false;
  if (stopping_) return Error{"the service is shutting down and accepts no new runs"};
  const size_t waiting = waiting_.size();
  // Compared without a sum that could wrap: waiting + jobs > max_waiting.
  if (waiting >= limits_.max_waiting || jobs > limits_.max_waiting - waiting) {
    full = true;
    const std::string max = " (serve --max-queued " + std::to_string(limits_.max_waiting) + ")";
    if (jobs > 1) {
      return Error{"the queue has no room for " + std::to_string(jobs) + " runs: " +
                   std::to_string(waiting) + (waiting == 1 ? " run waits" : " runs wait") +
                   " already, and at most " + std::to_string(limits_.max_waiting) + " may" + max +
                   "; submit fewer at once, or again when some have started"};
    }
    return Error{"the queue is full: " + std::to_string(waiting) +
                 (waiting == 1 ? " run waits" : " runs wait") + " already" + max +
                 "; submit again when one has started"};
  }
  return std::nullopt;
}

std::shared_ptr<Job> JobQueue::find(uint64_t id) const {
  std::lock_guard lock(mutex_);
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : it->second;
}

std::vector<JobStatus> JobQueue::list() const {
  std::lock_guard lock(mutex_);
  std::vector<JobStatus> out;
  for (auto it = jobs_.rbegin(); it != jobs_.rend(); ++it) out.push_back(it->second->status());
  return out;
}

std::shared_ptr<Job> JobQueue::cancel(uint64_t id) {
  std::vector<uint64_t> forgotten;
  std::shared_ptr<Job> job;
  {
    std::lock_guard lock(mutex_);
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return nullptr;
    job = it->second;
    auto w = std::find(waiting_.begin(), waiting_.end(), job);
    if (w != waiting_.end()) {
      waiting_.erase(w);
      mark_cancelled(*job, "cancelled before it started");
      forgotten = forget_old_finished();
    } else if (running_ == job && job->request_cancel()) {
      // A running job whose outcome is already settled refuses the cancel: it ends as it was
      // going to, and its run is not stopped for a job that is no longer cancelled.
      executor_.interrupt();
    }
  }
  forget(forgotten);
  return job;
}

bool JobQueue::idle() const {
  std::lock_guard lock(mutex_);
  return waiting_.empty() && !running_;
}

void JobQueue::shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) {
      stopping_ = true;
      for (auto& job : waiting_) mark_cancelled(*job, "the service shut down before it started");
      waiting_.clear();
      if (running_ && running_->request_cancel()) executor_.interrupt();
    }
    wake_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void JobQueue::loop() {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !waiting_.empty(); });
      if (stopping_) return;
      job = waiting_.front();
      waiting_.pop_front();
      running_ = job;
    }
    executor_.run(*job);
    std::vector<uint64_t> forgotten;
    {
      std::lock_guard lock(mutex_);
      running_.reset();
      forgotten = forget_old_finished();
    }
    forget(forgotten);
  }
}

void JobQueue::forget(const std::vector<uint64_t>& ids) {
  for (const uint64_t id : ids) executor_.forget(id);
}

std::vector<uint64_t> JobQueue::forget_old_finished() {
  std::vector<uint64_t> forgotten;
  auto pending = [&](const std::shared_ptr<Job>& job) {
    return job == running_ || std::find(waiting_.begin(), waiting_.end(), job) != waiting_.end();
  };
  size_t ended = jobs_.size() - waiting_.size() - (running_ ? 1 : 0);
  // Oldest first: the map is ordered by id, ids by submission.
  for (auto it = jobs_.begin(); ended > limits_.finished_kept && it != jobs_.end();) {
    if (pending(it->second)) {
      ++it;
      continue;
    }
    forgotten.push_back(it->first);
    it = jobs_.erase(it);
    --ended;
  }
  // The ended jobs' output together, the oldest job's dropped first: without this bound,
  // --keep-finished times --keep-output-bytes (about 1 GB at the defaults).
  size_t total = 0;
  for (const auto& [id, job] : jobs_) {
    if (!pending(job)) total += job->kept_bytes();
  }
  for (auto it = jobs_.begin(); total > limits_.total_bytes_kept && it != jobs_.end(); ++it) {
    if (pending(it->second)) continue;
    total -= it->second->drop_oldest(total - limits_.total_bytes_kept, limits_.total_bytes_kept);
  }
  return forgotten;
}

}  // namespace benchgate::serve
