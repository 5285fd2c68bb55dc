// Route dispatch of the bench routes, as plain functions.
#include "router/http/routes.h"

#include <gtest/gtest.h>

namespace benchgate::router::http {
namespace {

using boost::beast::http::verb;

const RouteLimits kLimits{1000, 60'000};

TEST(RouteDispatch, HelloAnswersGetOnly) {
  const Dispatch get = dispatch(verb::get, "/bench/hello", kLimits);
  EXPECT_EQ(get.route, Route::kHello);
  EXPECT_EQ(get.action, Action::kHello);
  EXPECT_EQ(get.status, 200);
  const Dispatch post = dispatch(verb::post, "/bench/hello", kLimits);
  EXPECT_EQ(post.route, Route::kHello);
  EXPECT_EQ(post.action, Action::kError);
  EXPECT_EQ(post.status, 405);
}

TEST(RouteDispatch, EchoAnswersPostOnly) {
  EXPECT_EQ(dispatch(verb::post, "/bench/echo", kLimits).action, Action::kEcho);
  EXPECT_EQ(dispatch(verb::get, "/bench/echo", kLimits).status, 405);
}

TEST(RouteDispatch, BytesTakesTheCountFromThePath) {
  const Dispatch d = dispatch(verb::get, "/bench/bytes/1000", kLimits);
  EXPECT_EQ(d.route, Route::kBytes);
  EXPECT_EQ(d.action, Action::kBytes);
  EXPECT_EQ(d.param, 1000u);
  EXPECT_EQ(dispatch(verb::get, "/bench/bytes/0", kLimits).param, 0u);
}

TEST(RouteDispatch, BytesOverTheBodyLimitOrNotANumberIsBadRequest) {
  EXPECT_EQ(dispatch(verb::get, "/bench/bytes/1001", kLimits).status, 400);
  EXPECT_EQ(dispatch(verb::get, "/bench/bytes/12x", kLimits).status, 400);
  EXPECT_EQ(dispatch(verb::get, "/bench/bytes/-1", kLimits).status, 400);
  EXPECT_EQ(dispatch(verb::get, "/bench/bytes/99999999999999999999999", kLimits).status, 400);
  EXPECT_EQ(dispatch(verb::get, "/bench/bytes/12x", kLimits).route, Route::kBytes);
}

TEST(RouteDispatch, DelayIsBoundedBySixtySeconds) {
  const Dispatch d = dispatch(verb::get, "/bench/delay/60000", kLimits);
  EXPECT_EQ(d.action, Action::kDelay);
  EXPECT_EQ(d.param, 60000u);
  EXPECT_EQ(dispatch(verb::get, "/bench/delay/60001", kLimits).status, 400);
  EXPECT_EQ(dispatch(verb::post, "/bench/delay/5", kLimits).status, 405);
}

TEST(RouteDispatch, UnknownPathsAreNotFoundWhateverTheMethod) {
  for (const char* target : {"/", "/bench", "/bench/hello/", "/bench/bytes", "/bench/bytes/",
                             "/bench/delay/", "/bench/hellox", "*"}) {
    const Dispatch d = dispatch(verb::get, target, kLimits);
    EXPECT_EQ(d.route, Route::kOther) << target;
    EXPECT_EQ(d.status, 404) << target;
  }
  EXPECT_EQ(dispatch(verb::unknown, "/nope", kLimits).status, 404);
}

TEST(RouteDispatch, QueryStringIsIgnored) {
  EXPECT_EQ(dispatch(verb::get, "/bench/hello?x=1", kLimits).action, Action::kHello);
  EXPECT_EQ(dispatch(verb::get, "/bench/bytes/7?y", kLimits).param, 7u);
}

TEST(RouteLabels, NameTheRoutePatterns) {
  EXPECT_EQ(route_label(Route::kHello), "/bench/hello");
  EXPECT_EQ(route_label(Route::kBytes), "/bench/bytes");
  EXPECT_EQ(route_label(Route::kEcho), "/bench/echo");
  EXPECT_EQ(route_label(Route::kDelay), "/bench/delay");
  EXPECT_EQ(route_label(Route::kOther), "other");
}

TEST(ParseDecimal, AcceptsDigitsOnlyWithoutOverflow) {
  uint64_t value = 0;
  EXPECT_TRUE(parse_decimal("18446744073709551615", value));
  EXPECT_EQ(value, UINT64_MAX);
  EXPECT_FALSE(parse_decimal("18446744073709551616", value));
  EXPECT_FALSE(parse_decimal("", value));
  EXPECT_FALSE(parse_decimal("+1", value));
  EXPECT_FALSE(parse_decimal("1 ", value));
}

}  // namespace
}  // namespace benchgate::router::http
