// See router_port_clash.h.
#include "orchestrator/app/router_port_clash.h"

#include "common/net/bind_trial.h"
#include "common/net/host_port.h"
#include "common/util/shown_text.h"
#include "orchestrator/scenario/http_url.h"

namespace benchgate::app {
namespace {

struct RouterListener {
  const char* key;
  const std::string* value;  // as interpolated
  std::string host;
  uint16_t port = 0;
};

// What a command or external router listens on on this machine, by its keys; nothing for the
// bundled router. A command router runs here; an external one counts only where its host is
// known to be this machine's (net::names_this_machine): elsewhere (the workers connect there)
// it takes no port of this machine, whatever a wildcard --metrics-listen takes here.
std::vector<RouterListener> listeners_of(const scenario::RouterConfig& router) {
  std::vector<RouterListener> out;
  if (router.impl == scenario::RouterImpl::kBuiltin) return out;
  const bool external = router.impl == scenario::RouterImpl::kExternal;
  for (const auto& [key, value] :
       {std::pair<const char*, const std::string*>{"address", &router.address},
        {"rawsocket_address", &router.rawsocket_address},
        {"websocket_address", &router.websocket_address}}) {
    const net::HostPortSplit split = net::split_host_port(*value, net::kDialMinPort);
    if (split.ok() && (!external || net::names_this_machine(split.host))) {
      out.push_back({key, value, split.host, split.port});
    }
  }
  // The readiness probe's port (tcp://HOST:PORT; "" or another form passes), where it is not the
  // address above: a probe answered by the orchestrator's own listener would call the router
  // ready, whatever the router did.
  if (router.ready.starts_with("tcp://")) {
    const net::HostPortSplit split =
        net::split_host_port(router.ready.substr(6), net::kDialMinPort);
    if (split.ok() && (!external || net::names_this_machine(split.host))) {
      out.push_back({"ready", &router.ready, split.host, split.port});
    }
  }
  if (!router.metrics.empty()) {
    if (auto url = scenario::parse_http_url(router.metrics);
        url && net::names_this_machine(url->host)) {
      out.push_back({"metrics", &router.metrics, url->host, url->port});
    }
  }
  return out;
}

std::string location_text(const scenario::Location& where) {
  return where.file + ":" + std::to_string(where.line) + ":" + std::to_string(where.column);
}

}  // namespace

std::optional<RouterPortClash> router_port_clash(
    const scenario::Scenario& scenario,
    const std::vector<std::pair<const char*, std::string>>& listeners) {
  std::vector<std::pair<std::string, const scenario::RouterConfig*>> routers;
  if (scenario.compare_routers.empty()) {
    routers.push_back({"[router]", &scenario.router});
  } else {
    for (const std::string& name : scenario.compare_routers) {
      auto it = scenario.routers.find(name);
      if (it != scenario.routers.end()) {
        routers.push_back({"[routers." + shown_text(name) + "]", &it->second});
      }
    }
  }
  for (const auto& [flag, address] : listeners) {
    const net::HostPortSplit own = net::split_host_port(address, net::kListenMinPort);
    if (!own.ok() || own.port == 0) continue;
    for (const auto& [section, router] : routers) {
      for (const RouterListener& taken : listeners_of(*router)) {
        if (taken.port != own.port ||
            !net::hosts_share_an_address_without_lookup(own.host, taken.host)) {
          continue;
        }
        return RouterPortClash{flag,      address,      section,
                               taken.key, *taken.value, router->at(taken.key)};
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> router_on_an_orchestrator_port(
    const scenario::Scenario& scenario,
    const std::vector<std::pair<const char*, std::string>>& listeners) {
  const auto clash = router_port_clash(scenario, listeners);
  if (!clash) return std::nullopt;
  return clash->flag + " " + clash->address + ": the port of " + clash->section + " " + clash->key +
         " '" + shown_text(clash->value) + "' (" + location_text(clash->where) +
         "), where that router listens: the orchestrator and the router cannot both " +
         "listen there; give " + clash->flag + " another port, or the router one of its own";
}

}  // namespace benchgate::app
