// The TLS keys of an HTTP workload and the HTTP/2 keys of a `protocol = "http2"` one
// (docs/SCENARIOS.md, "TLS and HTTP/2"). The worker applies them; what is refused here is what no
// worker could run as written, each at the key to change.
#include <algorithm>

#include "common/util/shown_text.h"
#include "common/workload/workload_limits.h"
#include "orchestrator/scenario/interpolation.h"
#include "orchestrator/scenario/named_file.h"
#include "orchestrator/scenario/sections.h"

namespace benchgate::scenario {
namespace {

// Keys that mean something only with tls = true.
const std::vector<std::string_view> kTlsDetailKeys = {
    "tls_version", "ciphers", "sni", "ca_file", "insecure", "alpn", "tls_resumption"};

const std::vector<std::string_view> kHttp2Keys = {"streams", "initial_window", "max_frame_size"};

// RFC 9113 6.5.2: SETTINGS_INITIAL_WINDOW_SIZE at most 2^31 - 1, SETTINGS_MAX_FRAME_SIZE
// between 2^14 and 2^24 - 1.
constexpr int64_t kMaxWindow = (int64_t{1} << 31) - 1;
constexpr int64_t kMinFrame = 1 << 14;
constexpr int64_t kMaxFrame = (int64_t{1} << 24) - 1;
// h2load's -m is unbounded; the bundled worker preallocates per stream, as per in_flight slot.
constexpr uint32_t kMaxStreams = workload_limits::kMaxInFlight;

bool has_space_or_control(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) return true;
  }
  return false;
}

// The ALPN protocol a workload must offer, as the worker speaks it: `alpn` names the protocols
// offered, and a list without this one leaves a server that honours ALPN only protocols the
// workload does not speak, which fails at connect (the worker fails an HTTP connection whose
// server selected another; the bundled router ends a handshake with no protocol in common).
// Refused at the key instead.
struct AlpnRule {
  std::string_view protocol;  // the ALPN name the list must hold
  std::string_view speaker;   // who speaks it, for the message
  std::string_view instead;   // what to change to speak another
};

std::optional<AlpnRule> alpn_rule(const Workload& w) {
  switch (w.protocol) {
    case Protocol::kHttp1:
      return AlpnRule{"http/1.1", "an http1 workload speaks HTTP/1.1 only",
                      "protocol = \"http2\" speaks h2"};
    case Protocol::kHttp2:
      return AlpnRule{"h2", "an http2 workload speaks h2 only",
                      "protocol = \"http1\" speaks HTTP/1.1"};
    default:
      // wss opens with an HTTP/1.1 Upgrade; RawSocket's own handshake needs no ALPN name.
      if (w.wamp.transport != "websocket") return std::nullopt;
      return AlpnRule{"http/1.1",
                      "a WAMP workload over transport = \"websocket\" opens it with an HTTP/1.1 "
                      "Upgrade (wss)",
                      "transport = \"rawsocket\" needs no ALPN protocol"};
  }
}

void read_tls_details(TableReader& r, const Workload& w, TlsSettings& tls) {
  Diagnostics& diag = r.diagnostics();
  if (!tls.enabled) {
    // A refused `tls` was reported: whether it meant TLS is unknown.
    for (std::string_view key : kTlsDetailKeys) {
      if (r.has(key) && !w.tls_refused) {
        diag.error(r.key_location(key),
                   "key '" + std::string(key) +
                       "' needs tls = true in the same workload or in [defaults]");
      }
    }
    return;
  }
  if (r.has("tls_version")) {
    const toml::node* n = r.node("tls_version");
    if (n->is_string() && n->value<std::string>() == "1.1") {
      diag.error(r.value_location("tls_version"),
                 "key 'tls_version' must be \"1.2\" or \"1.3\", got \"1.1\": TLS 1.1 is "
                 "deprecated (RFC 8996) and not offered");
    } else if (auto v = r.choice("tls_version", {"1.2", "1.3"})) {
      tls.version = *v;
    }
  }
  if (auto v = r.string("ciphers")) {
    if (v->empty() || has_space_or_control(*v)) {
      diag.error(r.value_location("ciphers"),
                 "key 'ciphers' must be an OpenSSL cipher list such as "
                 "\"ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305\" (TLS 1.2) or "
                 "\"TLS_AES_128_GCM_SHA256\" (TLS 1.3), without spaces");
    }
    tls.ciphers = std::move(*v);
  }
  if (auto v = r.string("sni")) {
    if (v->empty() || has_space_or_control(*v)) {
      diag.error(
          r.value_location("sni"),
          "key 'sni' must be a host name such as \"localhost\", got \"" + shown_text(*v) + "\"");
    }
    tls.sni = std::move(*v);
  }
  if (auto v = r.boolean("insecure")) tls.insecure = *v;
  if (auto v = r.string("ca_file"); v && r.interpolator().submitted()) {
    // Reading it (or saying whether it exists) would read the service's machine for a client.
    diag.error(r.key_location("ca_file"),
               "key 'ca_file' is not allowed in a scenario submitted to a service: it would read "
               "a file of the service's machine; verification uses the system's CAs without it");
  } else if (v) {
    if (tls.insecure) {
      diag.error(r.key_location("ca_file"),
                 "key 'ca_file' and insecure = true contradict each other: insecure turns "
                 "certificate verification off, ca_file is what it verifies against");
    }
    if (auto text = read_named_file(r, "ca_file", *v, tls.ca_file)) {
      tls.ca_pem = std::move(*text);
      if (tls.ca_pem.find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
        diag.error(r.value_location("ca_file"),
                   "key 'ca_file': '" + shown_text(*v) +
                       "' holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
      }
    }
  }
  // Each reconnect offers the session its connection last received (worker/http/tls_client.h).
  if (auto v = r.boolean("tls_resumption")) tls.resumption = *v;
  if (auto v = r.string_array("alpn")) {
    if (v->empty()) {
      diag.error(r.value_location("alpn"),
                 "key 'alpn' must name at least one protocol, such as [\"h2\"]");
    }
    for (const std::string& name : *v) {
      if (name.empty() || name.size() > 255) {
        diag.error(
            r.value_location("alpn"),
            "key 'alpn': a protocol name is 1 to 255 bytes, got \"" + shown_text(name) + "\"");
      }
    }
    if (auto rule = alpn_rule(w);
        rule && !v->empty() && std::find(v->begin(), v->end(), rule->protocol) == v->end()) {
      diag.error(r.value_location("alpn"),
                 "key 'alpn': " + std::string(rule->speaker) + ", so its alpn must offer \"" +
                     std::string(rule->protocol) + "\" (" + std::string(rule->instead) + ")");
    }
    tls.alpn = std::move(*v);
  }
}

void read_http2(TableReader& r, Workload& w) {
  Diagnostics& diag = r.diagnostics();
  if (w.protocol != Protocol::kHttp2) {
    for (std::string_view key : kHttp2Keys) {
      if (r.has(key)) {
        diag.error(r.key_location(key),
                   "key '" + std::string(key) + "' applies to protocol http2 only" +
                       (key == "streams" ? " (HTTP/1.1 pipelines with in_flight)" : ""));
      }
    }
    return;
  }
  if (r.has("in_flight")) {
    diag.error(r.key_location("in_flight"),
               "key 'in_flight' is HTTP/1.1's pipelining depth; protocol http2 runs 'streams' "
               "concurrent streams per connection");
  }
  if (auto v = r.count("streams")) {
    if (*v > kMaxStreams) {
      diag.error(r.value_location("streams"), "key 'streams' must be at most " +
                                                  std::to_string(kMaxStreams) + ", got " +
                                                  std::to_string(*v));
    }
    w.http2.streams = *v;
  }
  if (auto v = r.integer("initial_window", 1, kMaxWindow)) {
    w.http2.initial_window = static_cast<uint32_t>(*v);
  }
  if (auto v = r.integer("max_frame_size", kMinFrame, kMaxFrame)) {
    w.http2.max_frame_size = static_cast<uint32_t>(*v);
  }
}

}  // namespace

const std::vector<std::string_view>& tls_and_http2_keys() {
  static const std::vector<std::string_view> keys = [] {
    std::vector<std::string_view> k = {"tls"};
    k.insert(k.end(), kTlsDetailKeys.begin(), kTlsDetailKeys.end());
    k.insert(k.end(), kHttp2Keys.begin(), kHttp2Keys.end());
    return k;
  }();
  return keys;
}

// Every protocol takes TLS: https and h2 for HTTP, wss and RawSocket over TLS for WAMP. `w`
// holds [defaults] already, whose `tls` the workload's own overrides.
void read_tls_and_http2(TableReader& r, Workload& w) {
  if (r.has("tls")) {
    const std::optional<bool> v = r.boolean("tls");
    if (v) w.tls.enabled = *v;
    w.tls_where = r.key_location("tls");
    w.tls_in_defaults = false;
    w.tls_refused = !v;
  }
  read_tls_details(r, w, w.tls);
  read_http2(r, w);
}

}  // namespace benchgate::scenario
