// Engine events -> prometheus-cpp families (see metrics_observer.h). Names follow the
// Prometheus conventions: benchgate_ prefix, base units (seconds, bytes), _total for counters.
#include "orchestrator/metrics/metrics_observer.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "common/workload/error_kinds.h"
#include "orchestrator/gates/gate_outcome.h"
#include "orchestrator/history/display_format.h"
#include "orchestrator/report/scenario_report.h"
#include "orchestrator/results/resumption.h"

namespace benchgate::metrics {
namespace {

using prometheus::Counter;
using prometheus::Family;
using prometheus::Gauge;
using prometheus::Labels;

// The protocol's error kinds (common/workload/error_kinds.h), HTTP and WAMP. Their counters
// exist from the workload's start at 0, so "no errors" is a value rather than a missing series
// and rate() sees the first error.
constexpr const auto& kErrorKinds = error_kinds::kNames;
// The label every other kind would be counted under. A result with another kind is refused
// before it is merged (orchestrator/workers/result_checks.h), but the kind names come from the
// worker, which a serve client may choose, so a label per name would let one workload make any
// number of series.
constexpr const char* kOtherErrorKind = "other";

std::string error_kind_label(const std::string& kind) {
  return error_kinds::known(kind) ? kind : kOtherErrorKind;
}
constexpr std::array<const char*, 3> kRunStatuses = {"ok", "failed", "aborted"};
constexpr const auto& kVerdicts = gates::kVerdicts;
// The latency percentiles exposed, as (label, percentile); 100 is the maximum. The label is
// "percentile", not "quantile": Prometheus reserves "quantile" for summaries, and these are
// exact HDR figures that a summary's _sum/_count would not add to.
constexpr std::array<std::pair<const char*, double>, 5> kPercentiles = {
    {{"50", 50.0}, {"90", 90.0}, {"99", 99.0}, {"99.9", 99.9}, {"100", 100.0}}};

Family<Gauge>& gauge(prometheus::Registry& registry, const char* name, const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(registry);
}
Family<Counter>& counter(prometheus::Registry& registry, const char* name, const char* help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
}

double seconds(int64_t ns) { return static_cast<double>(ns) / 1e9; }

}  // namespace

struct MetricsObserver::Impl {
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
  prometheus::Registry& r = *registry;
  // Every family, as the helpers below register it: the families' initializers call these
  // members (a class member hides the free function of the same name), so a family added to
  // this list is one forget_scenario() and the stale-workload pruning see.
  std::vector<Family<Gauge>*> gauges;
  std::vector<Family<Counter>*> counters;
  Family<Gauge>& gauge(prometheus::Registry& registry, const char* name, const char* help) {
    return *gauges.emplace_back(&metrics::gauge(registry, name, help));
  }
  Family<Counter>& counter(prometheus::Registry& registry, const char* name, const char* help) {
    return *counters.emplace_back(&metrics::counter(registry, name, help));
  }

  Family<Gauge>& run_info =
      gauge(r, "benchgate_run_info", "The latest stored run of each scenario (always 1)");
  Family<Gauge>& run_in_progress =
      gauge(r, "benchgate_run_in_progress", "1 while a run of the scenario is going");
  Family<Counter>& runs =
      counter(r, "benchgate_runs_total",
              "Runs finished, by their stored status (runs.status: ok, failed, aborted); the "
              "exit code is benchgate_last_run_exit_code's");
  Family<Gauge>& last_exit_code =
      gauge(r, "benchgate_last_run_exit_code",
            "Exit code of the scenario's latest run: 0 ok, 1 critical gate failed, 3 run error");
  Family<Gauge>& last_finished = gauge(r, "benchgate_last_run_timestamp_seconds",
                                       "Unix time at which the scenario's latest run finished");

  // Help texts follow docs/MEASUREMENT.md, which defines each figure.
  Family<Gauge>& ops = gauge(r, "benchgate_workload_ops_per_second",
                             "Throughput: during a window a progress figure, operations (errors "
                             "included) per second of the latest progress interval; after it the "
                             "window's successes completed inside it per second of the window; the "
                             "median over repetitions at the end");
  Family<Gauge>& throughput =
      gauge(r, "benchgate_workload_throughput_bytes_per_second",
            "Wire bytes read (headers and framing included) inside the window per second of it: "
            "per measured window, the median at the end; no sample when not measured");
  Family<Gauge>& latency =
      gauge(r, "benchgate_workload_latency_seconds",
            "Latency at a percentile (100 is the maximum): live p99 during a window, the window's "
            "histogram after it, every repetition merged at the end");
  Family<Counter>& errors = counter(r, "benchgate_workload_errors_total",
                                    "Failed operations in measured windows, by kind");
  Family<Counter>& operations =
      counter(r, "benchgate_workload_operations_total", "Operations in measured windows");
  Family<Gauge>& connections =
      gauge(r, "benchgate_workload_connections", "Connections the workload opens (all workers)");
  Family<Gauge>& repetition = gauge(r, "benchgate_workload_repetition",
                                    "The measured repetition running (1-based), 0 in warm-up");
  Family<Gauge>& worker_cpu =
      gauge(r, "benchgate_worker_cpu_utilization_ratio",
            "The busiest load thread's CPU time over the window / the window, over every "
            "worker, in the latest measured window (0.9 or more: worker_saturated, the load "
            "generator may be the bottleneck); no sample when not measured");
  // Connections and TLS (docs/MEASUREMENT.md, "Connections and TLS", "Handshakes per second"),
  // set when a workload finished; no sample where not measured.
  Family<Gauge>& handshakes =
      gauge(r, "benchgate_workload_handshakes_per_second",
            "new_connection_per_request: connections set up (TCP connect, TLS handshake) inside "
            "the window per second of it, the median over repetitions; no sample otherwise");
  Family<Gauge>& setup_seconds =
      gauge(r, "benchgate_workload_connection_setup_seconds",
            "A connection's setup at a percentile over every repetition: phase connect (TCP), "
            "tls_handshake, or ttfb (its first request to the first response byte); no sample "
            "for a phase nothing was measured in (cleartext has no handshake)");
  Family<Gauge>& tls_handshakes = gauge(
      r, "benchgate_workload_tls_handshakes",
      "TLS handshakes of the measured repetitions' connections, all of them (resumed=\"all\") "
      "and those in which the server resumed the session offered (resumed=\"yes\"), the "
      "latter only for a workload that reconnects per operation; no sample for cleartext");
  Family<Gauge>& streams =
      gauge(r, "benchgate_workload_http2_streams",
            "http2: concurrent streams per connection as requested, and as "
            "the server's SETTINGS_MAX_CONCURRENT_STREAMS allowed (effective)");

  Family<Counter>& router_cpu =
      counter(r, "benchgate_router_cpu_seconds_total",
              "CPU time of the system under test in measured windows; no series where it is "
              "not measured (an external system)");
  Family<Gauge>& router_rss = gauge(r, "benchgate_router_resident_memory_bytes",
                                    "Resident memory of the system under test after the latest "
                                    "measured window");
  Family<Counter>& router_requests =
      counter(r, "benchgate_router_requests_total",
              "Requests the router counted itself in measured windows; no series for a system "
              "that counts none (a command or an external system)");
  Family<Counter>& router_accepted = counter(r, "benchgate_router_connections_accepted_total",
                                             "Connections the router accepted in measured windows");

  Family<Gauge>& gate_passed = gauge(r, "benchgate_gate_passed",
                                     "1 when the gate passed in the scenario's latest run, 0 "
                                     "otherwise");
  Family<Gauge>& gate_verdict =
      gauge(r, "benchgate_gate_verdict",
            "1 for the gate's verdict in the scenario's latest run, 0 for the other verdicts");
  Family<Gauge>& gate_underpowered =
      gauge(r, "benchgate_gate_underpowered",
            "1 when the relative gate could not detect twice its allowed regression in the "
            "scenario's latest run (docs/GATES.md), 0 otherwise");
  Family<Gauge>& gate_confirmation =
      gauge(r, "benchgate_gate_confirmation",
            "A change gate's confirming rerun in the scenario's latest run (confirm = 1, "
            "docs/GATES.md): 1 for what it did (confirmed, cleared, failed), 0 for the others; "
            "no sample when the workload was not measured again");

  // Change points of the stored history (docs/GATES.md, "Change points"), per series.
  Family<Gauge>& change_points =
      gauge(r, "benchgate_change_points",
            "Change points in the series' stored history (history changes, default parameters)");
  Family<Gauge>& change_latest =
      gauge(r, "benchgate_change_latest_ratio",
            "The series' latest change point: median after / median before - 1 (0.05 = +5%)");
  Family<Gauge>& change_latest_run =
      gauge(r, "benchgate_change_latest_run", "The run where the series' latest change happened");

  std::mutex mutex;
  std::string scenario;
  // The variants each workload runs as: the [compare] routers or workers, or "default".
  std::vector<std::string> variants;
  std::map<std::string, std::vector<std::pair<Family<Gauge>*, Gauge*>>> change_series_by_scenario;
  void set_change_points(const report::ScenarioReport& report);
  // scenario_judged's work, with the time the run finished (locked by the caller).
  void judged(const report::ScenarioReport& report, const std::string& commit,
              double finished_unix_seconds);
  std::map<std::string, Gauge*> run_info_by_scenario;
  struct GateSeries {
    std::vector<Gauge*> passed;
    std::vector<Gauge*> verdicts;
    std::vector<Gauge*> underpowered;
    std::vector<Gauge*> confirmation;
  };
  std::map<std::string, GateSeries> gate_series_by_scenario;

  // serve --metrics-scenarios (0: every scenario, as a one-shot run has): the scenarios whose
  // series are kept, the most recently run last.
  size_t scenarios_kept = 0;
  std::deque<std::string> recent_scenarios;
  // Of recent_scenarios, the names only clients' runs set (serve): a client's run may push
  // out only these, never a scenario of the operator's runs, whose verdict gauges an operator
  // alerts on (README, "Clients of `orchestrator serve`").
  std::set<std::string> client_only;
  // The run now going was submitted by a client (begin_client_run, until client_run_finished).
  bool client_run = false;
  // That run sets nothing: its scenario's name is one of the operator's runs (its workload
  // and router series are the operator's), or every kept name is (nothing of a client's to
  // push out). Its job's status and the web pages still follow it.
  bool quiet = false;

  // Removes every series of the families for which `drop` says so of its labels.
  template <class T, class Drop>
  static void remove_series(Family<T>& family, const Drop& drop) {
    for (const prometheus::MetricFamily& collected : family.Collect()) {
      for (const prometheus::ClientMetric& metric : collected.metric) {
        Labels labels;
        for (const auto& label : metric.label) labels[label.name] = label.value;
        if (drop(labels)) family.Remove(&family.Add(labels));
      }
    }
  }
  template <class Drop>
  void remove_series_everywhere(const Drop& drop) {
    for (Family<Gauge>* family : gauges) remove_series(*family, drop);
    for (Family<Counter>* family : counters) remove_series(*family, drop);
  }

  // Every series of the scenario, and what points at them.
  void forget_scenario(const std::string& name) {
    remove_series_everywhere([&](const Labels& labels) {
      auto it = labels.find("scenario");
      return it != labels.end() && it->second == name;
    });
    run_info_by_scenario.erase(name);
    gate_series_by_scenario.erase(name);
    change_series_by_scenario.erase(name);
    client_only.erase(name);
  }

  // The oldest kept name that only clients' runs set (end() when every one is the
  // operator's): what goes first when a name must make room.
  std::deque<std::string>::iterator oldest_client_scenario() {
    return std::find_if(recent_scenarios.begin(), recent_scenarios.end(),
                        [&](const std::string& n) { return client_only.contains(n); });
  }

  // Every series of the kept name at `at`, and the name itself.
  void forget_kept(std::deque<std::string>::iterator at) {
    forget_scenario(*at);
    recent_scenarios.erase(at);
  }

  void make_most_recent(const std::string& name) {
    std::erase(recent_scenarios, name);
    recent_scenarios.push_back(name);
  }

  // A client's run of `name` starts: whether it may set series (false: quiet). It may where
  // the name is a client's already, or where a client's name can make room for it.
  bool note_client_scenario(const std::string& name) {
    if (scenarios_kept == 0) {
      client_only.insert(name);
      return true;
    }
    const bool kept =
        std::find(recent_scenarios.begin(), recent_scenarios.end(), name) != recent_scenarios.end();
    if (kept && !client_only.contains(name)) return false;  // the operator's
    if (!kept && recent_scenarios.size() >= scenarios_kept) {
      const auto oldest = oldest_client_scenario();
      if (oldest == recent_scenarios.end()) return false;  // every kept name is the operator's
      forget_kept(oldest);
    }
    make_most_recent(name);
    client_only.insert(name);
    return true;
  }

  // The scenario is the most recent one; the oldest past scenarios_kept are forgotten, a
  // client's name first: the operator's scenarios are what an operator alerts on.
  void note_scenario(const std::string& name) {
    if (scenarios_kept == 0) return;
    make_most_recent(name);
    while (recent_scenarios.size() > scenarios_kept) {
      const auto oldest = oldest_client_scenario();
      forget_kept(oldest != recent_scenarios.end() ? oldest : recent_scenarios.begin());
    }
  }

  // A new run of the scenario: the workload series of workloads and variants an earlier run
  // of it had and this one has not go (a scenario's workload series are those of its latest
  // run). The gate and change-point series are replaced when the run ends.
  void forget_other_workloads(const scenario::Scenario& s) {
    if (scenarios_kept == 0) return;
    std::set<std::string> names;
    for (const auto& w : s.workloads) names.insert(w.name);
    const std::set<std::string> kept_variants(variants.begin(), variants.end());
    const std::set<const void*> replaced_later = {
        &gate_passed,   &gate_verdict,  &gate_underpowered, &gate_confirmation,
        &change_points, &change_latest, &change_latest_run};
    auto stale = [&](const Labels& labels) {
      auto sc = labels.find("scenario");
      auto wl = labels.find("workload");
      if (sc == labels.end() || sc->second != s.name || wl == labels.end()) return false;
      auto va = labels.find("variant");
      return names.count(wl->second) == 0 ||
             (va != labels.end() && kept_variants.count(va->second) == 0);
    };
    for (Family<Gauge>* family : gauges) {
      if (replaced_later.count(family) == 0) remove_series(*family, stale);
    }
    for (Family<Counter>* family : counters) remove_series(*family, stale);
  }

  Labels workload_labels(const std::string& workload, const std::string& variant) const {
    return {{"scenario", scenario}, {"workload", workload}, {"variant", variant}};
  }
  // A window's series: in a comparison its variant's, as the finished workload's figures are,
  // not the displayed "NAME [VARIANT]" under "default".
  Labels window_labels(const scenario::Workload& workload, const engine::WindowInfo& window) const {
    return window.variant.empty() ? workload_labels(workload.name, "default")
                                  : workload_labels(window.workload, window.variant);
  }
  Labels scenario_labels() const { return {{"scenario", scenario}}; }

  // `at(percentile)` is a latency figure or nothing: a figure that was not measured (an empty
  // histogram, a percentile a worker adapter's tool did not print) gets no sample, never 0.
  // A figure the workers could not measure has no sample, never 0 (docs/MEASUREMENT.md), and
  // an earlier window's sample does not stand for it.
  static void set_or_remove(Family<Gauge>& family, const Labels& labels,
                            std::optional<double> value) {
    if (value) {
      family.Add(labels).Set(*value);
    } else if (family.Has(labels)) {
      family.Remove(&family.Add(labels));
    }
  }

  void set_connection_figures(const Labels& base, const results::WorkloadResult& result) {
    const auto rate = result.handshakes_per_second();
    set_or_remove(handshakes, base, rate ? std::optional(rate->median) : std::nullopt);
    const std::optional<results::ConnectionSetup> setup = result.setup();
    const std::pair<const char*, HdrHistogram results::ConnectionSetup::*> phases[] = {
        {"connect", &results::ConnectionSetup::connect},
        {"tls_handshake", &results::ConnectionSetup::tls_handshake},
        {"ttfb", &results::ConnectionSetup::ttfb}};
    for (const auto& [phase, member] : phases) {
      for (const auto& [label, percentile] : {std::pair{"50", 50.0}, std::pair{"99", 99.0}}) {
        Labels labels = base;
        labels["phase"] = phase;
        labels["percentile"] = label;
        std::optional<double> value;
        if (setup && ((*setup).*member).total_count() > 0) {
          value = seconds(((*setup).*member).value_at_percentile(percentile));
        }
        set_or_remove(setup_seconds, labels, value);
      }
    }
    // resumed="yes" as the RESULT line, the JSON report and the store have it
    // (results/resumption.h): where the workload keeps its connections it was never asked.
    const bool tls = setup && setup->handshakes > 0;
    const std::optional<uint64_t> resumed =
        setup ? results::resumed_handshakes(result.spec, *setup) : std::nullopt;
    for (const char* which : {"all", "yes"}) {
      Labels labels = base;
      labels["resumed"] = which;
      std::optional<double> value;
      if (which[0] == 'a' && tls) value = static_cast<double>(setup->handshakes);
      if (which[0] == 'y' && resumed) value = static_cast<double>(*resumed);
      set_or_remove(tls_handshakes, labels, value);
    }
    const uint32_t requested = result.requested_streams();
    const uint32_t effective = result.effective_streams();
    for (const char* kind : {"requested", "effective"}) {
      Labels labels = base;
      labels["kind"] = kind;
      const uint32_t n = kind[0] == 'r' ? requested : effective;
      set_or_remove(streams, labels, n > 0 ? std::optional(static_cast<double>(n)) : std::nullopt);
    }
  }

  template <typename At>
  void set_latency(const Labels& base, const At& at) {
    for (const auto& [label, percentile] : kPercentiles) {
      const std::optional<int64_t> ns = at(percentile);
      Labels labels = base;
      labels["percentile"] = label;
      set_or_remove(latency, labels, ns ? std::optional(seconds(*ns)) : std::nullopt);
    }
  }
};

MetricsObserver::MetricsObserver(size_t scenarios_kept) : impl_(std::make_unique<Impl>()) {
  impl_->scenarios_kept = scenarios_kept;
}
MetricsObserver::~MetricsObserver() = default;

const std::shared_ptr<prometheus::Registry>& MetricsObserver::registry() const {
  return impl_->registry;
}

std::vector<std::string> MetricsObserver::family_names() const {
  std::vector<std::string> names;
  for (const auto* family : impl_->gauges) names.push_back(family->GetName());
  for (const auto* family : impl_->counters) names.push_back(family->GetName());
  return names;
}

void MetricsObserver::begin_client_run() {
  std::lock_guard lock(impl_->mutex);
  impl_->client_run = true;
  impl_->quiet = false;
}

void MetricsObserver::scenario_started(const scenario::Scenario& scenario) {
  std::lock_guard lock(impl_->mutex);
  if (impl_->client_run) {
    impl_->quiet = !impl_->note_client_scenario(scenario.name);
    if (impl_->quiet) return;
  } else {
    impl_->client_only.erase(scenario.name);  // the operator's from now on
  }
  impl_->scenario = scenario.name;
  const Labels labels = impl_->scenario_labels();
  impl_->run_in_progress.Add(labels).Set(1);
  for (const char* status : kRunStatuses) {
    Labels with_status = labels;
    with_status["status"] = status;
    impl_->runs.Add(with_status);
  }
  impl_->variants = !scenario.compare_routers.empty()   ? scenario.compare_routers
                    : !scenario.compare_workers.empty() ? scenario.compare_workers
                                                        : std::vector<std::string>{"default"};
  if (!impl_->client_run) impl_->note_scenario(scenario.name);
  impl_->forget_other_workloads(scenario);
  // The router's counters exist at 0 from the start only where they will be measured: the
  // bundled router counts its requests and connections and samples its CPU, a spawned command
  // is sampled from /proc, an external system is not measured at all (docs/MEASUREMENT.md). A
  // comparison's variants differ, so there each series starts with its first measured window.
  if (scenario.compare_routers.empty()) {
    if (scenario.router.impl != scenario::RouterImpl::kExternal) impl_->router_cpu.Add(labels);
    if (scenario.router.impl == scenario::RouterImpl::kBuiltin) {
      impl_->router_requests.Add(labels);
      impl_->router_accepted.Add(labels);
    }
  }
}

void MetricsObserver::workload_started(const scenario::Workload& workload) {
  std::lock_guard lock(impl_->mutex);
  if (impl_->quiet) return;
  for (const std::string& variant : impl_->variants) {
    const Labels labels = impl_->workload_labels(workload.name, variant);
    impl_->connections.Add(labels).Set(workload.sessions());
    impl_->repetition.Add(labels).Set(0);
    impl_->operations.Add(labels);
    for (std::string_view kind : kErrorKinds) {
      Labels with_kind = labels;
      with_kind["kind"] = std::string(kind);
      impl_->errors.Add(with_kind);
    }
    Labels with_other = labels;
    with_other["kind"] = kOtherErrorKind;
    impl_->errors.Add(with_other);
  }
}

void MetricsObserver::progress(const scenario::Workload& workload, const engine::WindowInfo& window,
                               double ops_per_second, int64_t p99_ns, int64_t /*elapsed_ns*/) {
  std::lock_guard lock(impl_->mutex);
  if (impl_->quiet) return;
  Labels labels = impl_->window_labels(workload, window);
  impl_->ops.Add(labels).Set(ops_per_second);
  impl_->repetition.Add(labels).Set(window.measured ? window.repetition : 0);
  labels["percentile"] = "99";
  // 0 is an empty histogram (no answer yet in this window): no sample, not a 0 s latency.
  Impl::set_or_remove(impl_->latency, labels,
                      p99_ns > 0 ? std::optional(seconds(p99_ns)) : std::nullopt);
}

void MetricsObserver::window_finished(const scenario::Workload& workload,
                                      const engine::WindowInfo& window,
                                      const results::Repetition* rep) {
  if (rep == nullptr) return;  // warm-up: nothing recorded
  std::lock_guard lock(impl_->mutex);
  if (impl_->quiet) return;
  const Labels labels = impl_->window_labels(workload, window);
  impl_->ops.Add(labels).Set(rep->ops_per_second());
  Impl::set_or_remove(
      impl_->throughput, labels,
      rep->measured("bytes_received") ? std::optional(rep->bytes_per_second()) : std::nullopt);
  impl_->set_latency(labels, [&](double p) { return rep->latency_at(p); });
  impl_->operations.Add(labels).Increment(static_cast<double>(rep->operations));
  for (const auto& [kind, count] : rep->errors) {
    Labels with_kind = labels;
    with_kind["kind"] = error_kind_label(kind);
    impl_->errors.Add(with_kind).Increment(static_cast<double>(count));
  }
  Impl::set_or_remove(
      impl_->worker_cpu, labels,
      rep->measured("cpu") ? std::optional(rep->worker_cpu_utilization) : std::nullopt);

  // The router's figures only where they were measured (results::RouterWindow): an external
  // system's CPU, a command's requests are not 0, they are unknown.
  const Labels scenario = impl_->scenario_labels();
  if (rep->router.sampled) {
    impl_->router_cpu.Add(scenario).Increment(rep->router.cpu_seconds);
    if (rep->router.rss_bytes > 0) {
      impl_->router_rss.Add(scenario).Set(static_cast<double>(rep->router.rss_bytes));
    }
  }
  if (rep->router.collected) {
    impl_->router_requests.Add(scenario).Increment(static_cast<double>(rep->router.requests));
    if (auto it = rep->router.counter_deltas.find("connections_accepted");
        it != rep->router.counter_deltas.end()) {
      impl_->router_accepted.Add(scenario).Increment(static_cast<double>(it->second));
    }
  }
}

void MetricsObserver::workload_finished(const results::WorkloadResult& result) {
  std::lock_guard lock(impl_->mutex);
  if (impl_->quiet) return;
  const Labels labels = impl_->workload_labels(result.spec.name, result.variant);
  impl_->repetition.Add(labels).Set(0);
  if (result.repetitions.empty()) return;  // nothing measured: keep the last live values
  impl_->ops.Add(labels).Set(result.ops_per_second().median);
  Impl::set_or_remove(impl_->throughput, labels,
                      result.measured("bytes_received")
                          ? std::optional(result.bytes_per_second().median)
                          : std::nullopt);
  impl_->set_latency(labels, [&](double p) { return result.latency_at(p); });
  impl_->set_connection_figures(labels, result);
}

// One series per (series, family) for the scenario, replacing what its previous run set: a
// series with no change point has benchgate_change_points 0 and no latest change (nothing to
// show, never a 0% change).
void MetricsObserver::Impl::set_change_points(const report::ScenarioReport& report) {
  Impl& m = *this;
  if (!report.changes_read) return;  // not updated by this run: the previous values stand
  auto& set = m.change_series_by_scenario[report.result.scenario];
  for (auto [family, gauge] : set) family->Remove(gauge);
  set.clear();
  for (const store::SeriesChanges& series : report.changes) {
    const Labels labels = {{"scenario", series.key.scenario},
                           {"workload", series.key.workload},
                           {"variant", series.key.variant},
                           {"metric", series.key.metric},
                           {"testbed", std::to_string(series.key.testbed_id)}};
    Gauge& count = m.change_points.Add(labels);
    count.Set(static_cast<double>(series.changes.size()));
    set.emplace_back(&m.change_points, &count);
    if (series.changes.empty()) continue;
    const store::StoredChangePoint& latest = series.changes.back();
    Gauge& run = m.change_latest_run.Add(labels);
    run.Set(static_cast<double>(latest.run_id));
    set.emplace_back(&m.change_latest_run, &run);
    if (!latest.change) continue;  // from a median of 0: no relative size
    Gauge& change = m.change_latest.Add(labels);
    change.Set(*latest.change);
    set.emplace_back(&m.change_latest, &change);
  }
}

std::string MetricsObserver::run_status_label(const report::ScenarioReport& report) {
  // The status the store holds (run_one sets it, or reads it back when the store ended the run
  // otherwise; where the store could not end it at all, the 'failed' or 'aborted' it would have
  // written, Store::refused_end_status). An exit code raised after the run was stored (a late
  // interrupt or cancel, unwritten report files, a refused promotion) leaves it:
  // benchgate_last_run_exit_code says that, as runs.exit_code does.
  if (report.status == "ok" || report.status == "failed" || report.status == "aborted") {
    return report.status;
  }
  // A report that carries no status (none of run_one's): the status run_one would store.
  if (report.result.interrupted) return "aborted";
  return report.result.ok() ? "ok" : "failed";
}

void MetricsObserver::run_final(const report::ScenarioReport& report) {
  std::lock_guard lock(impl_->mutex);
  const Labels labels = {{"scenario", report.result.scenario}};
  Labels with_status = labels;
  with_status["status"] = run_status_label(report);
  impl_->runs.Add(with_status).Increment();
  impl_->last_exit_code.Add(labels).Set(report.exit_code);
}

void MetricsObserver::client_run_finished(const report::ScenarioReport& report) {
  std::lock_guard lock(impl_->mutex);
  const bool quiet = impl_->quiet;
  impl_->client_run = false;
  impl_->quiet = false;
  if (quiet) return;
  // A run that ended before its scenario started (refused at load) is noted here.
  if (!impl_->note_client_scenario(report.result.scenario)) return;
  const Labels labels = {{"scenario", report.result.scenario}};
  impl_->run_in_progress.Add(labels).Set(0);
  Labels with_status = labels;
  with_status["status"] = run_status_label(report);
  impl_->runs.Add(with_status).Increment();
}

void MetricsObserver::scenario_finished(const report::ScenarioReport& report,
                                        const std::string& commit) {
  scenario_judged(report, commit);
  run_final(report);
}

void MetricsObserver::scenario_judged(const report::ScenarioReport& report,
                                      const std::string& commit) {
  std::lock_guard lock(impl_->mutex);
  impl_->judged(
      report, commit,
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
}

void MetricsObserver::restore_run(const report::ScenarioReport& report, const std::string& commit,
                                  double finished_unix_seconds) {
  std::lock_guard lock(impl_->mutex);
  Impl& m = *impl_;
  m.judged(report, commit, finished_unix_seconds);
  const Labels labels = {{"scenario", report.result.scenario}};
  // Counted from 0 by this process, as a scenario's start sets them up.
  for (const char* status : kRunStatuses) {
    Labels with_status = labels;
    with_status["status"] = status;
    m.runs.Add(with_status);
  }
  m.last_exit_code.Add(labels).Set(report.exit_code);
}

void MetricsObserver::Impl::judged(const report::ScenarioReport& report, const std::string& commit,
                                   double finished_unix_seconds) {
  Impl& m = *this;
  const std::string& name = report.result.scenario;
  m.note_scenario(name);  // a run that ended before it started counts too
  const Labels labels = {{"scenario", name}};
  m.run_in_progress.Add(labels).Set(0);
  m.last_finished.Add(labels).Set(finished_unix_seconds);

  // One info series per scenario: the latest run replaces the previous one.
  if (auto it = m.run_info_by_scenario.find(name); it != m.run_info_by_scenario.end()) {
    m.run_info.Remove(it->second);
    m.run_info_by_scenario.erase(it);
  }
  // A run without a commit is labelled `-`, as every table and report shows it.
  if (report.run_id != 0) {
    Gauge& info = m.run_info.Add({{"scenario", name},
                                  {"run_id", std::to_string(report.run_id)},
                                  {"commit", history::or_dash(commit)}});
    info.Set(1);
    m.run_info_by_scenario[name] = &info;
  }

  // Gates: the latest run's verdicts replace the previous run's, so a gate removed from the
  // scenario does not linger.
  Impl::GateSeries& series = m.gate_series_by_scenario[name];
  for (Gauge* g : series.passed) m.gate_passed.Remove(g);
  for (Gauge* g : series.verdicts) m.gate_verdict.Remove(g);
  for (Gauge* g : series.underpowered) m.gate_underpowered.Remove(g);
  for (Gauge* g : series.confirmation) m.gate_confirmation.Remove(g);
  series = {};
  for (const auto& gate : report.gates) {
    const gates::GateOutcome& outcome = gate.outcome;
    Labels gate_labels = {
        {"scenario", name},
        {"gate", std::to_string(gate.gate_index + 1)},
        {"workload", gate.workload},
        {"variant", gate.variant},
        {"metric", outcome.metric},
        {"severity",
         outcome.severity == scenario::GateSeverity::kCritical ? "critical" : "warning"}};
    Gauge& passed = m.gate_passed.Add(gate_labels);
    passed.Set(outcome.verdict == gates::Verdict::kPass ? 1 : 0);
    series.passed.push_back(&passed);
    if (!gate.baseline.empty()) {
      Gauge& underpowered = m.gate_underpowered.Add(gate_labels);
      underpowered.Set(outcome.underpowered ? 1 : 0);
      series.underpowered.push_back(&underpowered);
    }
    if (!outcome.confirmation.empty()) {
      for (const char* what : {"confirmed", "cleared", "failed"}) {
        Labels with_confirmation = gate_labels;
        with_confirmation["confirmation"] = what;
        Gauge& g = m.gate_confirmation.Add(with_confirmation);
        g.Set(outcome.confirmation == what ? 1 : 0);
        series.confirmation.push_back(&g);
      }
    }
    for (gates::Verdict verdict : kVerdicts) {
      Labels with_verdict = gate_labels;
      with_verdict["verdict"] = std::string(gates::to_string(verdict));
      Gauge& g = m.gate_verdict.Add(with_verdict);
      g.Set(outcome.verdict == verdict ? 1 : 0);
      series.verdicts.push_back(&g);
    }
  }
  m.set_change_points(report);
}

}  // namespace benchgate::metrics
