// The orchestrator's own listeners (`run --metrics-listen`) against the ports the routers of a
// scenario listen on. The loader cannot see them (it has no flags); `run` knows both before
// anything listens.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "orchestrator/scenario/scenario.h"

namespace benchgate::app {

// The first of `listeners` (flag, HOST:PORT; "", port 0 or a value that is not HOST:PORT is
// passed over) whose port a router of `scenario` listens on: [router], or each [compare]
// variant, when it is a command or external router: its address, rawsocket_address and
// websocket_address (an external router's only where its host is known to be this machine's,
// net::names_this_machine: one elsewhere holds no port here), its readiness probe's port
// (`ready = "tcp://HOST:PORT"`, which the orchestrator's listener would answer), and its metrics
// endpoint when
// that is on this machine (whatever serves it holds the port). The orchestrator's listener and the
// router cannot both listen there: one of them would fail "address already in use", naming neither,
// or the workers and the scrape would reach the orchestrator's /metrics. The line names both and
// where the router's key is written; nothing when no port is shared. Hosts are compared as the
// loader compares [compare] variants' ports (net::hosts_share_an_address_without_lookup); the
// bundled router listens on ports it is given free, which no listener holds.
std::optional<std::string> router_on_an_orchestrator_port(
    const scenario::Scenario& scenario,
    const std::vector<std::pair<const char*, std::string>>& listeners);

// The same finding, in parts, for a caller that words it itself (`serve`'s admission of a
// client's scenario against the service's own listeners, serve/admission.h).
struct RouterPortClash {
  std::string flag;          // the listener's flag ("--metrics-listen")
  std::string address;       // its HOST:PORT, as given
  std::string section;       // "[router]", "[routers.NAME]" (the name escaped)
  std::string key;           // "address", "rawsocket_address", "websocket_address", "ready",
                             // "metrics"
  std::string value;         // the key's value, as interpolated
  scenario::Location where;  // where the key is written
};
std::optional<RouterPortClash> router_port_clash(
    const scenario::Scenario& scenario,
    const std::vector<std::pair<const char*, std::string>>& listeners);

}  // namespace benchgate::app
