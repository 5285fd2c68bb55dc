// Store errors split into the user's mistakes (exit 2) and database failures (exit 3).
#include "orchestrator/history/store_errors.h"

#include <gtest/gtest.h>

namespace benchgate::history {
namespace {

TEST(StoreErrors, UnknownRunsAndBadBaselineRequestsAreTheUsersToFix) {
  EXPECT_TRUE(is_user_error("run 99 does not exist"));
  EXPECT_TRUE(is_user_error("baseline remove: run 3 is not in baseline 'main'"));
  EXPECT_TRUE(is_user_error("baseline add: run 3 did not finish ok (status failed); only ..."));
  EXPECT_TRUE(is_user_error("a baseline name must have 1 to 100 characters"));
  EXPECT_TRUE(is_user_error("baseline name 'a b' may contain only letters, digits"));
}

TEST(StoreErrors, SqliteFailuresAreDatabaseErrors) {
  EXPECT_FALSE(is_user_error("get_run: database is locked"));
  EXPECT_FALSE(is_user_error("list_runs: disk I/O error"));
}

}  // namespace
}  // namespace benchgate::history
