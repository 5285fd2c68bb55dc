// The "a, b and c" rule (common/util/joined_with_and.h) that the reports' lists of stopped
// processes, worker threads and left-out repetitions are written by.
#include "common/util/joined_with_and.h"

#include <gtest/gtest.h>

namespace benchgate {
namespace {

TEST(JoinedWithAnd, CommasBetweenTheItemsAndAndBeforeTheLast) {
  EXPECT_EQ(joined_with_and({}), "");
  EXPECT_EQ(joined_with_and({"a"}), "a");
  EXPECT_EQ(joined_with_and({"a", "b"}), "a and b");
  EXPECT_EQ(joined_with_and({"a", "b", "c"}), "a, b and c");
  EXPECT_EQ(joined_with_and({"4", "4", "2", "1"}), "4, 4, 2 and 1");
}

TEST(JoinedWithAnd, ItemsStandAsGiven) {
  // Neither quoted nor escaped: the callers' items are their own words and figures.
  EXPECT_EQ(joined_with_and({"worker 0 (pid 1)", "router (pid 2)"}),
            "worker 0 (pid 1) and router (pid 2)");
  EXPECT_EQ(joined_with_and({"", ""}), " and ");
}

}  // namespace
}  // namespace benchgate
