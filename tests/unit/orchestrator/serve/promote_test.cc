// The service's Promote call (orchestrator/serve/orchestrator_service.cc): runs of its
// database join a baseline all together or none, by the rule `orchestrator run --promote`
// follows, and a name that rule refuses is refused naming the field.
#include <gtest/gtest.h>

#include <string>

#include "executor_test_support.h"
#include "orchestrator/serve/orchestrator_service.h"

namespace benchgate::serve {
namespace {

using testing::ExecutorBench;

grpc::Status promote(OrchestratorService& service, const std::string& baseline,
                     std::vector<int64_t> runs, bool validate_only = false) {
  v1::PromoteRequest request;
  request.set_baseline(baseline);
  for (int64_t run : runs) request.add_run_ids(run);
  request.set_validate_only(validate_only);
  v1::PromoteResponse response;
  return service.Promote(nullptr, &request, &response);
}

size_t entries(store::Store& db, const std::string& baseline) {
  auto listed = db.list_baselines(baseline);
  EXPECT_TRUE(listed) << listed.message();
  return listed ? listed->size() : 0;
}

TEST(Promote, RunsJoinABaselineAllTogetherOrNone) {
  ExecutorBench bench;
  store::Store& db = bench.db();
  const store::RunInfo info = store::testing::test_run_info("s");
  std::vector<int64_t> runs;
  for (const auto& [status, code] : {std::pair{"ok", 0}, std::pair{"ok", 0}, std::pair{"ok", 1}}) {
    auto run = db.begin_run(info);
    ASSERT_TRUE(run) << run.message();
    ASSERT_TRUE(db.finish_run(*run, status, code));
    runs.push_back(*run);
  }
  OrchestratorService service(bench.queue(), {});
  EXPECT_EQ(promote(service, "main", {runs[0]}).error_code(), grpc::StatusCode::UNAVAILABLE);
  service.set_store(&db);

  // The third run exited 1: neither joins.
  const grpc::Status refused = promote(service, "main", {runs[0], runs[2]});
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(refused.error_message().find("run " + std::to_string(runs[2])), std::string::npos)
      << refused.error_message();
  EXPECT_EQ(entries(db, "main"), 0u);
  // Checked only: nothing is added, whatever the runs.
  EXPECT_TRUE(promote(service, "main", {runs[2]}, true).ok());
  EXPECT_EQ(entries(db, "main"), 0u);

  EXPECT_TRUE(promote(service, "main", {runs[0], runs[1]}).ok());
  EXPECT_EQ(entries(db, "main"), 2u);
  EXPECT_TRUE(promote(service, "main", {runs[0]}).ok());  // again: not an error
  EXPECT_EQ(entries(db, "main"), 2u);

  const grpc::Status unknown = promote(service, "main", {runs[2] + 100});
  EXPECT_EQ(unknown.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << unknown.error_message();

  // The name rule, for a check too.
  for (const std::string& bad : std::vector<std::string>{"a b", "", std::string(101, 'x')}) {
    const grpc::Status status = promote(service, bad, {runs[0]}, true);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << bad;
    EXPECT_NE(status.error_message().find("field 'baseline'"), std::string::npos)
        << status.error_message();
  }
  EXPECT_EQ(promote(service, "main", {}).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

}  // namespace
}  // namespace benchgate::serve
