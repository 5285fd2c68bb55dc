#include "orchestrator/engine/load_origin.h"

#include <algorithm>

namespace benchgate::engine {
namespace {

bool is_loopback_host(const std::string& host) {
  if (host == "localhost" || host == "::1") return true;
  // 127.0.0.0/8 written as a dotted quad.
  if (!host.starts_with("127.")) return false;
  return std::all_of(host.begin(), host.end(),
                     [](char c) { return c == '.' || (c >= '0' && c <= '9'); });
}

}  // namespace

std::string host_of(const std::string& address) {
  if (address.starts_with("[")) {
    const auto close = address.find(']');
    if (close != std::string::npos) return address.substr(1, close - 1);
  }
  const auto colon = address.rfind(':');
  // Exactly one colon: HOST:PORT. More: a bare IPv6 address.
  if (colon != std::string::npos && address.find(':') == colon) return address.substr(0, colon);
  return address;
}

std::string worker_host(const std::string& address) {
  if (address.empty() || is_loopback_host(host_of(address))) return "local";
  return address;
}

std::string load_from(const std::vector<std::string>& worker_addresses) {
  std::vector<std::string> hosts;
  for (const auto& address : worker_addresses) {
    const std::string where = worker_host(address);
    const std::string host = where == "local" ? where : host_of(where);
    if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
  }
  if (hosts.empty()) return "local";
  std::string out;
  for (const auto& host : hosts) out += (out.empty() ? "" : ",") + host;
  return out;
}

std::string merge_load_from(const std::string& so_far, const std::string& more) {
  auto hosts_of = [](const std::string& list) {
    std::vector<std::string> hosts;
    size_t from = 0;
    while (from < list.size()) {
      const size_t comma = std::min(list.find(',', from), list.size());
      hosts.push_back(list.substr(from, comma - from));
      from = comma + 1;
    }
    return hosts;
  };
  std::vector<std::string> hosts = hosts_of(so_far);
  std::string out = so_far;
  for (const std::string& host : hosts_of(more)) {
    if (std::find(hosts.begin(), hosts.end(), host) != hosts.end()) continue;
    hosts.push_back(host);
    out += (out.empty() ? "" : ",") + host;
  }
  return out;
}

}  // namespace benchgate::engine
