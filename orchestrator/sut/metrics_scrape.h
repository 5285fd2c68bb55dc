// The scrape of a command's or external system's [router] metrics endpoint (docs/SCENARIOS.md):
// one HTTP/1.1 GET, bounded in time and size, whose body is read as a Prometheus text
// exposition. ExternalSystem::snapshot() scrapes before and after every measured window.
#pragma once

#include <chrono>
#include <string>

#include "common/util/expected.h"
#include "orchestrator/scenario/http_url.h"
#include "orchestrator/sut/prometheus_text.h"

namespace benchgate::sut {

// The longest a scrape may take, connect to last byte: the bundled router's control calls
// have the same (README, "Failure behaviour").
inline constexpr std::chrono::milliseconds kScrapeTimeout{5000};
// The largest body read; a larger one is an error, not a truncated reading.
inline constexpr size_t kScrapeBodyLimit = size_t{16} << 20;

// The body of a 200 answer to GET url.target, or why there is none: the connect error
// ("connection refused"), "no complete answer within 5s", "HTTP 404 Not Found", a body over
// kScrapeBodyLimit.
Expected<std::string> http_get_body(const scenario::HttpUrl& url,
                                    std::chrono::milliseconds timeout);

// The counters `url` exposes now. Every error names the URL: "scraping the system under test's
// metrics at http://127.0.0.1:9113/metrics: line 4: ...".
Expected<ExposedCounters> scrape_counters(const std::string& url,
                                          std::chrono::milliseconds timeout = kScrapeTimeout);

}  // namespace benchgate::sut
