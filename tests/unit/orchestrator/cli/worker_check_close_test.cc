// worker-check's rule "stream closed mid-window: the stream ends OK within 2 s of WritesDone"
// (orchestrator/cli/worker_check_command.cc): judged on when the worker ended the stream, and
// never blaming the worker for the check's own --timeout running out.
#include <gtest/gtest.h>

#include "orchestrator/cli/worker_check_command.h"

namespace benchgate::cli {
namespace {

using namespace std::chrono_literals;

// Ended at 1.99 s: within the 2 s, however late Finish returned after it.
TEST(WorkerCheckClose, AStreamThatEndedWithinTwoSecondsPasses) {
  const auto verdict = judge_close_mid_window(1990ms, 20s, grpc::Status::OK, "30s");
  EXPECT_TRUE(verdict.passed) << verdict.detail;
  EXPECT_EQ(verdict.detail, "");
}

TEST(WorkerCheckClose, AStreamStillOpenAfterTwoSecondsFails) {
  const auto verdict = judge_close_mid_window(2010ms, 20s, grpc::Status::OK, "30s");
  EXPECT_FALSE(verdict.passed);
  EXPECT_EQ(verdict.detail, "still open 2 s after WritesDone (run cancels it then)");
}

TEST(WorkerCheckClose, AStreamEndedInTimeButNotOkFailsWithItsStatus) {
  const auto verdict =
      judge_close_mid_window(100ms, 20s, grpc::Status(grpc::StatusCode::INTERNAL, "boom"), "30s");
  EXPECT_FALSE(verdict.passed);
  EXPECT_NE(verdict.detail.find("boom"), std::string::npos) << verdict.detail;
}

// Less than 2.4 s of the check's --timeout left at the WritesDone: its deadline, not the
// worker, ended the stream.
TEST(WorkerCheckClose, TheChecksTimeoutRunningOutIsNotBlamedOnTheWorker) {
  const auto verdict = judge_close_mid_window(
      1s, 1s, grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "Deadline Exceeded"), "8s");
  EXPECT_FALSE(verdict.passed);
  EXPECT_EQ(verdict.detail,
            "worker-check's --timeout (8s, for the whole check) ran out: this rule needs 2.4 s "
            "of it left after WritesDone; give a longer --timeout");
}

}  // namespace
}  // namespace benchgate::cli
