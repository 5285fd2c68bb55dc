// Why a gRPC server could not listen on an address, in words a user can act on: gRPC's server
// builder reports only that no server was built. The router's control endpoint and the
// worker's service say it the same way.
#pragma once

#include <string>

namespace benchgate::net {

// Asked after gRPC failed to listen on `address` ("HOST:PORT" or "unix:PATH"): tries the same
// bind itself and names what stands in the way (the port in use, the address not this
// machine's, the socket's folder missing or not writable, a path too long, a file already
// there), or that the address is not one of the two forms.
std::string why_not_listening(const std::string& address);

}  // namespace benchgate::net
