// HOST:PORT split by one rule wherever benchgate reads an address: the orchestrator's dial
// addresses (`run --server`, `--workers-at`, [workers] at, [router] address), the worker's
// --listen and a workload's address, the router's listen flags. Each caller keeps its own
// words and its own extra forms (unix:PATH, dns:NAME:PORT); the split and the reason it
// refuses a value are the same everywhere.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace benchgate::net {

// Why a value is not HOST:PORT.
enum class HostPortProblem {
  kNone,
  kNoPort,            // no ':' at all ("127.0.0.1")
  kEmptyHost,         // ":7700"
  kForeignCharacter,  // a character no host name, IPv4 or IPv6 literal has ("a b", "x!", "a/b")
  kUnbracketedIpv6,   // a ':' in the host outside brackets ("::1:7700")
  kHalfBracketed,     // "[::1:7700", "::1]:7700", "[]:7700"
  kNotIpv6,           // brackets around what is not an IPv6 address ("[nope]:7700")
  kBadPort,           // empty, not digits only, or outside min_port..65535
};

struct HostPortSplit {
  std::string host;  // without brackets; an IPv6 zone ("fe80::1%eth0") is kept
  uint16_t port = 0;
  bool ipv6 = false;  // the host was a bracketed IPv6 address
  HostPortProblem problem = HostPortProblem::kNone;
  // "" when taken; else why not, a phrase to follow the caller's "'VALUE' is not ...: ", e.g.
  // "its port '0' is not a number from 1 to 65535".
  std::string reason;
  bool ok() const { return problem == HostPortProblem::kNone; }
};

// The lowest port a caller takes: 0 where the system picks one (listening), 1 to connect.
inline constexpr uint16_t kListenMinPort = 0;
inline constexpr uint16_t kDialMinPort = 1;

// HOST:PORT, split at the last ':'. HOST is a host name or an IPv4 address (letters, digits,
// '.', '-', '_') or an IPv6 address in brackets ("[::1]", "[fe80::1%eth0]"); PORT is decimal
// digits only, from min_port to 65535.
HostPortSplit split_host_port(std::string_view text, uint16_t min_port);

// HOST[:PORT], a URL's authority, where the port may be left out: `default_port` then ("h" and
// "[::1]" take it). Read as split_host_port reads HOST:PORT otherwise ("::1" is refused as an
// unbracketed IPv6 host, "h:" for its empty port); never kNoPort.
HostPortSplit split_host_optional_port(std::string_view text, uint16_t default_port,
                                       uint16_t min_port);

// HOST:PORT written back as split_host_port reads it: a host with a ':' (IPv6) in brackets.
// For an address a server listens on, named with the port it was given ("127.0.0.1:0" listening
// on 41234 is "127.0.0.1:41234").
std::string join_host_port(std::string_view host, uint16_t port);

}  // namespace benchgate::net
