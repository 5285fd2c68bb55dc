// Why a gRPC server could not listen on an address, in words a user can act on: gRPC's server
// builder reports only that no server was built. The router's control endpoint, the worker's
// service and `orchestrator serve`'s --listen say it the same way.
#pragma once

#include <optional>
#include <string>

namespace benchgate::net {

// Asked before gRPC listens on `address`: gRPC removes a Unix socket it finds at a unix:PATH and
// binds its own there, so a server still listening on it would lose its address without a word.
// When `address` is a unix:PATH whose socket accepts a connection (a live listener), why not to
// listen ("Unix socket PATH is in use"), as a port in use is named; nothing for a HOST:PORT, no
// file at the path, or a socket nobody listens on any more (a stopped server's, which gRPC
// replaces). The router's control endpoint, the worker's service and `orchestrator serve` ask.
// Where the connect attempt cannot tell, the socket counts as in use, since taking it over
// from a live owner is the harm this check exists to prevent: a connect refused with EPROTOTYPE
// (a datagram socket is bound there, which only a live socket makes the kernel say; "in use (a
// socket of another type is bound there)") or EACCES/EPERM (a socket another user made
// owner-only, or a folder on the way this user may not search: "may be in use: this user may
// not connect to it"). As root, which the tools usually run as, EACCES never comes.
//
// The check is a connect attempt, not a lock: it is not atomic with gRPC's unlink-and-bind that
// follows, so two servers started on the same path at the same instant can both find it free,
// and the later bind takes the socket from the earlier. It guards against a server already
// running, not against a race.
std::optional<std::string> unix_socket_in_use(const std::string& address);

// Asked after gRPC failed to listen on `address` ("HOST:PORT" or "unix:PATH"): tries the same
// bind itself and names what stands in the way (the port in use, the address not this
// machine's, a socket another server listens on, the socket's folder missing or not writable, a
// path too long, a file already there), or that the address is not one of the two forms.
std::string why_not_listening(const std::string& address);

}  // namespace benchgate::net
