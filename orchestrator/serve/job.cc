// See job.h.
#include "orchestrator/serve/job.h"

#include <algorithm>
#include <string_view>
#include <tuple>
#include <utility>

#include "common/time/clock.h"
#include "common/util/baseline_name.h"
#include "common/util/shown_text.h"

namespace benchgate::serve {

Expected<void> check_job_options(const JobOptions& options, OptionNames names) {
  const bool flags = names != OptionNames::kFields;
  const bool from_git = names == OptionNames::kFromGitStored || names == OptionNames::kFromGitSent;
  // "--commit 'VALUE'", "field 'commit' ('VALUE')" or "the commit git gives ('VALUE')"
  auto named = [flags, from_git](const char* flag, const char* field, std::string_view value) {
    if (from_git) {
      return "the " + std::string(field) + " the git work tree gives ('" + shown_text(value) +
             "', not given as " + flag + ")";
    }
    return flags ? std::string(flag) + " '" + shown_text(value) + "'"
                 : "field '" + std::string(field) + "' ('" + shown_text(value) + "')";
  };
  // After a refused value git gave: which flag gives another ("; give --branch to store
  // another"); nothing for a flag or a field, whose own value is refused.
  auto give_another = [names, from_git](const char* flag) {
    if (!from_git) return std::string();
    return std::string("; give ") + flag +
           (names == OptionNames::kFromGitSent ? " to send another" : " to store another");
  };
  constexpr const char* kUnprintable =
      " has a control character (a line break, a tab, an escape) or invalid UTF-8; none is "
      "accepted in what is stored with the run (`runs list` and `runs show` print it)";
  // A value too long to keep is named by its first characters and its length, not printed
  // whole (a 300 KB commit would fill the error line it is refused with).
  auto too_long = [&](const char* flag, const char* field, std::string_view value, size_t size,
                      size_t max, const char* what) {
    const std::string start(value.substr(0, 24));
    return Error{named(flag, field, start + "...") + " has " + std::to_string(size) + " bytes; " +
                 what + " may have at most " + std::to_string(max) +
                 " (it is stored with the run and is a label of the service's metrics)" +
                 give_another(flag)};
  };
  for (const auto& [flag, field, value] : {std::tuple{"--commit", "commit", &options.commit},
                                           std::tuple{"--branch", "branch", &options.branch}}) {
    if (value->size() > kMaxCommitOrBranchBytes) {
      return too_long(flag, field, *value, value->size(), kMaxCommitOrBranchBytes,
                      field == std::string_view("commit") ? "a commit" : "a branch");
    }
    if (!prints_as_itself(*value)) {
      return Error{named(flag, field, *value) + kUnprintable + give_another(flag)};
    }
  }
  if (options.labels.size() > kMaxLabels) {
    return Error{(flags ? std::string("--label is given ") : std::string("field 'labels' has ")) +
                 std::to_string(options.labels.size()) + (flags ? " times" : " labels") +
                 "; a run may have at most " + std::to_string(kMaxLabels)};
  }
  for (const auto& [key, value] : options.labels) {
    if (key.size() > kMaxLabelKeyBytes) {
      return too_long("--label", "labels", key, key.size(), kMaxLabelKeyBytes, "a label's key");
    }
    if (value.size() > kMaxLabelValueBytes) {
      return too_long("--label", "labels", key + "=" + value, value.size(), kMaxLabelValueBytes,
                      "a label's value");
    }
    if (!prints_as_itself(key) || !prints_as_itself(value)) {
      return Error{named("--label", "labels", key + "=" + value) + kUnprintable};
    }
  }
  for (const auto& [flag, field, name] :
       {std::tuple{"--promote", "promote", &options.promote},
        std::tuple{"--baseline", "baseline", &options.baseline}}) {
    if (name->empty()) continue;
    if (std::string why = baseline_name_reason(*name); !why.empty()) {
      // The field's message is the store's ("field 'promote': baseline name 'a b' may ...");
      // a flag says itself what the value is: "--promote 'a b' may contain only ...".
      if (!flags) {
        return Error{"field '" + std::string(field) + "': " + baseline_name_problem(*name)};
      }
      return Error{std::string(flag) + " " + why};
    }
  }
  return {};
}

namespace {

// What an event costs the service to keep: its slot and the text it holds.
size_t event_bytes(const JobEvent& event) {
  size_t text = 0;
  if (const auto* o = std::get_if<JobOutput>(&event)) text = o->text.size();
  if (const auto* p = std::get_if<JobProgress>(&event)) text = p->workload.size();
  if (const auto* s = std::get_if<JobStatus>(&event)) text = s->error.size() + s->scenario.size();
  return sizeof(JobEvent) + sizeof(uint64_t) + text;
}

}  // namespace

Job::Job(uint64_t id, scenario::Scenario scenario, JobOptions options, std::string origin,
         size_t kept_event_bytes)
    : id_(id),
      scenario_(std::move(scenario)),
      options_(std::move(options)),
      kept_event_bytes_(kept_event_bytes) {
  status_.id = id;
  status_.scenario = scenario_.name;
  status_.origin = std::move(origin);
  status_.submitted_unix_ns = unix_now_ns();
  keep(status_);
}

JobStatus Job::status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

bool Job::request_cancel() {
  std::lock_guard lock(mutex_);
  if (cancels_closed_) return false;
  cancel_requested_ = true;
  return true;
}

bool Job::cancel_requested() const {
  std::lock_guard lock(mutex_);
  return cancel_requested_;
}

bool Job::close_cancels() {
  std::lock_guard lock(mutex_);
  cancels_closed_ = true;
  return cancel_requested_;
}

std::vector<uint64_t> Job::promoted_with() const {
  std::lock_guard lock(mutex_);
  return promoted_with_;
}

void Job::set_promoted_with(std::vector<uint64_t> jobs) {
  std::lock_guard lock(mutex_);
  promoted_with_ = std::move(jobs);
}

void Job::emit(JobEvent event) {
  std::lock_guard lock(mutex_);
  keep(std::move(event));
  changed_.notify_all();
}

void Job::keep(JobEvent event) {
  const bool progress = std::holds_alternative<JobProgress>(event);
  kept_bytes_ += event_bytes(event);
  events_.push_back({next_position_++, std::move(event)});
  // A progress event is news only until the next one: the oldest goes.
  if (progress && ++progress_kept_ > kProgressEventsKept) {
    auto oldest = std::find_if(events_.begin(), events_.end(), [](const Kept& k) {
      return std::holds_alternative<JobProgress>(k.event);
    });
    kept_bytes_ -= event_bytes(oldest->event);
    events_.erase(oldest);
    --progress_kept_;
  }
  // Past the bound the oldest events go; the latest (the final status) always stays.
  while (kept_bytes_ > kept_event_bytes_ && events_.size() > 1) {
    drop_front();
    dropped_for_total_ = false;
  }
}

size_t Job::drop_front() {
  const Kept& front = events_.front();
  if (const auto* o = std::get_if<JobOutput>(&front.event)) {
    dropped_output_bytes_ += o->text.size();
    dropped_before_ = front.position + 1;
  }
  if (std::holds_alternative<JobProgress>(front.event)) --progress_kept_;
  const size_t bytes = event_bytes(front.event);
  kept_bytes_ -= bytes;
  events_.pop_front();
  return bytes;
}

size_t Job::kept_bytes() const {
  std::lock_guard lock(mutex_);
  return kept_bytes_;
}

size_t Job::drop_oldest(size_t bytes, size_t total_bound) {
  std::lock_guard lock(mutex_);
  kept_total_bytes_ = total_bound;
  size_t freed = 0;
  while (freed < bytes && events_.size() > 1) {
    freed += drop_front();
    dropped_for_total_ = true;
  }
  return freed;
}

std::vector<JobEvent> Job::events_since(uint64_t& next, std::chrono::milliseconds wait,
                                        bool& ended) const {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, wait, [&] { return next_position_ > next || status_.ended(); });
  ended = status_.ended();
  std::vector<JobEvent> out;
  if (dropped_before_ > next) {
    const std::string bound = dropped_for_total_
                                  ? std::to_string(kept_total_bytes_) +
                                        " bytes of its ended jobs' output together (serve "
                                        "--keep-output-total-bytes)"
                                  : std::to_string(kept_event_bytes_) +
                                        " bytes of a job's output (serve --keep-output-bytes)";
    out.push_back(JobOutput{true, "[the service keeps " + bound + ": " +
                                      std::to_string(dropped_output_bytes_) +
                                      " bytes of this job's earlier output were dropped]\n"});
  }
  auto it = std::lower_bound(events_.begin(), events_.end(), next,
                             [](const Kept& k, uint64_t p) { return k.position < p; });
  for (; it != events_.end(); ++it) out.push_back(it->event);
  next = next_position_;
  return out;
}

}  // namespace benchgate::serve
