// A Unix socket a server creates is its owner's alone (srwx------). The router's control
// endpoint, `orchestrator serve` and the worker's service take no password on a unix:PATH: the
// file's mode is what keeps other local users out, and gRPC creates the socket with the
// process's umask (srwxr-xr-x under the usual 022, which any user may connect to).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace benchgate::net {

// Why a server may not listen on `address`: a "unix:" address with no PATH ("unix:", or
// "unix://" with nothing after) is bound by gRPC as an ABSTRACT socket (Linux's "@" names),
// which has no file, so no mode keeps other local users out and any of them may connect.
// "'unix:' names no PATH after unix:"; nothing for any other address (a HOST:PORT, or a
// unix:PATH with a PATH: gRPC takes "unix:@name" as a file named "@name", not an abstract
// name). The worker's --listen, the router's --control and `orchestrator serve`'s --listen
// refuse it on the command line (exit 2).
std::optional<std::string> unix_address_without_path(const std::string& address);

// Held around the gRPC server's BuildAndStart (where gRPC binds): for a "unix:" address the
// process's umask is 077 while it lives, and what it was before when it ends; any other address
// leaves the umask alone. The umask is the process's: a file another thread creates meanwhile
// is owner-only too (the servers start before their threads write files).
class OwnerOnlySocketUmask {
 public:
  explicit OwnerOnlySocketUmask(const std::string& address);
  ~OwnerOnlySocketUmask();
  OwnerOnlySocketUmask(const OwnerOnlySocketUmask&) = delete;
  OwnerOnlySocketUmask& operator=(const OwnerOnlySocketUmask&) = delete;

 private:
  bool unix_socket_;
  mode_t before_ = 0;
};

}  // namespace benchgate::net
