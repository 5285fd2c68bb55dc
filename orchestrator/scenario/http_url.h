// The [router] metrics URL (docs/SCENARIOS.md): the loader validates it with this function and
// the scrape (orchestrator/sut/metrics_scrape.h) connects with its result, so both hold one rule.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/util/expected.h"

namespace benchgate::scenario {

// "http://HOST[:PORT][/PATH]" taken apart. Only plain http: the scrape speaks no TLS.
struct HttpUrl {
  std::string host;       // an IPv4 address; "localhost" is read as 127.0.0.1
  uint16_t port = 80;     // 80 when the URL names none
  std::string authority;  // "HOST:PORT" as written, for the Host header and messages
  std::string target;     // "/metrics", with any query; "/" when the URL has no path
};

// The URL's parts, or why it is not one the scrape can use: not http://, a user name
// (credentials are never sent), no host, a host that is not an IPv4 address or localhost (the
// scrape connects over IPv4, as the readiness probe does), a port outside 1..65535, a fragment,
// a path or query with a character RFC 3986 lets it carry only percent-encoded (a blank, CR or
// LF would let the URL write headers, or a second request, into the scrape's request) or a '%'
// without two hex digits.
Expected<HttpUrl> parse_http_url(std::string_view url);

}  // namespace benchgate::scenario
