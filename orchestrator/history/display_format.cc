// Terminal formatting of stored values (display_format.h).
#include "orchestrator/history/display_format.h"

#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <string_view>

#include "common/util/shown_text.h"
#include "orchestrator/gates/metrics.h"

namespace benchgate::history {

std::string format_local_time(int64_t unix_ns) {
  // Floor division, so a time before 1970 still lands in the right second.
  int64_t seconds = unix_ns / 1'000'000'000;
  if (unix_ns % 1'000'000'000 < 0) --seconds;
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm local{};
  if (localtime_r(&t, &local) == nullptr) return fmt::format("@{}", seconds);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &local);
  return buf;
}

std::string format_span(int64_t ns) {
  if (ns < 0) return "-";
  if (ns < 1'000'000'000) return fmt::format("{}ms", ns / 1'000'000);
  if (ns < 60'000'000'000) return fmt::format("{:.1f}s", static_cast<double>(ns) / 1e9);
  const int64_t s = ns / 1'000'000'000;
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

std::optional<std::string> run_took(const std::string& status, int64_t started_at_ns,
                                    std::optional<int64_t> finished_at_ns) {
  if (!finished_at_ns || status == "abandoned") return std::nullopt;
  return format_span(*finished_at_ns - started_at_ns);
}

std::string short_commit(const std::string& commit) {
  if (commit.empty()) return "-";
  // The mark git_revision adds when a tracked file differed from HEAD: cut off with the SHA,
  // a dirty tree's run would read as the commit's own.
  static constexpr std::string_view kDirty = "-dirty";
  const bool dirty = commit.size() > kDirty.size() && commit.ends_with(kDirty);
  const std::string sha = dirty ? commit.substr(0, commit.size() - kDirty.size()) : commit;
  return shown_text(sha.substr(0, 10) + (dirty ? std::string(kDirty) : ""));
}

std::string format_labels(const std::map<std::string, std::string>& labels) {
  if (labels.empty()) return "-";
  std::string out;
  for (const auto& [key, value] : labels) {
    out += (out.empty() ? "" : ",") + shown_text(key) + "=" + shown_text(value);
  }
  return out;
}

std::string format_latency_ns(std::optional<int64_t> ns) {
  if (!ns) return "-";
  return gates::format_metric_value(static_cast<double>(*ns) / 1e9, gates::UnitKind::kSeconds);
}

std::string format_percent(double change) {
  if (std::isnan(change)) return "n/a";
  if (std::isinf(change)) return change > 0 ? "+inf%" : "-inf%";
  return fmt::format("{:+.2f}%", change * 100);
}

std::string or_dash(const std::string& s) { return s.empty() ? "-" : shown_text(s); }

std::string origin_text(const std::string& origin) {
  // Empty: stored before schema version 23, when nobody recorded who started a run; the side
  // rule (store::internal::series_side_sql) counts it as the operator's.
  if (origin.empty()) {
    return "not recorded (stored before schema version 23; counted as the operator's)";
  }
  if (origin == "local") return "local (orchestrator run; a point of the operator's series)";
  if (origin == "scheduled") {
    return "scheduled (one of orchestrator serve's own scenarios; a point of the operator's "
           "series)";
  }
  if (origin == "client") {
    return "client (submitted to orchestrator serve; a point of the clients' series only)";
  }
  return shown_text(origin);  // the schema's CHECK allows no other
}

std::string format_metric(const std::string& metric, double value) {
  const gates::MetricInfo* info = gates::find_metric(metric);
  return info ? gates::format_metric_value(value, info->unit) : fmt::format("{:g}", value);
}

}  // namespace benchgate::history
