// A check run where a name resolves as a test needs it to (a name on two lines of the hosts
// file, a name for a loopback address), with the machine's /etc/hosts left as it is: a child
// process enters a mount namespace of its own, makes every mount in it private (nothing it
// mounts reaches the machine's namespace), and bind-mounts a file holding the test's lines over
// /etc/hosts there. Root only: where a namespace cannot be made, the run says why and the test
// skips.
#pragma once

#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace benchgate::test_support {

struct PrivateHostsRun {
  std::string skipped;  // why no namespace could be made (not root, no mount namespaces)
  std::string failed;   // what `check` said was wrong; empty where it held
};

// Runs `check` in a child whose /etc/hosts reads `hosts`; `check` returns what was wrong, or
// "" where all held (gtest's assertions do not reach the parent from the child).
inline PrivateHostsRun run_with_hosts(const std::string& hosts,
                                      const std::function<std::string()>& check) {
  PrivateHostsRun run;
  std::string path = testing::TempDir() + "benchgate_hosts_XXXXXX";
  const int file = ::mkstemp(path.data());
  if (file < 0) {
    run.failed = "cannot make a hosts file: " + std::string(std::strerror(errno));
    return run;
  }
  const bool written =
      ::write(file, hosts.data(), hosts.size()) == static_cast<ssize_t>(hosts.size());
  ::close(file);
  int pipe_fds[2];
  if (!written || ::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    ::unlink(path.c_str());
    run.failed = "cannot write the hosts file or make a pipe";
    return run;
  }
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    const auto report = [&](char kind, const std::string& text) {
      const std::string message = kind + text;
      [[maybe_unused]] const ssize_t sent = ::write(pipe_fds[1], message.data(), message.size());
      ::_exit(0);
    };
    if (::unshare(CLONE_NEWNS) != 0)
      report('S', "unshare(CLONE_NEWNS): " + std::string(std::strerror(errno)));
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
      report('S',
             "cannot make the namespace's mounts private: " + std::string(std::strerror(errno)));
    }
    if (::mount(path.c_str(), "/etc/hosts", nullptr, MS_BIND, nullptr) != 0) {
      report('S', "cannot bind-mount a hosts file: " + std::string(std::strerror(errno)));
    }
    const std::string wrong = check();
    report(wrong.empty() ? 'P' : 'F', wrong);
  }
  ::close(pipe_fds[1]);
  std::string said;
  char buffer[4096];
  for (ssize_t n; child > 0 && (n = ::read(pipe_fds[0], buffer, sizeof buffer)) != 0;) {
    if (n > 0) said.append(buffer, static_cast<size_t>(n));
    if (n < 0 && errno != EINTR) break;
  }
  ::close(pipe_fds[0]);
  int status = 0;
  if (child > 0) ::waitpid(child, &status, 0);
  ::unlink(path.c_str());
  if (child < 0 || said.empty()) {
    run.failed = "the child said nothing (wait status " + std::to_string(status) + ")";
  } else if (said[0] == 'S') {
    run.skipped = said.substr(1);
  } else if (said[0] == 'F') {
    run.failed = said.substr(1);
  }
  return run;
}

// A name that resolves to two loopback addresses, for a check that a listener, or the check
// before it, takes every address a name resolves to.
struct TwoAddressName {
  std::string name;
  std::string addresses[2];  // numeric, no brackets, in the order of kTwoAddressNamesHosts
};

// The hosts file of those names (for run_with_hosts): "localhost" as most machines' /etc/hosts
// writes it, 127.0.0.1 and ::1 both, whatever this machine's says (one of them alone on some,
// CI's among them), and a name on two IPv4 loopback addresses, which needs no IPv6.
inline constexpr char kTwoAddressNamesHosts[] =
    "127.0.0.1 localhost\n::1 localhost\n127.0.0.1 two.test\n127.0.0.2 two.test\n";

// Whether a socket can listen on ::1 here (no IPv6 loopback on some machines).
inline bool ipv6_loopback_listens() {
  const int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in6 address{};
  address.sin6_family = AF_INET6;
  address.sin6_addr = in6addr_loopback;
  const bool bound = fd >= 0 &&
                     ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                     ::listen(fd, 1) == 0;
  if (fd >= 0) ::close(fd);
  return bound;
}

// The names of kTwoAddressNamesHosts a test can listen on here: two.test everywhere, localhost
// where ::1 can be listened on.
inline std::vector<TwoAddressName> two_address_names() {
  std::vector<TwoAddressName> names = {{"two.test", {"127.0.0.1", "127.0.0.2"}}};
  if (ipv6_loopback_listens()) names.push_back({"localhost", {"127.0.0.1", "::1"}});
  return names;
}

}  // namespace benchgate::test_support
