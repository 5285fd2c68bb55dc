#include "worker/adapters/tool_args.h"

#include <algorithm>
#include <cctype>

#include "common/net/host_port.h"
#include "common/workload/adapter_limits.h"

namespace benchgate::worker::adapters {
namespace {

adapter_limits::Tool tool_of(ToolKind kind) {
  return kind == ToolKind::kH2load ? adapter_limits::Tool::kH2load : adapter_limits::Tool::kWrk;
}

bool is_host(const std::string& name) {
  return name.size() == 4 && std::tolower(static_cast<unsigned char>(name[0])) == 'h' &&
         std::tolower(static_cast<unsigned char>(name[1])) == 'o' &&
         std::tolower(static_cast<unsigned char>(name[2])) == 's' &&
         std::tolower(static_cast<unsigned char>(name[3])) == 't';
}

}  // namespace

Expected<void> check_workload(ToolKind kind, const WorkloadSpec& spec) {
  // The limits the scenario loader checks too (common/workload/adapter_limits.h).
  adapter_limits::Workload w;
  w.protocol = spec.protocol;
  w.new_connection_per_request = spec.new_connection_per_request;
  w.tls = spec.tls.enabled;
  w.tls_insecure = spec.tls.insecure;
  w.tls_version = spec.tls.version;
  w.tls_resumption = spec.tls.resumption;
  w.http2_initial_window = spec.http2.initial_window;
  w.open_loop = spec.open_loop();
  w.method = spec.http.method;
  w.request_body_bytes = spec.http.request_body_bytes;
  w.expect_echo = spec.http.expect_echo;
  w.expect_status = spec.http.expect_status;
  w.target = spec.http.target;
  w.in_flight = spec.in_flight;
  if (auto refused = adapter_limits::refusal(tool_of(kind), w)) {
    return Error{"workload '" + spec.name + "': the " + adapter_limits::name_of(tool_of(kind)) +
                 " adapter cannot run " + refused->what};
  }
  return {};
}

Expected<void> check_window(ToolKind kind, const WindowCommand& window) {
  if (auto why = adapter_limits::window_refusal(tool_of(kind), window.duration_ns)) {
    return Error{(window.measured ? "window " + std::to_string(window.index) + " (measured)"
                                  : std::string("the warm-up window")) +
                 ": the " + adapter_limits::name_of(tool_of(kind)) +
                 " adapter cannot run a window of " +
                 adapter_limits::exact_duration_text(window.duration_ns) + " (" + *why + ")"};
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
    const std::string bits = std::to_string(adapter_limits::window_bits(spec.http2.initial_window));
    add({"-m", std::to_string(spec.http2.streams), "-w", bits, "-W", bits, "-f",
         std::to_string(spec.http2.max_frame_size), "-D",
         adapter_limits::window_argument(tool_of(tool.kind), duration_ns)});
  } else if (h2load) {
    add({"--h1", "-m", std::to_string(spec.in_flight), "-D",
         adapter_limits::window_argument(tool_of(tool.kind), duration_ns)});
  } else {
    add({"-d", adapter_limits::window_argument(tool_of(tool.kind), duration_ns), "--latency", "-s",
         wrk_script});
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
      // HOST:PORT as the worker checked it (common/net/host_port.h): the SNI name, that port.
      const net::HostPortSplit split = net::split_host_port(spec.address, net::kDialMinPort);
      argv.push_back("https://" + net::join_host_port(tls.sni, split.port) + spec.http.target);
      return argv;
    }
  }
  argv.push_back((spec.tls.enabled ? "https://" : "http://") + spec.address + spec.http.target);
  return argv;
}

}  // namespace benchgate::worker::adapters
