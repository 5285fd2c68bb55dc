// See token.h.
#include "common/security/token.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "common/net/host_port.h"
#include "common/util/regular_file.h"

namespace benchgate::security {
namespace {

std::string mode_text(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

}  // namespace

Expected<std::string> read_token_file(const std::string& path) {
  const std::string where = "token file '" + path + "'";
  // Symbolic links are followed: mounted secrets (Kubernetes, Docker) are links to the file,
  // and the target's owner and mode are what is checked.
  auto file = open_regular_file(path, where);
  if (!file) return file.error();
  const struct stat& st = file->status;
  // Owner only, or else read-only for the group when that group is this process's own: a
  // Kubernetes Secret volume's files belong to root with the pod's fsGroup as group, so a
  // non-root container can open the token only through the group bit (mode 0440, fsGroup = the
  // container's runAsGroup). Nobody outside the process's own group can read such a file, and
  // nobody but the owner can change it; any bit for others, group write or execute, or a
  // group-readable file of another group is refused.
  const mode_t group = st.st_mode & 070;
  const bool group_is_ours = st.st_gid == ::getegid();
  if ((st.st_mode & 007) != 0 || (group != 0 && (group != 040 || !group_is_ours))) {
    return Error{where + " is accessible by group or others (mode " + mode_text(st.st_mode) +
                 "); a token must be readable by its owner only (chmod 600 " + path +
                 "), or read-only for the group only when that group is this process's own "
                 "(0440 with the process's group, as a Kubernetes Secret with fsGroup gives)"};
  }
  // One line is all that is read; a token is short, and a huge file is a mistake.
  char buffer[4096];
  ssize_t got = 0;
  do {
    got = ::read(file->fd.get(), buffer, sizeof buffer);
  } while (got < 0 && errno == EINTR);
  if (got < 0) return Error{where + ": " + std::strerror(errno)};
  std::string_view text(buffer, static_cast<size_t>(got));
  text = text.substr(0, text.find('\n'));
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  if (text.empty()) return Error{where + " is empty: its first line must hold the token"};
  for (char c : text) {
    if (c < 0x20 || c > 0x7e) {
      return Error{where + ": the token may hold printable ASCII characters only"};
    }
  }
  return std::string(text);
}

Expected<std::string> random_token() {
  unsigned char bytes[32];
  size_t filled = 0;
  while (filled < sizeof bytes) {
    const ssize_t got = ::getrandom(bytes + filled, sizeof bytes - filled, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return Error{std::string("cannot make a random token: getrandom: ") + std::strerror(errno)};
    }
    filled += static_cast<size_t>(got);
  }
  static const char kHex[] = "0123456789abcdef";
  std::string token;
  token.reserve(2 * sizeof bytes);
  for (unsigned char b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 15];
  }
  return token;
}

Expected<void> write_token_file(const std::string& path, const std::string& token) {
  const std::string where = "token file '" + path + "'";
  // O_EXCL | O_NOFOLLOW: never write through a file or link someone else prepared.
  FileDescriptor file(
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (file.get() < 0) return Error{where + ": " + std::strerror(errno)};
  // The umask may have taken bits away (0400 would still do, 0000 would not): set it exactly.
  if (::fchmod(file.get(), 0600) != 0) return Error{where + ": " + std::strerror(errno)};
  const std::string line = token + "\n";
  size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(file.get(), line.data() + written, line.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{where + ": " + std::strerror(errno)};
    }
    written += static_cast<size_t>(n);
  }
  return {};
}

bool tokens_equal(std::string_view presented, std::string_view expected) {
  if (expected.empty()) return false;
  // Every byte of `presented` is compared with a byte of `expected` (cycled), and the length
  // difference is folded in: no early exit, no branch on the data.
  unsigned char diff = presented.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < presented.size(); ++i) {
    diff |= static_cast<unsigned char>(presented[i] ^ expected[i % expected.size()]);
  }
  return diff == 0;
}

std::string_view bearer_token(std::string_view authorization) {
  if (authorization.size() < kBearerPrefix.size()) return {};
  for (size_t i = 0; i < kBearerPrefix.size(); ++i) {
    const char a = authorization[i];
    const char b = kBearerPrefix[i];
    const char lower = (a >= 'A' && a <= 'Z') ? static_cast<char>(a - 'A' + 'a') : a;
    const char want = (b >= 'A' && b <= 'Z') ? static_cast<char>(b - 'A' + 'a') : b;
    if (lower != want) return {};
  }
  return authorization.substr(kBearerPrefix.size());
}

bool is_loopback_host(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host == "localhost") return true;
  const std::string text(host);
  in_addr v4{};
  if (::inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6{};
  if (::inet_pton(AF_INET6, text.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

std::string host_of(std::string_view address) {
  net::HostPortSplit split = net::split_host_port(address, net::kListenMinPort);
  return split.ok() ? std::move(split.host) : std::string();
}

}  // namespace benchgate::security
