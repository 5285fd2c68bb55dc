#include "worker/adapters/tool_args.h"

#include <algorithm>
#include <cctype>

namespace benchgate::worker::adapters {
namespace {

constexpr int64_t kMillisecond = 1'000'000;
constexpr int64_t kSecond = 1'000'000'000;

const char* name_of(ToolKind kind) { return kind == ToolKind::kH2load ? "h2load" : "wrk"; }

Error refuse(ToolKind kind, const WorkloadSpec& spec, const std::string& what) {
  return Error{"workload '" + spec.name + "': the " + name_of(kind) + " adapter cannot run " +
               what};
}

bool is_host(const std::string& name) {
  return name.size() == 4 && std::tolower(static_cast<unsigned char>(name[0])) == 'h' &&
         std::tolower(static_cast<unsigned char>(name[1])) == 'o' &&
         std::tolower(static_cast<unsigned char>(name[2])) == 's' &&
         std::tolower(static_cast<unsigned char>(name[3])) == 't';
}

// h2load -w/-W N grant 2^N - 1 bytes: the window's N when it is 2^N - 1 or 2^N (the default,
// 1 GiB, is 2^30: h2load's own default, 2^30 - 1), 0 otherwise.
int window_bits(uint32_t window) {
  for (int n = 1; n <= 31; ++n) {
    const uint64_t power = uint64_t{1} << n;
    if (window == power - 1 || window == power) return n;
  }
  return 0;
}

// What h2load's TLS can do as asked: it never verifies the server's certificate (so only
// insecure = true says what it does), has no flag that limits the TLS version and keeps no
// sessions between its connections.
Expected<void> check_h2load_tls(const WorkloadSpec& spec) {
  const TlsSpec& tls = spec.tls;
  if (!tls.insecure) {
    return refuse(ToolKind::kH2load, spec,
                  "TLS with certificate verification: h2load does not verify the server's "
                  "certificate (set tls.insecure = true to run it so)");
  }
  if (!tls.version.empty()) {
    return refuse(ToolKind::kH2load, spec,
                  "tls.version '" + tls.version + "': h2load has no flag that limits the version");
  }
  if (tls.resumption) {
    return refuse(ToolKind::kH2load, spec, "tls.resumption (h2load reuses no sessions)");
  }
  return {};
}

}  // namespace

Expected<void> check_workload(ToolKind kind, const WorkloadSpec& spec) {
  // h2load speaks HTTP/1.1 (--h1) and HTTP/2 (h2c, or h2 by ALPN over TLS); wrk HTTP/1.1.
  const bool h2load = kind == ToolKind::kH2load;
  if (spec.protocol != "http1" && !(h2load && spec.is_http2())) {
    return refuse(kind, spec,
                  "protocol '" + spec.protocol + "' (it generates " +
                      (h2load ? "http1 and http2" : "http1") + " only)");
  }
  if (spec.new_connection_per_request) {
    return refuse(kind, spec, "new_connection_per_request (it keeps its connections)");
  }
  if (spec.tls.enabled && !h2load) return refuse(kind, spec, "TLS (tls = true)");
  if (spec.tls.enabled) {
    if (auto ok = check_h2load_tls(spec); !ok) return ok;
  }
  if (spec.is_http2() && window_bits(spec.http2.initial_window) == 0) {
    return refuse(kind, spec,
                  "http2.initial_window " + std::to_string(spec.http2.initial_window) +
                      ": h2load's -w takes 2^N - 1 bytes (give 2^N - 1 or 2^N)");
  }
  if (spec.open_loop()) {
    return refuse(kind, spec, "the open loop (rate > 0): it runs the closed loop only");
  }
  const HttpRequestSpec& http = spec.http;
  if (http.method != "GET") {
    return refuse(kind, spec, "http.method '" + http.method + "' (GET only)");
  }
  if (http.request_body_bytes > 0) {
    return refuse(kind, spec, "a request body (http.request_body_bytes > 0)");
  }
  if (http.expect_echo) return refuse(kind, spec, "echo checks (http.expect_echo)");
  if (http.expect_status < 200 || http.expect_status > 299) {
    return refuse(kind, spec,
                  "http.expect_status " + std::to_string(http.expect_status) +
                      " (it only tells 2xx from other answers)");
  }
  if (http.target.empty() || http.target.front() != '/') {
    return refuse(kind, spec, "http.target '" + http.target + "' (it must start with '/')");
  }
  if (kind == ToolKind::kWrk && spec.in_flight > 1) {
    return refuse(kind, spec,
                  "in_flight " + std::to_string(spec.in_flight) + ": wrk does not pipeline");
  }
  return {};
}

Expected<void> check_window(ToolKind kind, const WindowCommand& window) {
  const int64_t unit = kind == ToolKind::kH2load ? kMillisecond : kSecond;
  if (window.duration_ns % unit != 0) {
    return Error{"window " + std::to_string(window.index) + ": the " + name_of(kind) +
                 " adapter cannot run a window of " + std::to_string(window.duration_ns) + " ns (" +
                 (kind == ToolKind::kH2load ? "h2load -D takes whole milliseconds"
                                            : "wrk -d takes whole seconds") +
                 ")"};
  }
  return {};
}

uint32_t tool_threads(const WorkloadSpec& spec) {
  return std::max<uint32_t>(1, std::min(spec.threads, spec.connections));
}

std::vector<std::string> tool_argv(const Tool& tool, const WorkloadSpec& spec, int64_t duration_ns,
                                   const std::string& wrk_script) {
  const bool h2load = tool.kind == ToolKind::kH2load;
  std::vector<std::string> argv{tool.path};
  auto add = [&](std::initializer_list<std::string> args) {
    argv.insert(argv.end(), args.begin(), args.end());
  };
  add({"-c", std::to_string(spec.connections), "-t", std::to_string(tool_threads(spec))});
  if (h2load && spec.is_http2()) {
    // h2c with prior knowledge for http://, h2 by ALPN for https:// (h2load's defaults).
    const std::string bits = std::to_string(window_bits(spec.http2.initial_window));
    add({"-m", std::to_string(spec.http2.streams), "-w", bits, "-W", bits, "-f",
         std::to_string(spec.http2.max_frame_size), "-D",
         std::to_string(duration_ns / kMillisecond) + "ms"});
  } else if (h2load) {
    add({"--h1", "-m", std::to_string(spec.in_flight), "-D",
         std::to_string(duration_ns / kMillisecond) + "ms"});
  } else {
    add({"-d", std::to_string(duration_ns / kSecond) + "s", "--latency", "-s", wrk_script});
  }
  // h2load sends its own Host (from the URL) and adds -H "Host" as a second one; it takes a
  // replacement only as the :authority pseudo-header. wrk replaces "Host" (capitalised).
  auto host_header = [&](const std::string& value) {
    return h2load ? ":authority: " + value : "Host: " + value;
  };
  std::string host = spec.http.host;
  for (const auto& [name, value] : spec.http.headers) {
    if (is_host(name)) host = value;
  }
  if (!host.empty()) add({"-H", host_header(host)});
  for (const auto& [name, value] : spec.http.headers) {
    if (!is_host(name)) add({"-H", name + ": " + value});
  }
  if (h2load && spec.tls.enabled) {
    const TlsSpec& tls = spec.tls;
    if (!tls.ciphers.empty()) argv.push_back("--ciphers=" + tls.ciphers);
    if (!tls.alpn.empty()) {
      std::string list;
      for (const std::string& name : tls.alpn) list += (list.empty() ? "" : ",") + name;
      argv.push_back("--npn-list=" + list);
    }
    // The URI's host is the SNI h2load sends; --connect-to keeps the address connected to.
    if (!tls.sni.empty()) {
      argv.push_back("--connect-to=" + spec.address);
      const size_t colon = spec.address.rfind(':');
      argv.push_back("https://" + tls.sni + spec.address.substr(colon) + spec.http.target);
      return argv;
    }
  }
  argv.push_back((spec.tls.enabled ? "https://" : "http://") + spec.address + spec.http.target);
  return argv;
}

}  // namespace benchgate::worker::adapters
