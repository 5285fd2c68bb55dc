// Gate workload patterns.
#include "orchestrator/scenario/workload_glob.h"

#include <gtest/gtest.h>

namespace benchgate {
namespace {

TEST(Glob, PlainNamesMatchOnlyThemselves) {
  EXPECT_TRUE(scenario::workload_matches("http_hello", "http_hello"));
  EXPECT_FALSE(scenario::workload_matches("http_hello", "http_hello2"));
  EXPECT_FALSE(scenario::workload_matches("http_hello", "http_hell"));
  EXPECT_FALSE(scenario::workload_matches("", "a"));
  EXPECT_TRUE(scenario::workload_matches("", ""));
}

TEST(Glob, StarMatchesAnyRunIncludingNone) {
  EXPECT_TRUE(scenario::workload_matches("wamp_*", "wamp_pubsub"));
  EXPECT_TRUE(scenario::workload_matches("wamp_*", "wamp_"));
  EXPECT_FALSE(scenario::workload_matches("wamp_*", "http_wamp_x"));
  EXPECT_TRUE(scenario::workload_matches("*", "anything"));
  EXPECT_TRUE(scenario::workload_matches("*", ""));
  EXPECT_TRUE(scenario::workload_matches("*_hello", "http_hello"));
  EXPECT_TRUE(scenario::workload_matches("a*b*c", "axxbyyc"));
  EXPECT_FALSE(scenario::workload_matches("a*b*c", "axxbyy"));
  EXPECT_TRUE(scenario::workload_matches("a*bc", "abcbcbc"));  // needs backtracking past early "bc"
  EXPECT_TRUE(scenario::workload_matches("**x", "yyx"));
}

TEST(Glob, QuestionMarkMatchesExactlyOneCharacter) {
  EXPECT_TRUE(scenario::workload_matches("echo_?k", "echo_4k"));
  EXPECT_FALSE(scenario::workload_matches("echo_?k", "echo_16k"));
  EXPECT_FALSE(scenario::workload_matches("?", ""));
  EXPECT_TRUE(scenario::workload_matches("*?", "a"));
}

TEST(Glob, TellsPatternsFromNames) {
  EXPECT_TRUE(scenario::is_glob("wamp_*"));
  EXPECT_TRUE(scenario::is_glob("echo_?k"));
  EXPECT_FALSE(scenario::is_glob("http_hello"));
}

}  // namespace
}  // namespace benchgate

namespace benchgate {
namespace {

// The loader accepts bracket classes, so the gate evaluator (which uses the same matcher)
// must match them too.
TEST(Glob, BracketClassesMatchAsTheLoaderValidatesThem) {
  EXPECT_TRUE(scenario::workload_matches("http_[ab]", "http_a"));
  EXPECT_FALSE(scenario::workload_matches("http_[ab]", "http_c"));
}

}  // namespace
}  // namespace benchgate
