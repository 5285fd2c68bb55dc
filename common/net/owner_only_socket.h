// A Unix socket a server creates is its owner's alone (srwx------). The router's control
// endpoint, `orchestrator serve` and the worker's service take no password on a unix:PATH: the
// file's mode is what keeps other local users out, and gRPC creates the socket with the
// process's umask (srwxr-xr-x under the usual 022, which any user may connect to).
#pragma once

#include <sys/types.h>

#include <string>

namespace benchgate::net {

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
