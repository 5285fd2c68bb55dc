// Loopback clients for the allocation tests made of system calls only (socket, connect, send,
// recv into fixed buffers): the test's own side of a connection never touches the heap, so
// the counting allocator sees only the component under test. Every read gives up after 5 s.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace benchgate::alloc_test {

// A blocking connection to 127.0.0.1:port, or -1.
inline int connect_loopback(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return -1;
  }
  const timeval timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

inline bool send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

inline bool recv_exactly(int fd, char* out, size_t size) {
  while (size > 0) {
    const ssize_t n = ::recv(fd, out, size, 0);
    if (n <= 0) return false;
    out += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Reads one HTTP/1.1 response framed by Content-Length (no pipelining: nothing follows it)
// into `buffer`; returns its status code, or -1 on a closed connection, a timeout or a
// response that does not fit.
inline int read_http_response(int fd, char* buffer, size_t capacity) {
  size_t have = 0;
  while (have < capacity) {
    const ssize_t n = ::recv(fd, buffer + have, capacity - have, 0);
    if (n <= 0) return -1;
    have += static_cast<size_t>(n);
    const std::string_view text(buffer, have);
    const size_t header_end = text.find("\r\n\r\n");
    if (header_end == std::string_view::npos) continue;
    size_t body = 0;
    const size_t length_at = text.substr(0, header_end).find("Content-Length: ");
    if (length_at != std::string_view::npos)
      body = std::strtoul(buffer + length_at + 16, nullptr, 10);
    const size_t total = header_end + 4 + body;
    while (have < total) {
      if (total > capacity) return -1;
      const ssize_t more = ::recv(fd, buffer + have, total - have, 0);
      if (more <= 0) return -1;
      have += static_cast<size_t>(more);
    }
    if (have != total || have < 12) return -1;
    return std::atoi(buffer + 9);
  }
  return -1;
}

}  // namespace benchgate::alloc_test
