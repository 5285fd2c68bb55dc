#include "orchestrator/engine/load_origin.h"

#include <algorithm>

#include "common/net/host_port.h"
#include "common/security/token.h"

namespace benchgate::engine {

std::string host_of(const std::string& address) {
  // HOST:PORT as every benchgate address is read (common/net/host_port.h); a value that is not
  // one (a bare name or IPv6 address) is its own host.
  const net::HostPortSplit split = net::split_host_port(address, net::kListenMinPort);
  return split.ok() ? split.host : address;
}

std::string worker_host(const std::string& address) {
  // A unix:PATH worker is on this machine, as a spawned one is.
  if (address.empty() || address.starts_with("unix:")) return "local";
  if (security::is_loopback_host(host_of(address))) return "local";
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
