// See job.h.
#include "orchestrator/serve/job.h"

#include <utility>

#include "common/time/clock.h"
#include "orchestrator/store/store.h"

namespace benchgate::serve {

Expected<void> check_job_options(const JobOptions& options) {
  for (const auto& [flag, name] :
       {std::pair{"--promote", &options.promote}, std::pair{"--baseline", &options.baseline}}) {
    if (name->empty()) continue;
    if (auto valid = store::check_baseline_name(*name); !valid) {
      return Error{std::string(flag) + " " + valid.message()};
    }
  }
  return {};
}

Job::Job(uint64_t id, scenario::Scenario scenario, JobOptions options, std::string origin)
    : id_(id), scenario_(std::move(scenario)), options_(std::move(options)) {
  status_.id = id;
  status_.scenario = scenario_.name;
  status_.origin = std::move(origin);
  status_.submitted_unix_ns = unix_now_ns();
  events_.push_back(status_);
}

JobStatus Job::status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

void Job::emit(JobEvent event) {
  std::lock_guard lock(mutex_);
  events_.push_back(std::move(event));
  changed_.notify_all();
}

std::vector<JobEvent> Job::events_since(size_t from, std::chrono::milliseconds wait,
                                        bool& ended) const {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, wait, [&] { return events_.size() > from || status_.ended(); });
  ended = status_.ended();
  if (from >= events_.size()) return {};
  return {events_.begin() + static_cast<std::ptrdiff_t>(from), events_.end()};
}

}  // namespace benchgate::serve
