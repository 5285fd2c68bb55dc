// Route matching for the bench routes (see routes.h).
#include "router/http/routes.h"

namespace benchgate::router::http {
namespace {

using boost::beast::http::verb;

constexpr std::string_view kHelloPath = "/bench/hello";
constexpr std::string_view kEchoPath = "/bench/echo";
constexpr std::string_view kBytesPrefix = "/bench/bytes/";
constexpr std::string_view kDelayPrefix = "/bench/delay/";

Dispatch error(Route route, int status) { return {route, Action::kError, status, 0}; }

// A route with a numeric path parameter bounded by `max`.
Dispatch numeric(Route route, Action action, verb method, std::string_view param, uint64_t max) {
  if (method != verb::get) return error(route, 405);
  uint64_t value = 0;
  if (!parse_decimal(param, value) || value > max) return error(route, 400);
  return {route, action, 200, value};
}

}  // namespace

std::string_view route_label(Route route) {
  switch (route) {
    case Route::kHello:
      return "/bench/hello";
    case Route::kBytes:
      return "/bench/bytes";
    case Route::kEcho:
      return "/bench/echo";
    case Route::kDelay:
      return "/bench/delay";
    case Route::kOther:
      break;
  }
  return "other";
}

bool parse_decimal(std::string_view text, uint64_t& out) {
  if (text.empty() || text.size() > 20) return false;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return false;
    value = value * 10 + digit;
  }
  out = value;
  return true;
}

Dispatch dispatch(verb method, std::string_view target, const RouteLimits& limits) {
  const size_t query = target.find('?');
  if (query != std::string_view::npos) target = target.substr(0, query);

  if (target == kHelloPath) {
    return method == verb::get ? Dispatch{Route::kHello, Action::kHello, 200, 0}
                               : error(Route::kHello, 405);
  }
  if (target == kEchoPath) {
    return method == verb::post ? Dispatch{Route::kEcho, Action::kEcho, 200, 0}
                                : error(Route::kEcho, 405);
  }
  if (target.size() > kBytesPrefix.size() && target.starts_with(kBytesPrefix)) {
    return numeric(Route::kBytes, Action::kBytes, method, target.substr(kBytesPrefix.size()),
                   limits.max_body_bytes);
  }
  if (target.size() > kDelayPrefix.size() && target.starts_with(kDelayPrefix)) {
    return numeric(Route::kDelay, Action::kDelay, method, target.substr(kDelayPrefix.size()),
                   limits.max_delay_ms);
  }
  return error(Route::kOther, 404);
}

}  // namespace benchgate::router::http
