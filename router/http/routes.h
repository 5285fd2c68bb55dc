// The router's HTTP bench routes as plain functions: which route a request line names, and
// what the server must answer. No sockets here, so dispatch is tested without a server.
#pragma once

#include <cstdint>
#include <ostream>  // Boost 1.81's string_view.hpp needs it and does not include it
#include <string_view>

#include <boost/beast/http/verb.hpp>

namespace benchgate::router::http {

// Route patterns, also the "route" label of the http_requests counter.
enum class Route : uint8_t { kHello, kBytes, kEcho, kDelay, kOther };
inline constexpr int kRouteCount = 5;

// "/bench/hello", "/bench/bytes", "/bench/echo", "/bench/delay" or "other".
std::string_view route_label(Route route);

// What the session does for a parsed request.
enum class Action : uint8_t {
  kHello,  // 200, "Hello, world"
  kBytes,  // 200, `param` bytes of the a..z pattern
  kEcho,   // 200, the request body
  kDelay,  // 200, empty body after `param` milliseconds
  kError,  // `status` with a short text body
};

struct Dispatch {
  Route route = Route::kOther;
  Action action = Action::kError;
  int status = 404;
  uint64_t param = 0;
};

struct RouteLimits {
  uint64_t max_body_bytes = 64ull << 20;  // upper bound of /bench/bytes/{n}
  uint64_t max_delay_ms = 60'000;         // upper bound of /bench/delay/{ms}
};

// Maps a request line to its route and answer: unknown path -> 404, known path with another
// method -> 405, a path parameter that is not a decimal number within its limit -> 400.
// A query string ("?...") is ignored.
Dispatch dispatch(boost::beast::http::verb method, std::string_view target,
                  const RouteLimits& limits);

// A decimal number made of digits only ("0".."18446744073709551615"); false on anything else,
// including an empty string, a sign or overflow.
bool parse_decimal(std::string_view text, uint64_t& out);

}  // namespace benchgate::router::http
