// The `kind` key of a [[gates]] table, and the keys of a change gate (`kind = "change"`,
// docs/GATES.md, "Change gates"): judged against its series' own history, so it takes no max,
// min or baseline, and only the metrics change points are looked for in; `confirm` asks for a
// rerun before it fails.
#include <algorithm>
#include <array>

#include "common/util/shown_text.h"
#include "orchestrator/scenario/sections.h"

namespace benchgate::scenario {
namespace {

// The metrics `history changes` analyses (Store::change_metrics; a unit test keeps the two
// lists equal): errors are left out, as a relative change from zero errors has no size.
constexpr std::array<std::string_view, 7> kChangeMetrics = {
    "throughput.rps", "throughput.bytes_per_s", "latency.p50", "latency.p90",
    "latency.p99",    "latency.p999",           "latency.max"};

// With at most 50 runs of history, the smallest p-value of a change gate is 1/51.
constexpr double kChangeAlphaMin = 1.0 / 51;

}  // namespace

std::span<const std::string_view> change_gate_metrics() { return kChangeMetrics; }

bool read_gate_kind(TableReader& r, Gate& gate, bool compared) {
  Diagnostics& diag = r.diagnostics();
  const bool has_kind = r.has("kind");
  const auto kind = r.choice("kind", {"absolute", "relative", "change"});
  if (!has_kind || !kind || *kind != "change") {
    if (kind && *kind == "absolute" && (r.has("baseline") || r.has("against"))) {
      const char* key = r.has("baseline") ? "baseline" : "against";
      diag.error(r.key_location(key), std::string("an absolute gate (kind = \"absolute\") takes "
                                                  "'max' or 'min', not '") +
                                          key + "'");
    } else if (kind && *kind == "relative" && !r.has("baseline") && !r.has("against") &&
               !r.misspelt("baseline") && !r.misspelt("against")) {
      diag.error(r.table_location(),
                 "a relative gate (kind = \"relative\") needs key 'baseline' " + r.context());
    }
    for (std::string_view key : {"min_change", "confirm"}) {
      if (r.has(key)) {
        diag.error(r.key_location(key), "key '" + std::string(key) +
                                            "' applies only to a change gate (kind = \"change\")");
      }
    }
    return false;
  }
  gate.change = true;
  gate.alpha = 0.05;
  for (std::string_view key : {"max", "min", "baseline", "against", "max_regression", "test"}) {
    if (r.has(key)) {
      diag.error(r.key_location(key),
                 "key '" + std::string(key) +
                     "' does not apply to a change gate (kind = \"change\"): it is judged "
                     "against its series' own history");
    }
  }
  if (!gate.metric.empty() && std::find(kChangeMetrics.begin(), kChangeMetrics.end(),
                                        gate.metric) == kChangeMetrics.end()) {
    std::string all;
    for (std::string_view m : kChangeMetrics) all += (all.empty() ? "" : ", ") + std::string(m);
    diag.error(r.value_location("metric"), "a change gate cannot judge metric '" +
                                               shown_text(gate.metric) +

                                               "'; it can name one of: " + all);
  }
  if (r.has("min_change")) {
    if (auto v = r.percent("min_change")) {
      if (*v < 0) diag.error(r.value_location("min_change"), "key 'min_change' must be 0% or more");
      gate.min_change = *v;
    }
  }
  if (auto alpha = r.number("alpha", 0)) {
    if (*alpha <= kChangeAlphaMin || *alpha > 0.5) {
      diag.error(r.value_location("alpha"),
                 "key 'alpha' of a change gate must be above 1/51 (about 0.0196: with at most 50 "
                 "runs of history the smallest p-value is 1/51) and at most 0.5");
    }
    gate.alpha = *alpha;
  }
  // 0 or 1: the issue asks for one rerun, and one is what docs/GATES.md describes.
  if (auto confirm = r.integer("confirm", 0, 1)) {
    gate.confirm = *confirm == 1;
    if (gate.confirm && compared) {
      diag.error(r.value_location("confirm"),
                 "key 'confirm' cannot be used in a scenario with [compare]: its variants are "
                 "measured alternately, and one variant is not measured again alone");
    }
  }
  return true;
}

}  // namespace benchgate::scenario
