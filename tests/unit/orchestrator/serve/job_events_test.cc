// What a job of `orchestrator serve` keeps for its watchers is bounded in bytes
// (orchestrator/serve/job.h, serve --keep-output-bytes): past the bound the oldest output
// goes and a watcher that missed it is told how many bytes, a watcher that kept up is told
// nothing, only the latest progress events stay, and the final status always does.
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/serve/job.h"

namespace benchgate::serve {
namespace {

constexpr std::chrono::milliseconds kNoWait{0};

struct Seen {
  std::string output;
  std::vector<std::string> notes;  // output lines that start with "[the service keeps"
  size_t progress = 0;
  std::vector<JobStatus> statuses;
};

Seen watch(const Job& job, uint64_t& from) {
  Seen seen;
  bool ended = false;
  for (const JobEvent& event : job.events_since(from, kNoWait, ended)) {
    if (const auto* o = std::get_if<JobOutput>(&event)) {
      if (o->text.starts_with("[the service keeps")) {
        seen.notes.push_back(o->text);
      } else {
        seen.output += o->text;
      }
    } else if (std::holds_alternative<JobProgress>(event)) {
      ++seen.progress;
    } else {
      seen.statuses.push_back(std::get<JobStatus>(event));
    }
  }
  return seen;
}

const std::string kLine = std::string(99, 'x') + "\n";

TEST(JobEvents, ALateWatcherGetsTheTailOfABigOutputAndHowMuchWasDropped) {
  Job job(1, scenario::Scenario{}, {}, "client", 8192);
  for (int i = 0; i < 1000; ++i) job.emit(JobOutput{false, kLine});
  job.emit(JobOutput{false, "the last line\n"});
  uint64_t from = 0;
  const Seen seen = watch(job, from);
  ASSERT_EQ(seen.notes.size(), 1u);
  EXPECT_LT(seen.output.size(), 8192u);
  EXPECT_TRUE(seen.output.ends_with(kLine + "the last line\n")) << seen.output;
  // Every byte is either kept or counted as dropped.
  const size_t dropped = 1000 * kLine.size() + 14 - seen.output.size();
  EXPECT_EQ(seen.notes[0],
            "[the service keeps 8192 bytes of a job's output (serve "
            "--keep-output-bytes): " +
                std::to_string(dropped) + " bytes of this job's earlier output were dropped]\n");
  // Asked again, the note is not repeated.
  EXPECT_TRUE(watch(job, from).notes.empty());
}

TEST(JobEvents, AWatcherThatKeptUpSeesEveryLineAndNoNote) {
  Job job(1, scenario::Scenario{}, {}, "client", 8192);
  uint64_t from = 0;
  std::string output;
  for (int i = 0; i < 1000; ++i) {
    job.emit(JobOutput{false, kLine});
    const Seen seen = watch(job, from);
    EXPECT_TRUE(seen.notes.empty()) << i;
    output += seen.output;
  }
  EXPECT_EQ(output.size(), 1000 * kLine.size());
}

TEST(JobEvents, OnlyTheLatestProgressEventsAreKept) {
  Job job(1, scenario::Scenario{}, {}, "client");
  job.emit(JobOutput{false, "started\n"});
  for (int i = 0; i < 1000; ++i) job.emit(JobProgress{"w", 1, 2, double(i), 0, 0, 1});
  uint64_t from = 0;
  const Seen seen = watch(job, from);
  EXPECT_EQ(seen.progress, kProgressEventsKept);
  EXPECT_EQ(seen.output, "started\n");
  EXPECT_TRUE(seen.notes.empty());
}

TEST(JobEvents, TheFinalStatusStaysAfterAnyOutput) {
  Job job(1, scenario::Scenario{}, {}, "client", 8192);
  job.emit(JobOutput{false, std::string(100'000, 'y') + "\n"});
  job.update([](JobStatus& s) {
    s.state = JobState::kFinished;
    s.exit_code = 1;
  });
  uint64_t from = 0;
  const Seen seen = watch(job, from);
  ASSERT_EQ(seen.statuses.size(), 1u);
  EXPECT_EQ(seen.statuses.back().exit_code, 1);
  EXPECT_TRUE(seen.output.empty());
  ASSERT_EQ(seen.notes.size(), 1u);
  EXPECT_NE(seen.notes[0].find(": 100001 bytes of this job's earlier output were dropped]"),
            std::string::npos)
      << seen.notes[0];
}

}  // namespace
}  // namespace benchgate::serve
