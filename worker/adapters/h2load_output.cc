#include "worker/adapters/h2load_output.h"

#include <cmath>
#include <map>
#include <string>

namespace benchgate::worker::adapters {
namespace {

using text::parse_count;

Error malformed(const std::string& what) { return Error{"unexpected h2load output: " + what}; }

// "requests: 10 total, 12 started, ..." -> {"total": 10, "started": 12, ...}.
Expected<std::map<std::string, uint64_t, std::less<>>> request_counts(std::string_view line) {
  const auto words = text::words(line);
  std::map<std::string, uint64_t, std::less<>> counts;
  for (size_t i = 1; i + 1 < words.size(); i += 2) {
    auto count = parse_count(words[i]);
    std::string_view label = words[i + 1];
    if (!label.empty() && label.back() == ',') label.remove_suffix(1);
    // Appended rather than "'" + std::string(...): GCC 12 warns (-Wrestrict) on the latter.
    if (!count) {
      return malformed(std::string("'").append(words[i]).append("' in the requests line"));
    }
    counts.emplace(std::string(label), *count);
  }
  return counts;
}

}  // namespace

std::optional<int64_t> parse_h2load_duration(std::string_view printed) {
  double scale = 0;
  size_t unit = 0;
  if (printed.ends_with("us")) {
    scale = 1e3, unit = 2;
  } else if (printed.ends_with("ms")) {
    scale = 1e6, unit = 2;
  } else if (printed.ends_with("s")) {
    scale = 1e9, unit = 1;
  } else {
    return std::nullopt;
  }
  auto value = text::parse_decimal(printed.substr(0, printed.size() - unit));
  if (!value) return std::nullopt;
  return static_cast<int64_t>(std::llround(*value * scale));
}

Expected<ToolFigures> parse_h2load_output(std::string_view out) {
  const auto requests_line = text::line_starting(out, "requests:");
  if (!requests_line) return malformed("no 'requests:' line (did h2load finish?)");
  auto counts = request_counts(*requests_line);
  if (!counts) return counts.error();
  auto get = [&](std::string_view label) -> std::optional<uint64_t> {
    auto it = counts->find(label);
    if (it == counts->end()) return std::nullopt;
    return it->second;
  };
  const auto done = get("done");
  const auto succeeded = get("succeeded");
  const auto failed = get("failed");
  const auto errored = get("errored");
  const auto timeout = get("timeout");
  if (!done || !succeeded || !failed || !errored || !timeout) {
    return malformed("the requests line lacks done/succeeded/failed/errored/timeout: '" +
                     std::string(*requests_line) + "'");
  }
  if (*succeeded > *done || *errored > *failed) {
    return malformed("inconsistent counts in '" + std::string(*requests_line) + "'");
  }
  ToolFigures figures;
  figures.operations = *done;
  figures.successes = *succeeded;
  figures.errors[static_cast<size_t>(ErrorKind::kStatus)] = *failed - *errored;
  figures.errors[static_cast<size_t>(ErrorKind::kTimeout)] = *timeout;
  figures.errors[static_cast<size_t>(ErrorKind::kReset)] = *errored - std::min(*errored, *timeout);

  const auto traffic = text::line_starting(out, "traffic:");
  if (!traffic) return malformed("no 'traffic:' line");
  const auto traffic_words = text::words(*traffic);
  if (traffic_words.size() < 4 || traffic_words[3] != "total," ||
      !traffic_words[2].starts_with('(') || !traffic_words[2].ends_with(')')) {
    return malformed("traffic line '" + std::string(*traffic) + "'");
  }
  const auto bytes = parse_count(traffic_words[2].substr(1, traffic_words[2].size() - 2));
  if (!bytes) return malformed("traffic total in '" + std::string(*traffic) + "'");
  figures.bytes_received = *bytes;

  const auto timing = text::line_starting(out, "time for request:");
  if (!timing) return malformed("no 'time for request:' line");
  const auto timing_words = text::words(*timing);
  // "time" "for" "request:" min max mean sd "+/- sd"
  if (timing_words.size() < 7)
    return malformed("time for request line '" + std::string(*timing) + "'");
  std::optional<int64_t> ns[4];
  for (size_t i = 0; i < 4; ++i) {
    ns[i] = parse_h2load_duration(timing_words[3 + i]);
    if (!ns[i]) return malformed("duration '" + std::string(timing_words[3 + i]) + "'");
  }
  // With no completed request h2load prints 0us everywhere: that is no measurement.
  if (*done > 0) {
    figures.latency.min_ns = ns[0];
    figures.latency.max_ns = ns[1];
    figures.latency.mean_ns = ns[2];
    figures.latency.stdev_ns = ns[3];
  }
  // With TLS h2load prints what the server chose: "TLS Protocol: TLSv1.3", "Cipher: ...",
  // "Application protocol: h2".
  auto value_of = [&](std::string_view prefix) -> std::string {
    const auto line = text::line_starting(out, prefix);
    if (!line) return "";
    std::string_view rest = line->substr(line->find(prefix) + prefix.size());
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    return std::string(rest);
  };
  if (const std::string version = value_of("TLS Protocol:"); !version.empty()) {
    std::string alpn = value_of("Application protocol:");
    figures.tls = NegotiatedTls{version, value_of("Cipher:"), alpn == "h2c" ? "" : alpn};
  }
  return figures;
}

}  // namespace benchgate::worker::adapters
