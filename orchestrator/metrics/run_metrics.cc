// See run_metrics.h.
#include "orchestrator/metrics/run_metrics.h"

#include <chrono>
#include <cstdio>
#include <thread>

#include "common/units/units.h"
#include "orchestrator/app/interrupt.h"

namespace benchgate::metrics {

namespace {

Expected<int64_t> linger_ns(const std::string& text) {
  auto linger = parse_duration_ns(text);
  if (!linger || *linger < 0) {
    // 2400h: the 100 days parse_duration_ns takes at most (common/units/units.h).
    return Error{"--metrics-linger '" + text +
                 "': expected a duration from 0s to 2400h (100 days), such as 30s"};
  }
  return *linger;
}

}  // namespace

Expected<void> RunMetrics::validate(const RunMetricsOptions& options) {
  auto linger = linger_ns(options.linger);
  if (!linger) return linger.error();
  if (*linger > 0 && options.listen.empty()) {
    return Error{"--metrics-linger " + options.linger +
                 " keeps /metrics up after the run, so it needs --metrics-listen HOST:PORT"};
  }
  if (!options.pushgateway.empty()) {
    if (auto valid = validate_gateway_url(options.pushgateway); !valid) return valid.error();
  }
  return {};
}

Expected<std::unique_ptr<RunMetrics>> RunMetrics::start(const RunMetricsOptions& options) {
  if (auto valid = validate(options); !valid) return valid.error();
  if (options.listen.empty() && options.pushgateway.empty()) {
    return std::unique_ptr<RunMetrics>();
  }
  std::unique_ptr<RunMetrics> metrics(new RunMetrics(options));
  metrics->linger_ns_ = *linger_ns(options.linger);
  if (!options.listen.empty()) {
    auto endpoint = MetricsEndpoint::start(options.listen, metrics->observer_.registry());
    if (!endpoint) return endpoint.error();
    metrics->endpoint_ = std::move(endpoint).value();
    std::fprintf(stderr, "metrics: serving %s\n", metrics->endpoint_->url().c_str());
  }
  return metrics;
}

Expected<void> RunMetrics::finish() {
  Expected<void> pushed;
  if (!options_.pushgateway.empty()) {
    pushed = push_to_gateway(options_.pushgateway, observer_.registry());
    if (pushed) std::fprintf(stderr, "metrics: pushed to %s\n", options_.pushgateway.c_str());
  }
  if (endpoint_ && linger_ns_ > 0 && !app::interrupted()) {
    std::fprintf(stderr, "metrics: run finished; serving %s for %s more (Ctrl-C stops)\n",
                 endpoint_->url().c_str(),
                 format_duration_ns(static_cast<double>(linger_ns_)).c_str());
    const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(linger_ns_);
    while (std::chrono::steady_clock::now() < until && !app::interrupted()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  return pushed;
}

}  // namespace benchgate::metrics
