// See expected_response.h.
#include "orchestrator/scenario/expected_response.h"

#include <charconv>
#include <string>

namespace benchgate::scenario {

Expectation expected_response(const Workload& workload, bool bundled_router) {
  Expectation expectation;
  // A WAMP workload's answers are checked by its protocol, not by these.
  if (!is_http(workload.protocol)) return expectation;
  const auto& http = workload.http;
  expectation.status = http.expect_status.value_or(200);
  if (http.expect_body_bytes) {
    expectation.body_bytes = static_cast<int64_t>(*http.expect_body_bytes);
    return expectation;
  }
  if (!bundled_router || expectation.status != 200) return expectation;
  const std::string& target = http.target;
  auto path_is = [&](const std::string& prefix) { return target.rfind(prefix, 0) == 0; };
  if (target == "/bench/hello") {
    expectation.body_bytes = 12;
  } else if (path_is("/bench/bytes/")) {
    uint64_t n = 0;
    const char* begin = target.data() + 13;
    const char* end = target.data() + target.size();
    auto [ptr, ec] = std::from_chars(begin, end, n);
    if (ec == std::errc() && ptr == end) expectation.body_bytes = static_cast<int64_t>(n);
  } else if (target == "/bench/echo") {
    expectation.body_bytes = static_cast<int64_t>(http.request_bytes);
    expectation.echo = true;
  } else if (path_is("/bench/delay/")) {
    expectation.body_bytes = 0;
  }
  return expectation;
}

}  // namespace benchgate::scenario
