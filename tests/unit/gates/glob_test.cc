// Gate workload patterns.
#include "orchestrator/gates/glob.h"

#include <gtest/gtest.h>

namespace benchgate::gates {
namespace {

TEST(Glob, PlainNamesMatchOnlyThemselves) {
  EXPECT_TRUE(glob_match("http_hello", "http_hello"));
  EXPECT_FALSE(glob_match("http_hello", "http_hello2"));
  EXPECT_FALSE(glob_match("http_hello", "http_hell"));
  EXPECT_FALSE(glob_match("", "a"));
  EXPECT_TRUE(glob_match("", ""));
}

TEST(Glob, StarMatchesAnyRunIncludingNone) {
  EXPECT_TRUE(glob_match("wamp_*", "wamp_pubsub"));
  EXPECT_TRUE(glob_match("wamp_*", "wamp_"));
  EXPECT_FALSE(glob_match("wamp_*", "http_wamp_x"));
  EXPECT_TRUE(glob_match("*", "anything"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("*_hello", "http_hello"));
  EXPECT_TRUE(glob_match("a*b*c", "axxbyyc"));
  EXPECT_FALSE(glob_match("a*b*c", "axxbyy"));
  EXPECT_TRUE(glob_match("a*bc", "abcbcbc"));  // needs backtracking past early "bc"
  EXPECT_TRUE(glob_match("**x", "yyx"));
}

TEST(Glob, QuestionMarkMatchesExactlyOneCharacter) {
  EXPECT_TRUE(glob_match("echo_?k", "echo_4k"));
  EXPECT_FALSE(glob_match("echo_?k", "echo_16k"));
  EXPECT_FALSE(glob_match("?", ""));
  EXPECT_TRUE(glob_match("*?", "a"));
}

TEST(Glob, TellsPatternsFromNames) {
  EXPECT_TRUE(is_glob("wamp_*"));
  EXPECT_TRUE(is_glob("echo_?k"));
  EXPECT_FALSE(is_glob("http_hello"));
}

}  // namespace
}  // namespace benchgate::gates
