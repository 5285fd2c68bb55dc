// What the bundled worker's adapters (`worker --adapter h2load|wrk`, a [worker_impls] `adapter`)
// can run of a workload, defined once: the scenario loader refuses anything else at the key
// that asks for it when the file is loaded (orchestrator/scenario/adapter_workloads.cc), and the
// adapter refuses it again when a workload or a window reaches it (worker/adapters/tool_args.cc),
// as a guard for a worker that got it from elsewhere. So a scenario `validate` accepts is not
// refused after the router and the workers have started.
//
// A tool runs what its flags can say, never an approximation: the closed loop with GET only,
// no request body, no echo checks, a status expectation inside 2xx, connections kept open;
// wrk HTTP/1.1 in cleartext without pipelining, h2load HTTP/1.1 and HTTP/2 (h2c, or h2 by ALPN
// over TLS) with an initial window of 2^N or 2^N - 1 bytes, and TLS only with insecure = true
// (it never verifies a certificate), without tls_version (no flag limits it) and without
// tls_resumption. A window's length must be what the duration flag takes: wrk -d whole
// seconds, h2load -D whole milliseconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchgate::adapter_limits {

enum class Tool { kH2load, kWrk };

inline const char* name_of(Tool tool) { return tool == Tool::kH2load ? "h2load" : "wrk"; }

// The tool an adapter name wraps ("h2load", "wrk"), or nothing.
inline std::optional<Tool> tool_named(std::string_view name) {
  if (name == "h2load") return Tool::kH2load;
  if (name == "wrk") return Tool::kWrk;
  return std::nullopt;
}

// The error kinds a tool cannot detect in a workload, defined once: the adapter declares them
// not measured in every window (worker/adapters/tool_session.cc), and the scenario loader
// refuses a gate on errors.count or errors.rate of such a workload (orchestrator/scenario/
// metrics.cc), whose count would be a lower bound. h2load reports no failed connect in a timed
// run (a client whose connection fails just stops); neither tool checks a body's length.
inline std::vector<std::string_view> unmeasured_error_kinds(Tool tool, bool body_length_checked) {
  std::vector<std::string_view> kinds;
  if (tool == Tool::kH2load) kinds.push_back("connect");
  if (body_length_checked) kinds.push_back("length");
  return kinds;
}

// A workload as the scenario and the worker protocol both describe it.
struct Workload {
  std::string_view protocol = "http1";  // http1, http2, wamp_rpc, wamp_pubsub, wamp_transfer
  bool new_connection_per_request = false;
  bool tls = false;
  bool tls_insecure = false;
  std::string_view tls_version;  // empty: negotiated
  bool tls_resumption = false;
  uint32_t http2_initial_window = uint32_t{1} << 30;
  bool open_loop = false;  // rate > 0
  std::string_view method = "GET";
  uint64_t request_body_bytes = 0;
  bool expect_echo = false;  // the bundled router's /bench/echo, its body checked
  uint32_t expect_status = 200;
  std::string_view target = "/";
  uint32_t in_flight = 1;
};

// What a tool cannot run: the scenario keys that ask for it, the first the one to blame when
// the file sets it (a key the file leaves at its default is named by the next, or by the
// workload), and what it is, for "... cannot run WHAT".
struct Refusal {
  std::vector<std::string_view> keys;
  std::string what;
};

// h2load -w/-W N grant 2^N - 1 bytes: the window's N when it is 2^N - 1 or 2^N (the default,
// 1 GiB, is 2^30: h2load's own default, 2^30 - 1), 0 otherwise.
inline int window_bits(uint32_t window) {
  for (int n = 1; n <= 31; ++n) {
    const uint64_t power = uint64_t{1} << n;
    if (window == power - 1 || window == power) return n;
  }
  return 0;
}

// The first thing of `w` the tool cannot run, or nothing when it runs all of it.
inline std::optional<Refusal> refusal(Tool tool, const Workload& w) {
  const bool h2load = tool == Tool::kH2load;
  const bool http2 = w.protocol == "http2";
  if (w.protocol != "http1" && !(h2load && http2)) {
    return Refusal{{"protocol"},
                   "protocol '" + std::string(w.protocol) + "' (it generates " +
                       (h2load ? "http1 and http2" : "http1") + " only)"};
  }
  if (w.new_connection_per_request) {
    return Refusal{{"new_connection_per_request"},
                   "new_connection_per_request (it keeps its connections)"};
  }
  if (w.tls && !h2load) return Refusal{{"tls"}, "TLS (tls = true): wrk runs cleartext only"};
  if (w.tls && !w.tls_insecure) {
    return Refusal{{"insecure", "tls"},
                   "TLS with certificate verification: h2load does not verify the server's "
                   "certificate (set insecure = true to run it so)"};
  }
  if (w.tls && !w.tls_version.empty()) {
    return Refusal{{"tls_version"},
                   "tls_version '" + std::string(w.tls_version) +
                       "': h2load has no flag that limits the version"};
  }
  if (w.tls && w.tls_resumption) {
    return Refusal{{"tls_resumption"}, "tls_resumption (h2load reuses no sessions)"};
  }
  if (http2 && window_bits(w.http2_initial_window) == 0) {
    return Refusal{{"initial_window"},
                   "initial_window " + std::to_string(w.http2_initial_window) +
                       ": h2load's -w takes 2^N - 1 bytes (give 2^N - 1 or 2^N)"};
  }
  if (w.open_loop) {
    return Refusal{{"rate"}, "the open loop (rate > 0): it runs the closed loop only"};
  }
  if (w.method != "GET") {
    return Refusal{{"method"}, "method '" + std::string(w.method) + "' (GET only)"};
  }
  if (w.request_body_bytes > 0) {
    return Refusal{
        {"request_bytes"},
        "a request body (request_bytes " + std::to_string(w.request_body_bytes) + ", GET only)"};
  }
  if (w.expect_echo) {
    return Refusal{{"target"},
                   "echo checks (" + std::string(w.target) +
                       ": it does not compare an answer's body with the request's)"};
  }
  if (w.expect_status < 200 || w.expect_status > 299) {
    return Refusal{{"expect_status"},
                   "expect_status " + std::to_string(w.expect_status) +
                       " (it only tells 2xx from other answers)"};
  }
  if (w.target.empty() || w.target.front() != '/') {
    return Refusal{{"target"}, "target '" + std::string(w.target) + "' (it must start with '/')"};
  }
  if (!h2load && w.in_flight > 1) {
    return Refusal{{"in_flight"},
                   "in_flight " + std::to_string(w.in_flight) + ": wrk does not pipeline"};
  }
  return std::nullopt;
}

// The length a window of the tool must be a whole number of: wrk -d takes seconds, h2load -D
// milliseconds.
inline int64_t window_unit_ns(Tool tool) {
  return tool == Tool::kH2load ? 1'000'000 : 1'000'000'000;
}

// The tool's window argument for `duration_ns`, in the unit it takes (window_unit_ns):
// wrk "-d 2s", h2load "-D 1500ms". A window the unit does not divide is refused first
// (window_refusal).
inline std::string window_argument(Tool tool, int64_t duration_ns) {
  return std::to_string(duration_ns / window_unit_ns(tool)) + (tool == Tool::kH2load ? "ms" : "s");
}

// Why the tool cannot run a window of `duration_ns` ("wrk -d takes whole seconds"), or nothing.
inline std::optional<std::string> window_refusal(Tool tool, int64_t duration_ns) {
  if (duration_ns % window_unit_ns(tool) == 0) return std::nullopt;
  return tool == Tool::kH2load ? "h2load -D takes whole milliseconds"
                               : "wrk -d takes whole seconds";
}

// A duration exactly, in the largest unit of s, ms, us and ns it is at least one of, with the
// decimals it needs: 1'500'000'000 -> "1.5s", 250'000'000 -> "250ms", 1'000'500 -> "1.0005ms"
// (a negative one, which no window has, in ns).
inline std::string exact_duration_text(int64_t ns) {
  struct Unit {
    int64_t ns;
    const char* name;
  };
  for (const Unit unit : {Unit{1'000'000'000, "s"}, Unit{1'000'000, "ms"}, Unit{1'000, "us"}}) {
    if (ns < unit.ns) continue;
    std::string text = std::to_string(ns / unit.ns);
    std::string decimals = std::to_string(ns % unit.ns + unit.ns).substr(1);
    while (!decimals.empty() && decimals.back() == '0') decimals.pop_back();
    if (!decimals.empty()) text += "." + decimals;
    return text + unit.name;
  }
  return std::to_string(ns) + "ns";
}

}  // namespace benchgate::adapter_limits
