// Naming why a listen failed (see listen_failure.h).
#include "common/net/listen_failure.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "common/net/bind_trial.h"
#include "common/net/host_port.h"

namespace benchgate::net {
namespace {

// The path of a "unix:" address: gRPC takes "unix:PATH" and "unix:///ABSOLUTE/PATH".
std::string socket_path(const std::string& address) {
  std::string path = address.substr(5);
  if (path.starts_with("//")) path.erase(0, 2);
  return path;
}

// What a connect attempt tells of the Unix socket at `path`: why not to take it over (a server
// accepts connections there: one is taken, or would be once the listener's backlog has room;
// a socket of another type is bound there; this user may not connect, so whether anyone
// listens cannot be told), or nothing (no socket, or one whose server is gone: it refuses).
std::optional<std::string> why_in_use(const std::string& path) {
  if (path.empty() || path.size() >= sizeof(sockaddr_un::sun_path)) return std::nullopt;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return std::nullopt;
  sockaddr_un peer{};
  peer.sun_family = AF_UNIX;
  std::memcpy(peer.sun_path, path.data(), path.size());
  const bool connected = ::connect(fd, reinterpret_cast<const sockaddr*>(&peer), sizeof peer) == 0;
  const int error = connected ? 0 : errno;
  ::close(fd);
  if (connected || error == EAGAIN) return "Unix socket " + path + " is in use";
  // A datagram (or other non-stream) socket bound at the path: a live one, since a socket
  // nobody holds any more refuses instead. gRPC would unlink it from under its owner.
  if (error == EPROTOTYPE) {
    return "Unix socket " + path + " is in use (a socket of another type is bound there)";
  }
  // Not this user's to connect to (the socket's permissions, or a folder's on the way): a
  // server may well listen there, and taking the path over would cut it off.
  if (error == EACCES || error == EPERM) {
    return "Unix socket " + path + " may be in use: this user may not connect to it (" +
           std::strerror(error) + ")";
  }
  return std::nullopt;
}

std::string unix_socket_failure(const std::string& address) {
  namespace fs = std::filesystem;
  const std::string path = socket_path(address);
  if (path.empty()) return "the Unix socket's path is empty";
  if (path.size() >= sizeof(sockaddr_un::sun_path)) {
    return "the Unix socket's path is " + std::to_string(path.size()) + " bytes long; at most " +
           std::to_string(sizeof(sockaddr_un::sun_path) - 1) + " fit";
  }
  std::error_code ec;
  // gRPC replaces a socket left at the path, not another kind of file.
  if (const auto type = fs::symlink_status(path, ec).type();
      !ec && type != fs::file_type::not_found && type != fs::file_type::socket) {
    return path + " already exists and is not a socket";
  }
  if (auto in_use = why_in_use(path)) return *in_use;
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  if (!fs::exists(folder, ec)) return "folder " + folder.string() + " does not exist";
  if (!fs::is_directory(folder, ec)) return folder.string() + " is not a folder";
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    return "cannot create a socket in folder " + folder.string() + ": " + std::strerror(errno);
  }
  return "gRPC could not bind the Unix socket " + path;
}

std::string tcp_failure(const std::string& address) {
  // HOST:PORT as every benchgate address is read (host_port.h), with that parser's reason.
  const HostPortSplit split = split_host_port(address, kListenMinPort);
  if (!split.ok()) return "not a valid HOST:PORT or unix:PATH: " + split.reason;
  const BindTrial trial = try_binding(split.host, split.port);
  if (trial.resolve_error != 0) {
    return "cannot resolve " + split.host + ": " + ::gai_strerror(trial.resolve_error);
  }
  // The first address that does not bind names why; one of a family this kernel lacks (no
  // socket) is passed over, as gRPC passes it over.
  for (const BindTrial::Attempt& attempt : trial.attempts) {
    if (!attempt.socket_made || attempt.bound()) continue;
    const std::string port_text = std::to_string(split.port);
    return attempt.error == EADDRINUSE      ? "port " + port_text + " is in use"
           : attempt.error == EADDRNOTAVAIL ? split.host + " is not an address of this machine"
                                            : std::string("bind: ") + std::strerror(attempt.error);
  }
  return "gRPC could not listen there";
}

}  // namespace

std::optional<std::string> unix_socket_in_use(const std::string& address) {
  if (!address.starts_with("unix:")) return std::nullopt;
  return why_in_use(socket_path(address));
}

std::string why_not_listening(const std::string& address) {
  if (address.starts_with("unix:")) return unix_socket_failure(address);
  return tcp_failure(address);
}

}  // namespace benchgate::net
