#include "worker/adapters/wrk_output.h"

#include <cmath>
#include <map>
#include <string>

namespace benchgate::worker::adapters {
namespace {

using text::parse_count;

Error malformed(const std::string& what) { return Error{"unexpected wrk output: " + what}; }

// "key=value key=value" after the line's label -> {key: value}.
Expected<std::map<std::string, std::string_view, std::less<>>> key_values(std::string_view line) {
  std::map<std::string, std::string_view, std::less<>> out;
  const auto words = text::words(line);
  for (size_t i = 1; i < words.size(); ++i) {
    const size_t eq = words[i].find('=');
    if (eq == std::string_view::npos || eq == 0) {
      // Appended rather than "'" + std::string(...): GCC 12 warns (-Wrestrict) on the latter.
      return malformed(std::string("'").append(words[i]).append("' in '").append(line).append("'"));
    }
    out.emplace(std::string(words[i].substr(0, eq)), words[i].substr(eq + 1));
  }
  return out;
}

}  // namespace

const std::string_view kWrkSummaryScript = R"lua(-- benchgate: print wrk's exact figures
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "benchgate-wrk: requests=%d bytes=%d connect=%d read=%d write=%d status=%d timeout=%d\n",
    summary.requests, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout))
  if summary.requests > 0 then
    io.write(string.format(
      "benchgate-wrk-latency-us: min=%d max=%d mean=%.3f stdev=%.3f p50=%d p75=%d p90=%d p99=%d p99.9=%d\n",
      latency.min, latency.max, latency.mean, latency.stdev, latency:percentile(50),
      latency:percentile(75), latency:percentile(90), latency:percentile(99),
      latency:percentile(99.9)))
  end
end
)lua";

Expected<ToolFigures> parse_wrk_output(std::string_view out) {
  const auto summary_line = text::line_starting(out, "benchgate-wrk:");
  if (!summary_line) {
    return malformed(
        "no 'benchgate-wrk:' line (wrk did not finish, or ran without the summary script)");
  }
  auto summary = key_values(*summary_line);
  if (!summary) return summary.error();
  uint64_t v[7] = {};
  const char* const keys[7] = {"requests", "bytes",  "connect", "read",
                               "write",    "status", "timeout"};
  for (size_t i = 0; i < 7; ++i) {
    auto it = summary->find(keys[i]);
    auto count = it == summary->end() ? std::nullopt : parse_count(it->second);
    if (!count)
      return malformed(std::string("no count '") + keys[i] + "' in '" + std::string(*summary_line) +
                       "'");
    v[i] = *count;
  }
  const uint64_t requests = v[0], bytes = v[1], connect = v[2], read = v[3], write = v[4],
                 status = v[5], timeout = v[6];
  if (status > requests)
    return malformed("more status errors than requests in '" + std::string(*summary_line) + "'");

  // wrk's own lines must agree with the script's figures.
  bool saw_total = false;
  for (std::string_view line : text::lines(out)) {
    const auto words = text::words(line);
    if (words.size() >= 3 && words[1] == "requests" && words[2] == "in") {
      saw_total = true;
      if (parse_count(words[0]) != requests) {
        return malformed(std::string("'").append(line).append("' disagrees with requests=") +
                         std::to_string(requests));
      }
    }
  }
  if (!saw_total) return malformed("no 'N requests in' line");
  uint64_t non_2xx = 0;
  if (auto line = text::line_starting(out, "Non-2xx or 3xx responses:")) {
    const auto words = text::words(*line);
    auto count = parse_count(words.back());
    if (!count) return malformed("'" + std::string(*line) + "'");
    non_2xx = *count;
  }
  if (non_2xx != status) {
    return malformed("status=" + std::to_string(status) + " but wrk printed " +
                     std::to_string(non_2xx) + " non-2xx or 3xx responses");
  }

  ToolFigures figures;
  figures.operations = requests;
  figures.successes = requests - status;
  figures.errors[static_cast<size_t>(ErrorKind::kStatus)] = status;
  figures.errors[static_cast<size_t>(ErrorKind::kConnect)] = connect;
  figures.errors[static_cast<size_t>(ErrorKind::kTimeout)] = timeout;
  figures.errors[static_cast<size_t>(ErrorKind::kReset)] = read + write;
  figures.bytes_received = bytes;

  const auto latency_line = text::line_starting(out, "benchgate-wrk-latency-us:");
  if (!latency_line) {
    if (requests > 0)
      return malformed("no 'benchgate-wrk-latency-us:' line although requests completed");
    return figures;
  }
  auto latency = key_values(*latency_line);
  if (!latency) return latency.error();
  auto micros = [&](std::string_view key) -> std::optional<int64_t> {
    auto it = latency->find(key);
    if (it == latency->end()) return std::nullopt;
    auto value = text::parse_decimal(it->second);
    if (!value) return std::nullopt;
    return static_cast<int64_t>(std::llround(*value * 1000.0));
  };
  ToolLatency& l = figures.latency;
  l.min_ns = micros("min");
  l.max_ns = micros("max");
  l.mean_ns = micros("mean");
  l.stdev_ns = micros("stdev");
  for (const char* p : {"50", "75", "90", "99", "99.9"}) {
    auto ns = micros(std::string("p") + p);
    if (!ns) return malformed(std::string("no p") + p + " in '" + std::string(*latency_line) + "'");
    l.percentiles_ns.emplace_back(p, *ns);
  }
  if (!l.min_ns || !l.max_ns || !l.mean_ns || !l.stdev_ns) {
    return malformed("min/max/mean/stdev in '" + std::string(*latency_line) + "'");
  }
  return figures;
}

}  // namespace benchgate::worker::adapters
