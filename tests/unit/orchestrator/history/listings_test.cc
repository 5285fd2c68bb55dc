// `runs list` and `baseline list` tables from plain records.
#include "orchestrator/history/listings.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

#include <algorithm>

namespace benchgate::history {
namespace {

constexpr int64_t kListingStart = 1'700'000'000'000'000'000;  // 2023-11-14 22:13:20 UTC

class Listings : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

TEST_F(Listings, ARunListShowsEveryColumnAndDashesForWhatIsNotKnownYet) {
  // Designated, not assigned field by field: GCC 12 takes `done.status = "ok"` for a read of
  // uninitialized bytes (-Wmaybe-uninitialized).
  const store::RunSummary done{.id = 12,
                               .scenario = "quickstart",
                               .status = "ok",
                               .started_at_ns = kListingStart,
                               .finished_at_ns = kListingStart + 65'000'000'000,
                               .exit_code = 0,
                               .commit = "0123456789abcdef",
                               .branch = "main",
                               .labels = {{"ci", "yes"}},
                               .testbed_id = 0,
                               .error = {},
                               .origin = "scheduled"};
  store::RunSummary running;
  running.id = 13;
  running.scenario = "soak";
  running.status = "running";
  running.started_at_ns = kListingStart + 3'600'000'000'000;
  EXPECT_EQ(render_run_list({running, done}),
            "ID  SCENARIO    STATUS   STARTED              DURATION  COMMIT      BRANCH  EXIT  "
            "ORIGIN     LABELS\n"
            "13  soak        running  2023-11-14 23:13:20         -  -           -          -  "
            "local      -\n"
            "12  quickstart  ok       2023-11-14 22:13:20     1m05s  0123456789  main       0  "
            "scheduled  ci=yes\n");
}

// A run stored before schema version 23 has no origin: `-`, not `local` (nobody recorded who
// started it; serve's jobs and clients may have).
TEST_F(Listings, ARunWhoseOriginWasNotRecordedShowsADash) {
  store::RunSummary old;
  old.id = 3;
  old.scenario = "s";
  old.status = "ok";
  old.started_at_ns = kListingStart;
  old.finished_at_ns = kListingStart + 1'000'000'000;
  old.exit_code = 0;
  old.origin = "";
  EXPECT_EQ(render_run_list({old}),
            "ID  SCENARIO  STATUS  STARTED              DURATION  COMMIT  BRANCH  EXIT  ORIGIN  "
            "LABELS\n"
            " 3  s         ok      2023-11-14 22:13:20      1.0s  -       -          0  -       "
            "-\n");
}

// A run stored before `run` and the service refused control characters in a commit, a branch
// or a label: they are shown escaped, one row per run, no escape sequence reaching the
// terminal. Before, the line break forged a second row and ESC [31m coloured the rest red.
TEST_F(Listings, ControlCharactersOfAStoredRunAreShownEscapedNotPrinted) {
  store::RunSummary forged;
  forged.id = 5;
  forged.scenario = "s";
  forged.status = "ok";
  forged.started_at_ns = kListingStart;
  forged.commit = "a\"b\\\nc\x1b[31m";
  forged.branch = "br\nanch";
  forged.labels = {{"k\n", "v\r"}};
  const std::string text = render_run_list({forged});
  EXPECT_EQ(
      text,
      "ID  SCENARIO  STATUS  STARTED              DURATION  COMMIT          BRANCH    EXIT  "
      "ORIGIN  LABELS\n"
      " 5  s         ok      2023-11-14 22:13:20         -  a\"b\\\\nc\\x1b[31  br\\nanch     "
      "-  local   k\\n=v\\r\n");
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
}

// The scenario's name is a stored text as the commit is: escaped in `runs list` and
// `baseline list`. Before, its ESC reached the terminal and its line break forged a row.
TEST_F(Listings, AStoredScenarioNameIsShownEscaped) {
  store::RunSummary forged;
  forged.id = 5;
  forged.scenario = "s\n9  x\x1b[31m";
  forged.status = "ok";
  forged.started_at_ns = kListingStart;
  const std::string runs = render_run_list({forged});
  EXPECT_NE(runs.find(" 5  s\\n9  x\\x1b[31m  ok"), std::string::npos) << runs;
  EXPECT_EQ(std::count(runs.begin(), runs.end(), '\n'), 2) << runs;
  EXPECT_EQ(runs.find('\x1b'), std::string::npos) << runs;
  store::BaselineEntry entry;
  entry.name = "main";
  entry.run_id = 5;
  entry.scenario = forged.scenario;
  entry.started_at_ns = entry.added_at_ns = kListingStart;
  const std::string baselines = render_baseline_list({entry});
  EXPECT_NE(baselines.find("s\\n9  x\\x1b[31m"), std::string::npos) << baselines;
  EXPECT_EQ(std::count(baselines.begin(), baselines.end(), '\n'), 2) << baselines;
  EXPECT_EQ(baselines.find('\x1b'), std::string::npos) << baselines;
}

TEST_F(Listings, AnAbandonedRunHasNoDuration) {
  // Its finished_at is when a later orchestrator marked it, not when it was killed.
  store::RunSummary abandoned;
  abandoned.id = 3;
  abandoned.scenario = "soak";
  abandoned.status = "abandoned";
  abandoned.started_at_ns = kListingStart;
  abandoned.finished_at_ns = kListingStart + 4'200'000'000;
  EXPECT_EQ(render_run_list({abandoned}),
            "ID  SCENARIO  STATUS     STARTED              DURATION  COMMIT  BRANCH  EXIT  ORIGIN  "
            "LABELS\n"
            " 3  soak      abandoned  2023-11-14 22:13:20         -  -       -          -  local   "
            "-\n");
}

TEST_F(Listings, ABaselineListNamesTheBaselineRunAndWhenItWasAdded) {
  store::BaselineEntry e;
  e.name = "main";
  e.run_id = 7;
  e.scenario = "quickstart";
  e.commit = "";
  e.started_at_ns = kListingStart;
  e.added_at_ns = kListingStart + 86'400'000'000'000;
  EXPECT_EQ(render_baseline_list({e}),
            "BASELINE  RUN  SCENARIO    COMMIT  STARTED              ADDED\n"
            "main        7  quickstart  -       2023-11-14 22:13:20  2023-11-15 22:13:20\n");
}

}  // namespace
}  // namespace benchgate::history
