// Edit distance and "did you mean" suggestions.
#include <gtest/gtest.h>

#include "orchestrator/scenario/suggest.h"

namespace benchgate::scenario {
namespace {

TEST(Suggest, EditDistanceCountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(edit_distance("connections", "connections"), 0u);
  EXPECT_EQ(edit_distance("conections", "connections"), 1u);
  EXPECT_EQ(edit_distance("connectionss", "connections"), 1u);
  EXPECT_EQ(edit_distance("cennections", "connections"), 1u);
  EXPECT_EQ(edit_distance("nmae", "name"), 1u);
  EXPECT_EQ(edit_distance("Name", "name"), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(Suggest, SuggestsTheClosestPlausibleCandidateOnly) {
  const std::vector<std::string_view> keys = {"connections", "in_flight", "rate", "name"};
  EXPECT_EQ(did_you_mean("conections", keys), " (did you mean 'connections'?)");
  EXPECT_EQ(did_you_mean("inflight", keys), " (did you mean 'in_flight'?)");
  EXPECT_EQ(did_you_mean("rat", keys), " (did you mean 'rate'?)");
  EXPECT_EQ(did_you_mean("colour", keys), "");
  EXPECT_EQ(did_you_mean("xyz", keys), "");
  EXPECT_FALSE(closest_match("anything", {}).has_value());
  EXPECT_EQ(did_you_mean("latency.p98", {"latency.p90", "latency.p99", "latency.max"}),
            " (did you mean 'latency.p90' or 'latency.p99'?)");
}

}  // namespace
}  // namespace benchgate::scenario
