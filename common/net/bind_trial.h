// Whether a server could listen on HOST:PORT, asked of the kernel by binding as the server
// would, and whether two listeners' hosts take one address. The bind trial has two readers,
// which each kept a getaddrinfo-and-bind loop of their own before: the orchestrator asks
// before an HTTP or gRPC server listens (orchestrator/app/listen_probe.h: free when every
// address binds, as the HTTP listener listens on every one: BindTrial::refusal), and a server
// asks after gRPC failed to listen (listen_failure.h: the first address that does not bind
// names why).
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <vector>

namespace benchgate::net {

// One address a TCP listener binds, as getaddrinfo gave it (a sockaddr_in or sockaddr_in6,
// the port in it).
struct ListenAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;
  int family() const { return storage.ss_family; }
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
};

// `addresses` in their order, each address once: a later one that is an earlier one (the port
// plays no part: a listener binds them all on one) is dropped. getaddrinfo gives one address
// twice where /etc/hosts has a name on two lines with it, and a listener that bound both
// failed on its own socket (address already in use) where the bind trial, binding each alone,
// called the port free. An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is the IPv4 one it maps,
// as a dual-stack socket binds it; a wildcard is not an address it covers (0.0.0.0 beside
// 127.0.0.1 keeps both, as resolved).
std::vector<ListenAddress> distinct_addresses(std::vector<ListenAddress> addresses);

struct ListenAddresses {
  int resolve_error = 0;  // getaddrinfo's (for gai_strerror) where the host did not resolve
  std::vector<ListenAddress> addresses;
};

// The addresses a TCP listener on `host` (without brackets: "::1") and `port` takes, as the
// bind trial and the HTTP listener (common/http_listener/http_listener.h) both read a name:
// getaddrinfo with AI_PASSIVE for SOCK_STREAM, in its order, each address once
// (distinct_addresses).
ListenAddresses resolve_listen_addresses(const std::string& host, uint16_t port);

struct BindTrial {
  // getaddrinfo's error (for gai_strerror) where `host` did not resolve; 0 otherwise.
  int resolve_error = 0;
  struct Attempt {
    bool socket_made = false;  // false: socket() failed (an address family this kernel lacks)
    int error = 0;             // socket()'s or bind()'s errno; 0 where the address bound
    bool bound() const { return error == 0; }
  };
  // One an address the host resolves to (resolve_listen_addresses), in getaddrinfo's order.
  std::vector<Attempt> attempts;
  // The errno that keeps a listener on every address from listening, as the HTTP listener
  // listens on a name's addresses (common/http_listener/http_listener.h): the first address
  // that does not bind, one not on this machine (address_not_here) passed over where another
  // binds; 0 when it would listen.
  int refusal() const;
};

// Whether `error` (socket()'s or bind()'s errno) says that an address is none of this
// machine's: EADDRNOTAVAIL (::1 where IPv6 is turned off) or EAFNOSUPPORT (a kernel without
// IPv6). A listener on a name's addresses passes over such an address when another listens.
bool address_not_here(int error);

// Binds a TCP socket on each address `host` (without brackets: "::1") and `port` resolve to as
// a listener resolves them (resolve_listen_addresses: each address once), with SO_REUSEADDR as
// gRPC, Asio and CivetWeb set it (a port held only by connections in TIME_WAIT is free), no
// SO_REUSEPORT (a socket listening there holds it) and, on an IPv6 socket, IPV6_V6ONLY off as gRPC
// and the HTTP listener set it (dual stack: [::] takes IPv4 too), and closes each at once: nothing
// is left bound.
BindTrial try_binding(const std::string& host, uint16_t port);

// Whether listeners on hosts `a` and `b` (as split_host_port gives them, no brackets), on one
// port, would both take an address, as Linux binds them with IPV6_V6ONLY off (its default, and
// what gRPC and the HTTP listener set): an address `a` resolves to is one `b` resolves to (as a
// listener resolves them: "localhost" is 127.0.0.1 and ::1, "0:0::1" is ::1, "::ffff:127.0.0.1"
// is 127.0.0.1), or one is a wildcard that takes the other's address: :: takes the port on every
// address of both families, 0.0.0.0 on every IPv4 address but on no IPv6 one (0.0.0.0:P and
// [::1]:P both listen). A host that does not resolve is compared as text.
bool hosts_share_an_address(const std::string& a, const std::string& b);

// hosts_share_an_address without a lookup, for a check of a file a client may have sent
// (orchestrator serve loads a submitted scenario before its policy check: it must not resolve
// names of the client's choosing): a numeric host (getaddrinfo with AI_NUMERICHOST, which asks
// no resolver) is compared by address as hosts_share_an_address compares it, "localhost" (any
// case) as 127.0.0.1 and ::1, and any other name only with the same name (in any case).
bool hosts_share_an_address_without_lookup(const std::string& a, const std::string& b);

// Whether `host` (no brackets) is known to be this machine's without a lookup: "localhost" (any
// case), or a numeric address that is a loopback one (127.0.0.0/8, ::1), a wildcard (0.0.0.0,
// ::), or one of this machine's interfaces has (getifaddrs). Any other name is not known to be.
bool names_this_machine(const std::string& host);

}  // namespace benchgate::net
