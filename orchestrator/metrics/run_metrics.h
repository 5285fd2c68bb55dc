// Metrics around a one-shot `orchestrator run`: the --metrics-listen endpoint, the
// --pushgateway push of the final values and the --metrics-linger wait that keeps /metrics
// up after the run so a scrape sees the final summary and gate verdicts.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/util/expected.h"
#include "orchestrator/metrics/exposition.h"
#include "orchestrator/metrics/metrics_observer.h"

namespace benchgate::metrics {

struct RunMetricsOptions {
  std::string listen;         // HOST:PORT; empty: no endpoint
  std::string pushgateway;    // http://HOST:PORT; empty: no push
  std::string linger = "0s";  // keep the endpoint up this long after the run
};

class RunMetrics {
 public:
  // The flags' values alone, before anything starts: the linger duration (always, given or
  // not), --metrics-linger only with --metrics-listen, the Pushgateway URL.
  static Expected<void> validate(const RunMetricsOptions& options);
  // Null when neither an endpoint nor a push was asked for; an error (nothing started yet)
  // for a bad flag or an address it cannot listen on. Prints the endpoint's URL on stderr.
  static Expected<std::unique_ptr<RunMetrics>> start(const RunMetricsOptions& options);

  MetricsObserver& observer() { return observer_; }
  // The endpoint's HOST:PORT as bound (given port 0, the kernel's port); "" without one.
  std::string address() const { return endpoint_ ? endpoint_->address() : ""; }
  // Pushes the final values (when asked to), then lingers unless interrupted. Returns the
  // push error, if any.
  Expected<void> finish();

 private:
  explicit RunMetrics(RunMetricsOptions options) : options_(std::move(options)) {}

  RunMetricsOptions options_;
  int64_t linger_ns_ = 0;
  MetricsObserver observer_;
  std::unique_ptr<MetricsEndpoint> endpoint_;
};

}  // namespace benchgate::metrics
