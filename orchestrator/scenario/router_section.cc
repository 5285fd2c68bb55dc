// [router]: the system under test, bundled, started from a command, or already running.
#include <arpa/inet.h>

#include <filesystem>
#include <limits>
#include <set>
#include <tuple>

#include "common/net/host_port.h"
#include "common/router/router_limits.h"
#include "common/util/shown_text.h"
#include "orchestrator/scenario/dial_address.h"
#include "orchestrator/scenario/http_url.h"
#include "orchestrator/scenario/interpolation.h"
#include "orchestrator/scenario/sections.h"

namespace benchgate::scenario {
namespace {

// The workers and the readiness probe connect to a router over TCP: HOST:PORT only.
constexpr DialForms kTcpOnly{};

bool is_host_port(std::string_view s) {
  return static_cast<bool>(check_dial_address("", s, kTcpOnly));
}

// The readiness probe connects over IPv4 (orchestrator/sut/external_system.cc): its host must
// be an IPv4 address or localhost. Workers resolve the address themselves, so only the host the
// probe uses is held to this.
bool is_probe_host(std::string_view host_port) {
  const net::HostPortSplit split = net::split_host_port(host_port, net::kDialMinPort);
  in_addr addr{};
  return split.ok() && !split.ipv6 &&
         (split.host == "localhost" || ::inet_pton(AF_INET, split.host.c_str(), &addr) == 1);
}

std::string_view impl_name(RouterImpl impl) {
  switch (impl) {
    case RouterImpl::kBuiltin:
      return "builtin";
    case RouterImpl::kCommand:
      return "command";
    case RouterImpl::kExternal:
      return "external";
  }
  return "builtin";
}

// [router] tls, tls_cert, tls_key (builtin only; the caller checked).
void read_router_tls(TableReader& r, const std::string& section, RouterConfig& router) {
  Diagnostics& diag = r.diagnostics();
  if (auto v = r.boolean("tls")) router.tls = *v;
  for (const char* key : {"tls_cert", "tls_key"}) {
    if (!r.has(key)) continue;
    if (r.interpolator().submitted()) {
      // Reading it (or saying whether it exists) would read the service's machine for a client.
      diag.error(r.key_location(key),
                 "key '" + std::string(key) +
                     "' is not allowed in a scenario submitted to a service: it would read a "
                     "file of the service's machine; tls = true makes a certificate for the run");
      continue;
    }
    auto v = r.string(key);
    if (!v) continue;
    if (!router.tls) {
      diag.error(r.key_location(key),
                 "key '" + std::string(key) + "' needs tls = true in " + section);
    }
    const std::string resolved = path_beside_scenario(r.table_location().file, *v);
    std::error_code ec;
    if (v->empty() || !std::filesystem::is_regular_file(resolved, ec)) {
      diag.error(r.value_location(key),
                 "key '" + std::string(key) + "': no such file '" + shown_text(*v) + "'" +
                     (resolved != *v ? " (read as '" + shown_text(resolved) + "')" : ""));
    }
    (std::string_view(key) == "tls_cert" ? router.tls_cert : router.tls_key) = resolved;
  }
  if (!r.interpolator().submitted() && r.has("tls_cert") != r.has("tls_key")) {
    const char* given = r.has("tls_cert") ? "tls_cert" : "tls_key";
    const char* missing = r.has("tls_cert") ? "tls_key" : "tls_cert";
    diag.error(r.key_location(given), "key '" + std::string(given) + "' needs key '" + missing +
                                          "' in " + section +
                                          " (the certificate and its private key)");
  }
}

}  // namespace

// Each place to change is reported once: a [defaults] tls = false at its key, however many
// workloads take it; a workload's own at its key (or its table when it sets none), once for all
// the workloads a sweep expands it into and all the compared routers that need TLS.
void check_router_tls(const Scenario& scenario, Diagnostics& diag) {
  std::set<std::tuple<std::string, uint32_t, uint32_t>> reported;
  auto check = [&](const RouterConfig& router, const std::string& section) {
    if (router.impl != RouterImpl::kBuiltin || !router.tls) return;
    const std::string why =
        section + " tls = true makes every port of the bundled router speak TLS";
    std::set<std::string> from_defaults;  // the workloads as written (a sweep is one)
    Location defaults_where;
    for (const Workload& w : scenario.workloads) {
      if (w.tls.enabled || w.tls_refused) continue;
      const std::string& name = w.sweep_of.empty() ? w.name : w.sweep_of;
      if (w.tls_in_defaults) {
        from_defaults.insert(name);
        defaults_where = w.tls_where;
        continue;
      }
      const Location& where = w.tls_where.line != 0 ? w.tls_where : w.where;
      if (!reported.emplace(where.file, where.line, where.column).second) continue;
      diag.error(where, "workload '" + shown_text(name) + "' needs tls = true: " + why);
    }
    if (from_defaults.empty() ||
        !reported.emplace(defaults_where.file, defaults_where.line, defaults_where.column).second) {
      return;
    }
    diag.error(defaults_where,
               "key 'tls' in [defaults] must be true: " + why + ", and " +
                   std::to_string(from_defaults.size()) +
                   (from_defaults.size() == 1 ? " workload takes" : " workloads take") +
                   " tls from [defaults]");
  };
  if (scenario.compare_routers.empty()) {
    check(scenario.router, "[router]");
    return;
  }
  for (const std::string& name : scenario.compare_routers) {
    auto it = scenario.routers.find(name);
    if (it != scenario.routers.end()) check(it->second, "[routers." + shown_text(name) + "]");
  }
}

RouterConfig read_router(TableReader& top) {
  RouterConfig router;
  router.where = top.table_location();
  const toml::table* table = top.table("router");
  if (!table) return router;
  TableReader r(*table, "in [router]", top.diagnostics(), top.interpolator());
  r.check_keys({"impl", "threads", "command", "ready", "address", "rawsocket_address",
                "websocket_address", "metrics", "auth_config", "ws_fragment_bytes", "tls",
                "tls_cert", "tls_key", "startup_timeout"},
               kRouterNotYet);
  RouterConfig router_config = read_router_table(r, "[router]");
  read_router_auth_config(r, router_config, router_config.impl == RouterImpl::kBuiltin);
  return router_config;
}

RouterConfig read_router_table(TableReader& r, const std::string& section) {
  RouterConfig router;
  router.where = r.table_location();
  Diagnostics& diag = r.diagnostics();

  bool impl_known = true;
  if (r.has("impl")) {
    auto impl = r.choice("impl", {"builtin", "command", "external"});
    impl_known = impl.has_value();
    if (impl == "command") router.impl = RouterImpl::kCommand;
    if (impl == "external") router.impl = RouterImpl::kExternal;
  }
  const std::string impl = std::string(impl_name(router.impl));
  // A key that the chosen impl would ignore is an error: silently ignoring it hides a mistake.
  auto only_for = [&](std::string_view key, bool applies, std::string_view which) {
    if (!impl_known || applies || !r.has(key)) return applies;
    diag.error(r.key_location(key), "key '" + std::string(key) + "' in " + section +
                                        " applies only to " + std::string(which) +
                                        ", not impl = \"" + impl + "\"");
    return false;
  };
  const bool builtin = router.impl == RouterImpl::kBuiltin;
  const bool command = router.impl == RouterImpl::kCommand;

  if (only_for("threads", builtin, "impl = \"builtin\"")) {
    // Any integer is read, so that a count past 32 bits is refused with the router's limit too.
    if (auto v =
            r.integer("threads", router_limits::kMinThreads, std::numeric_limits<int64_t>::max())) {
      // The bundled router refuses more at its start (--threads): refused here instead.
      if (*v <= router_limits::kMaxThreads) {
        router.threads = static_cast<uint32_t>(*v);
      } else {
        diag.error(r.value_location("threads"),
                   "key 'threads' must be at most " + std::to_string(router_limits::kMaxThreads) +
                       " (the bundled router's limit of serving threads, as for its --threads), "
                       "got " +
                       std::to_string(*v));
      }
    }
  }
  if (only_for("ws_fragment_bytes", builtin, "impl = \"builtin\"")) {
    if (auto v = r.size_bytes("ws_fragment_bytes")) {
      router.ws_fragment_bytes = *v;
      // The bundled router's bounds for its --ws-fragment-bytes, as the loader passes it on
      // (common/router/router_limits.h).
      using router_limits::kMaxWsFragmentBytes;
      using router_limits::kMinWsFragmentBytes;
      if (*v != 0 && (*v < kMinWsFragmentBytes || *v > kMaxWsFragmentBytes)) {
        diag.error(r.value_location("ws_fragment_bytes"),
                   "key 'ws_fragment_bytes' must be 0 (off) or from " +
                       std::to_string(kMinWsFragmentBytes) + " bytes to " +
                       std::to_string(kMaxWsFragmentBytes >> 20) + "MiB, got " +
                       r.size_text("ws_fragment_bytes", *v));
      }
    }
  }
  const bool tls_keys = r.has("tls") || r.has("tls_cert") || r.has("tls_key");
  bool tls_applies = only_for("tls", builtin,
                              "impl = \"builtin\" (a command or external router serves TLS as "
                              "it is configured to)");
  tls_applies = only_for("tls_cert", builtin, "impl = \"builtin\"") && tls_applies;
  tls_applies = only_for("tls_key", builtin, "impl = \"builtin\"") && tls_applies;
  if (tls_applies && tls_keys) read_router_tls(r, section, router);
  if (only_for("command", command, "impl = \"command\"")) {
    if (auto v = r.string_array("command")) {
      if (v->empty()) {
        diag.error(r.value_location("command"), "key 'command' must name a program to run");
      }
      router.command = std::move(*v);
    }
  }
  // A misspelt key ('comand', 'adress') is reported where it is written, once.
  if (impl_known && command && !r.has("command") && !r.misspelt("command")) {
    diag.error(r.table_location(), "impl = \"command\" needs key 'command' in " + section);
  }
  if (only_for("address", !builtin, "impl = \"command\" or \"external\"")) {
    if (auto v = r.string("address")) {
      if (auto checked = check_dial_address("key 'address' in " + section + ":", *v, kTcpOnly);
          !checked) {
        diag.error(r.value_location("address"), checked.message());
      }
      router.address = std::move(*v);
    }
  }
  if (impl_known && !builtin && !r.has("address") && !r.misspelt("address")) {
    diag.error(r.table_location(), "impl = \"" + impl + "\" needs key 'address' in " + section);
  }
  // Where a WAMP transport is served apart from `address` (the bundled router's --rawsocket and
  // --websocket ports): without them every WAMP workload connects to `address`.
  for (const std::string key : {"rawsocket_address", "websocket_address"}) {
    if (!only_for(key, !builtin,
                  "impl = \"command\" or \"external\" (the bundled router announces its own "
                  "ports)")) {
      continue;
    }
    auto v = r.string(key);
    if (!v) continue;
    if (auto checked = check_dial_address("key '" + key + "' in " + section + ":", *v, kTcpOnly);
        !checked) {
      diag.error(r.value_location(key), checked.message());
    }
    (key == "rawsocket_address" ? router.rawsocket_address : router.websocket_address) =
        std::move(*v);
  }
  if (only_for("ready", !builtin, "impl = \"command\" or \"external\"")) {
    if (auto v = r.string("ready")) {
      auto checked =
          v->starts_with("tcp://")
              ? check_dial_address("key 'ready' in " + section + ": the address after tcp://",
                                   std::string_view(*v).substr(6), kTcpOnly)
              : Expected<void>(Error{"key 'ready' must be tcp://HOST:PORT such as "
                                     "\"tcp://127.0.0.1:18080\", got \"" +
                                     shown_text(*v) + "\""});
      if (!checked) {
        diag.error(r.value_location("ready"), checked.message());
      } else if (!is_probe_host(std::string_view(*v).substr(6))) {
        diag.error(r.value_location("ready"),
                   "key 'ready' must name an IPv4 address or localhost (the probe connects over "
                   "IPv4), got \"" +
                       shown_text(*v) + "\"");
      }
      router.ready = std::move(*v);
    }
  }
  // Without an explicit probe, the router is ready when its address, and each transport
  // address given, accept connections (orchestrator/sut/external_system.cc).
  if (!builtin && router.ready.empty() && !router.address.empty()) {
    router.ready = "tcp://" + router.address;
    for (const std::string key : {"address", "rawsocket_address", "websocket_address"}) {
      const std::string& value = key == "address"             ? router.address
                                 : key == "rawsocket_address" ? router.rawsocket_address
                                                              : router.websocket_address;
      if (is_host_port(value) && !is_probe_host(value)) {
        diag.error(r.value_location(key),
                   "key '" + key +
                       "' must name an IPv4 address or localhost, as the readiness probe "
                       "connects to it over IPv4 (or give key 'ready' = \"tcp://IPV4:PORT\"), "
                       "got \"" +
                       shown_text(value) + "\"");
      }
    }
  }
  if (auto v = r.duration_ns("startup_timeout", false)) router.startup_timeout_ns = *v;
  for (const char* key : {"command", "address", "rawsocket_address", "websocket_address", "ready",
                          "metrics", "requires"}) {
    if (r.has(key)) router.key_where[key] = r.value_location(key);
  }
  // The bundled router's counters come through its control endpoint: a scrape would only
  // read them twice.
  if (only_for("metrics", !builtin, "impl = \"command\" or \"external\"")) {
    if (auto v = r.string("metrics")) {
      if (auto url = parse_http_url(*v); !url) {
        diag.error(r.value_location("metrics"),
                   "key 'metrics' must be an http:// URL such as "
                   "\"http://127.0.0.1:9113/metrics\", got \"" +
                       shown_text(*v) + "\": " + url.error().message);
      }
      router.metrics = std::move(*v);
    }
  }
  return router;
}

}  // namespace benchgate::scenario
