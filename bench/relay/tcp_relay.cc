// A TCP relay on loopback for bench/relay_ceiling.sh: every connection accepted on
// 127.0.0.1:LISTEN is joined to a new connection to 127.0.0.1:TO, and the bytes of each
// direction are passed on by a thread of their own until that direction ends.
//
// It answers one question of issue 19's goal 4 (64 KiB WAMP calls at 0.8x iperf3's loopback
// bandwidth): how much of a direct stream's rate survives one hop through a process that does
// nothing but forward, and whether forwarding without user space (splice) changes that.
//   --mode copy:   read() into a buffer and write() it out, as any user-space relay does
//                  (the router receives and sends each WAMP payload this way);
//   --mode splice: splice() from the socket into a pipe and from the pipe into the other
//                  socket: the payload's pages are handed on and never copied to user space.
//
//   tcp_relay --to PORT [--listen PORT (0: any free port)] [--mode copy|splice]
//             [--seconds N (default 600: the relay exits by itself after N seconds)]
// Prints "READY port=P" once it listens. Loopback only, by design.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

enum class Mode { copy, splice };

struct Options {
  uint16_t listen_port = 0;
  uint16_t to_port = 0;
  Mode mode = Mode::copy;
  unsigned seconds = 600;
};

constexpr size_t kCopyBuffer = 256 * 1024;
constexpr int kPipeBytes = 1024 * 1024;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "tcp_relay: %s\n", what.c_str());
  std::exit(2);
}

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "tcp_relay: %s\n"
               "usage: tcp_relay --to PORT [--listen PORT] [--mode copy|splice] [--seconds N]\n",
               problem.c_str());
  std::exit(2);
}

unsigned long number(std::string_view flag, const char* text, unsigned long max) {
  char* end = nullptr;
  errno = 0;
  const unsigned long value = std::strtoul(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value > max) {
    usage(std::string(flag) + ": '" + text + "' is not a number from 0 to " + std::to_string(max));
  }
  return value;
}

Options parse(int argc, char** argv) {
  Options options;
  bool have_to = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::printf(
          "tcp_relay: forwards every connection on 127.0.0.1:LISTEN to 127.0.0.1:TO, each\n"
          "direction by a thread of its own (bench/relay_ceiling.sh).\n"
          "  --to PORT        where to connect (required)\n"
          "  --listen PORT    where to listen (default 0: any free port, printed)\n"
          "  --mode MODE      copy: read() and write() through a buffer (default);\n"
          "                   splice: socket -> pipe -> socket, no copy to user space\n"
          "  --seconds N      exit after N seconds (default 600)\n"
          "Prints 'READY port=P' once it listens.\n");
      std::exit(0);
    }
    if (i + 1 >= argc) usage(std::string(flag) + ": needs a value");
    const char* value = argv[++i];
    if (flag == "--to") {
      options.to_port = static_cast<uint16_t>(number(flag, value, 65535));
      have_to = true;
    } else if (flag == "--listen") {
      options.listen_port = static_cast<uint16_t>(number(flag, value, 65535));
    } else if (flag == "--seconds") {
      options.seconds = static_cast<unsigned>(number(flag, value, 86400));
    } else if (flag == "--mode") {
      const std::string_view mode = value;
      if (mode == "copy") {
        options.mode = Mode::copy;
      } else if (mode == "splice") {
        options.mode = Mode::splice;
      } else {
        usage("--mode: '" + std::string(mode) + "' is neither copy nor splice");
      }
    } else {
      usage("unknown flag '" + std::string(flag) + "'");
    }
  }
  if (!have_to || options.to_port == 0) usage("--to PORT is required (1 to 65535)");
  return options;
}

sockaddr_in loopback(uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

void no_delay(int fd) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// Writes all of [data, data + size) to `fd`; false once the peer is gone.
bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

void pump_copy(int in, int out) {
  std::vector<char> buffer(kCopyBuffer);
  for (;;) {
    const ssize_t n = read(in, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || !write_all(out, buffer.data(), static_cast<size_t>(n))) return;
  }
}

void pump_splice(int in, int out) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    std::fprintf(stderr, "tcp_relay: pipe: %s\n", std::strerror(errno));
    return;
  }
  // A larger pipe takes a whole 64 KiB message and more in one splice (the default is 64 KiB).
  fcntl(pipe_fds[1], F_SETPIPE_SZ, kPipeBytes);
  for (;;) {
    ssize_t in_pipe = splice(in, nullptr, pipe_fds[1], nullptr, kPipeBytes, SPLICE_F_MOVE);
    if (in_pipe < 0 && errno == EINTR) continue;
    if (in_pipe <= 0) break;
    while (in_pipe > 0) {
      const ssize_t n =
          splice(pipe_fds[0], nullptr, out, nullptr, static_cast<size_t>(in_pipe), SPLICE_F_MOVE);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        in_pipe = -1;
        break;
      }
      in_pipe -= n;
    }
    if (in_pipe < 0) break;
  }
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

// One accepted connection: joined to a new one towards the target, both directions pumped,
// then both closed.
void relay(int client, const Options& options) {
  const int upstream = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const sockaddr_in target = loopback(options.to_port);
  if (upstream < 0 ||
      connect(upstream, reinterpret_cast<const sockaddr*>(&target), sizeof target) != 0) {
    std::fprintf(stderr, "tcp_relay: connect to 127.0.0.1:%u: %s\n", options.to_port,
                 std::strerror(errno));
    if (upstream >= 0) close(upstream);
    close(client);
    return;
  }
  no_delay(client);
  no_delay(upstream);
  const auto pump = [&options](int in, int out) {
    if (options.mode == Mode::splice) {
      pump_splice(in, out);
    } else {
      pump_copy(in, out);
    }
    shutdown(out, SHUT_WR);  // the end of this direction, passed on
  };
  std::thread back(pump, upstream, client);
  pump(client, upstream);
  back.join();
  close(upstream);
  close(client);
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  std::signal(SIGPIPE, SIG_IGN);  // a peer that left ends its direction, not the relay
  alarm(options.seconds);         // bounded: SIGALRM's default action ends the process

  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in address = loopback(options.listen_port);
  if (listener < 0 ||
      bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
      listen(listener, 64) != 0) {
    die("listen on 127.0.0.1:" + std::to_string(options.listen_port) + ": " + std::strerror(errno));
  }
  socklen_t length = sizeof address;
  getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
  std::printf("READY port=%u\n", ntohs(address.sin_port));
  std::fflush(stdout);

  for (;;) {
    const int client = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      die(std::string("accept: ") + std::strerror(errno));
    }
    std::thread(relay, client, std::cref(options)).detach();
  }
}
