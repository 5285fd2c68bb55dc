// Validation of client messages before routing: shapes by type, ids, and URIs.
#include <gtest/gtest.h>

#include "router/wamp/message_check.h"

namespace benchgate::router::wamp {
namespace {

CheckResult check(const char* json) { return check_client_message(Json::parse(json)); }

TEST(MessageCheck, WellFormedClientMessagesPass) {
  for (const char* message : {
           R"([1, "realm1", {"roles": {"caller": {}}}])",
           R"([3, {}, "wamp.close.normal"])",
           R"([6, {}, "wamp.close.close_realm"])",
           R"([8, 68, 5, {}, "app.error", [1], {"a": 1}])",
           R"([16, 1, {"acknowledge": true}, "t.topic"])",
           R"([16, 1, {}, "t.topic", [1, 2], {"k": 3}])",
           R"([32, 2, {}, "t.topic"])",
           R"([34, 3, 77])",
           R"([48, 4, {}, "bench.echo"])",
           R"([48, 4, {}, "bench.echo", [], {}])",
           R"([49, 4, {}])",
           R"([64, 5, {}, "t.proc"])",
           R"([66, 6, 88])",
           R"([70, 9, {}, ["result"]])",
       }) {
    EXPECT_TRUE(check(message).ok()) << message << ": " << check(message).problem;
  }
  EXPECT_EQ(check(R"([48, 4, {}, "bench.echo"])").type, MessageType::kCall);
}

TEST(MessageCheck, WrongElementCountsAndTypesAreProtocolViolations) {
  for (const char* message : {
           R"([1, "realm1"])",                    // HELLO without details
           R"([1, 7, {}])",                       // realm not a string
           R"([48, 4, {}, "p", {}])",             // arguments not a list
           R"([48, 4, {}, "p", [], []])",         // kwargs not a dict
           R"([48, 4, {}, "p", [], {}, 1])",      // too many elements
           R"([48, -1, {}, "p"])",                // negative id
           R"([48, 9007199254740993, {}, "p"])",  // id over 2^53
           R"([48, 1.5, {}, "p"])",               // id not an integer
           R"([32, 2, [], "t"])",                 // options not a dict
           R"([70])",                             // YIELD without a request
       }) {
    EXPECT_FALSE(check(message).ok()) << message;
  }
}

TEST(MessageCheck, UnknownTypesAndRouterOnlyTypesAreProtocolViolations) {
  EXPECT_STREQ(check("[999, 1]").problem, "unknown message type");
  EXPECT_STREQ(check("[]").problem, "a message must be a non-empty list");
  EXPECT_STREQ(check(R"({"a": 1})").problem, "a message must be a non-empty list");
  EXPECT_STREQ(check(R"(["HELLO"])").problem, "the first element must be a message type code");
  for (const char* router_only :
       {"[2, 1, {}]", "[36, 1, 2, {}]", "[50, 1, {}]", "[68, 1, 2, {}]", "[4, \"ticket\", {}]"}) {
    EXPECT_STREQ(check(router_only).problem, "a client may not send this message type")
        << router_only;
  }
}

TEST(MessageCheck, UrisAreDotSeparatedNonEmptyComponentsWithoutSpacesOrHash) {
  EXPECT_TRUE(is_valid_uri("bench.echo"));
  EXPECT_TRUE(is_valid_uri("realm1"));
  EXPECT_TRUE(is_valid_uri("com.example.a_b-c"));
  EXPECT_FALSE(is_valid_uri(""));
  EXPECT_FALSE(is_valid_uri(".a"));
  EXPECT_FALSE(is_valid_uri("a."));
  EXPECT_FALSE(is_valid_uri("a..b"));
  EXPECT_FALSE(is_valid_uri("a b"));
  EXPECT_FALSE(is_valid_uri("a.#"));
}

}  // namespace
}  // namespace benchgate::router::wamp
