// benchgate's HTTP listener (common/http_listener/http_listener.h) on 127.0.0.1:
// what it answers, what it keeps open and what it closes.
#include "common/http_listener/http_listener.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/unit/common/private_hosts.h"

namespace benchgate::http_listener {
namespace {

using std::chrono::steady_clock;

// Answers every path with its method and path; counts the requests it was asked.
// (Asked on the listener's thread, read on the test's.) /big is answered with 16 MiB, more
// than the kernel buffers of a client that does not read.
struct Echo {
  std::atomic<int> asked = 0;
  Answer operator()(const Request& request) {
    ++asked;
    if (request.path == "/big") return {200, {}, std::string(16 << 20, 'b')};
    if (request.path == "/throw") throw std::runtime_error("cannot open /secret/path");
    return {200, {{"Content-Type", "text/plain"}}, request.method + " " + request.path + "\n"};
  }
};

std::unique_ptr<HttpListener> listen(Echo& echo, const ListenerOptions& options = {}) {
  auto listener = HttpListener::start(
      "--test", "127.0.0.1:0", [&echo](const Request& r) { return echo(r); }, options);
  EXPECT_TRUE(listener) << listener.message();
  return listener ? std::move(*listener) : nullptr;
}

int connect_to(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// A connection to `ip` (numeric, no brackets), or -1.
int connect_to(const std::string& ip, uint16_t port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (::getaddrinfo(ip.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return -1;
  const int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && ::connect(fd, found->ai_addr, found->ai_addrlen) != 0) {
    ::close(fd);
    ::freeaddrinfo(found);
    return -1;
  }
  ::freeaddrinfo(found);
  return fd;
}

bool send_text(int fd, const std::string& text) {
  return ::send(fd, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
}

// What `fd` receives until it holds `until_size` bytes (0: no bound), the server closes it, or
// 30 s pass; `closed` says whether it was closed.
std::string receive(int fd, bool* closed = nullptr, size_t until_size = 0) {
  std::string got;
  const auto deadline = steady_clock::now() + std::chrono::seconds(30);
  if (closed) *closed = false;
  char buffer[65536];
  while (steady_clock::now() < deadline && (until_size == 0 || got.size() < until_size)) {
    pollfd wait{fd, POLLIN, 0};
    if (::poll(&wait, 1, 100) <= 0) continue;
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) {
      if (closed) *closed = true;
      break;
    }
    got.append(buffer, static_cast<size_t>(n));
  }
  return got;
}

bool still_open(int fd) {
  char byte;
  return ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) < 0 && errno == EAGAIN;
}

TEST(HttpListener, AnswersAndKeepsTheConnectionAliveForTheNext) {
  Echo echo;
  auto listener = listen(echo);
  ASSERT_TRUE(listener);
  EXPECT_EQ(listener->address(), "127.0.0.1:" + std::to_string(listener->port()));
  const int fd = connect_to(listener->port());
  ASSERT_GE(fd, 0);
  const std::string first =
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 9\r\n\r\nGET /a b\n";
  ASSERT_TRUE(send_text(fd, "GET /a%20b?x=1 HTTP/1.1\r\nHost: h\r\n\r\n"));
  EXPECT_EQ(receive(fd, nullptr, first.size()), first);
  EXPECT_TRUE(still_open(fd));
  // HEAD: GET's headers, Content-Length included, and no body; then closed as asked.
  ASSERT_TRUE(send_text(fd, "HEAD /c HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"));
  bool closed = false;
  EXPECT_EQ(receive(fd, &closed),
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 8\r\n"
            "Connection: close\r\n\r\n");
  EXPECT_TRUE(closed);
  ::close(fd);
  EXPECT_EQ(echo.asked, 2);
}

// A name is listened on at every address it resolves to: "localhost" was listened on at the
// first getaddrinfo gave alone (::1 where /etc/hosts writes it first), and a scrape of
// 127.0.0.1 was refused, while the listen probe and the check of listeners on one port read
// the name as all its addresses. The names resolve through a hosts file of the test's own
// (private_hosts.h), whatever this machine's /etc/hosts says.
TEST(HttpListener, ANameIsListenedOnAtEveryAddressItResolvesTo) {
  const test_support::PrivateHostsRun run =
      test_support::run_with_hosts(test_support::kTwoAddressNamesHosts, [] {
        for (const test_support::TwoAddressName& name : test_support::two_address_names()) {
          Echo echo;
          auto listener = HttpListener::start("--test", name.name + ":0",
                                              [&echo](const Request& r) { return echo(r); });
          if (!listener) return name.name + ": " + listener.message();
          const uint16_t port = (*listener)->port();
          const std::string address = name.name + ":" + std::to_string(port);
          if ((*listener)->address() != address) return "listens as " + (*listener)->address();
          for (const std::string& ip : name.addresses) {
            const int fd = connect_to(ip, port);
            if (fd < 0) return address + ": " + ip + " refused the connection";
            const bool sent =
                send_text(fd, "GET /x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
            const std::string answer = receive(fd);
            ::close(fd);
            if (!sent || !answer.ends_with("\r\n\r\nGET /x\n")) {
              return address + ": " + ip + " answered '" + answer + "'";
            }
          }
          if (echo.asked != 2) return address + ": asked " + std::to_string(echo.asked.load());
        }
        return std::string();
      });
  if (!run.skipped.empty()) GTEST_SKIP() << run.skipped;
  EXPECT_EQ(run.failed, "");
}

// A port held on one of a name's addresses fails the listen, whichever address getaddrinfo
// gives first: it listened on the other alone, and a client of the held one reached whatever
// held it.
TEST(HttpListener, APortHeldOnOneOfANamesAddressesIsNotListenedOn) {
  const test_support::PrivateHostsRun run =
      test_support::run_with_hosts(test_support::kTwoAddressNamesHosts, [] {
        Echo echo;
        const Handler handler = [&echo](const Request& r) { return echo(r); };
        for (const test_support::TwoAddressName& name : test_support::two_address_names()) {
          for (const std::string& held : name.addresses) {
            auto holder = HttpListener::start(
                "--test", (held.find(':') != std::string::npos ? "[" + held + "]" : held) + ":0",
                handler);
            if (!holder) return held + ": " + holder.message();
            const std::string address = name.name + ":" + std::to_string((*holder)->port());
            auto listener = HttpListener::start("--test", address, handler);
            if (listener) return "listened on " + address + " beside " + (*holder)->address();
            const std::string expected =
                "--test " + address + ": cannot listen: address already in use";
            if (listener.message() != expected) return "said '" + listener.message() + "'";
          }
        }
        return std::string();
      });
  if (!run.skipped.empty()) GTEST_SKIP() << run.skipped;
  EXPECT_EQ(run.failed, "");
}

// A name on two lines of /etc/hosts (here a hosts file in a mount namespace of the test's own)
// resolves to one address twice: the listener bound it twice and failed on its own socket
// ("address already in use"), while the listen probe called the port free.
TEST(HttpListener, ANameOnTwoLinesOfTheHostsFileIsListenedOnOnce) {
  const test_support::PrivateHostsRun run =
      test_support::run_with_hosts("127.0.0.1 twice.test\n127.0.0.1 twice.test\n", [] {
        Echo echo;
        auto listener = HttpListener::start("--test", "twice.test:0",
                                            [&echo](const Request& r) { return echo(r); });
        if (!listener) return listener.message();
        const int fd = connect_to((*listener)->port());
        if (fd < 0) return std::string("127.0.0.1 refused the connection");
        const bool sent = send_text(fd, "GET /x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
        const std::string answer = receive(fd);
        ::close(fd);
        if (!sent || !answer.ends_with("\r\n\r\nGET /x\n")) return "answered '" + answer + "'";
        return std::string();
      });
  if (!run.skipped.empty()) GTEST_SKIP() << run.skipped;
  EXPECT_EQ(run.failed, "");
}

TEST(HttpListener, AnHttp10RequestIsClosedUnlessItAsksToBeKeptAlive) {
  Echo echo;
  auto listener = listen(echo);
  ASSERT_TRUE(listener);
  int fd = connect_to(listener->port());
  ASSERT_TRUE(send_text(fd, "GET / HTTP/1.0\r\n\r\n"));
  bool closed = false;
  EXPECT_TRUE(receive(fd, &closed).find("Connection: close\r\n") != std::string::npos);
  EXPECT_TRUE(closed);
  ::close(fd);
  fd = connect_to(listener->port());
  ASSERT_TRUE(send_text(fd, "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
  const std::string answer = receive(fd, nullptr, 94);
  EXPECT_NE(answer.find("Connection: keep-alive\r\n"), std::string::npos) << answer;
  EXPECT_TRUE(still_open(fd));
  ::close(fd);
}

TEST(HttpListener, ARequestHeadPastTheCapIsAnswered431AndClosed) {
  Echo echo;
  ListenerOptions options;
  options.max_header_bytes = 1024;
  auto listener = listen(echo, options);
  ASSERT_TRUE(listener);
  const int fd = connect_to(listener->port());
  ASSERT_TRUE(send_text(fd, "GET / HTTP/1.1\r\nX-Big: " + std::string(2000, 'a') + "\r\n\r\n"));
  bool closed = false;
  const std::string answer = receive(fd, &closed);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n")) << answer;
  EXPECT_TRUE(closed);
  ::close(fd);
  EXPECT_EQ(echo.asked, 0);
}

TEST(HttpListener, AGetWithABodyIsRefusedAndAnotherMethodIsAnsweredThenClosed) {
  Echo echo;
  auto listener = listen(echo);
  ASSERT_TRUE(listener);
  int fd = connect_to(listener->port());
  ASSERT_TRUE(send_text(fd, "GET / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"));
  bool closed = false;
  std::string answer = receive(fd, &closed);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 400 Bad Request\r\n")) << answer;
  EXPECT_TRUE(closed);
  ::close(fd);
  EXPECT_EQ(echo.asked, 0);
  // The handler says what a POST gets (the pages: 405); its body is not read.
  fd = connect_to(listener->port());
  ASSERT_TRUE(send_text(
      fd, "POST /p HTTP/1.1\r\nContent-Length: 100000\r\n\r\n" + std::string(100000, 'x')));
  answer = receive(fd, &closed);
  EXPECT_TRUE(answer.ends_with("Connection: close\r\n\r\nPOST /p\n")) << answer;
  EXPECT_TRUE(closed);
  ::close(fd);
  EXPECT_EQ(echo.asked, 1);
}

TEST(HttpListener, AConnectionThatSendsNoWholeRequestInTimeIsClosed) {
  Echo echo;
  ListenerOptions options;
  options.request_timeout = std::chrono::milliseconds(200);
  auto listener = listen(echo, options);
  ASSERT_TRUE(listener);
  const int fd = connect_to(listener->port());
  ASSERT_TRUE(send_text(fd, "GET / HTTP/1.1\r\n"));
  bool closed = false;
  EXPECT_EQ(receive(fd, &closed), "");
  EXPECT_TRUE(closed);
  ::close(fd);
  EXPECT_EQ(echo.asked, 0);
}

// Past max_connections the connection that has waited longest for its request is closed to
// make room, and the new one is answered: holding connections open never locks a client out.
TEST(HttpListener, PastTheCapTheOldestWaitingConnectionMakesRoom) {
  Echo echo;
  ListenerOptions options;
  options.max_connections = 4;
  options.request_timeout = std::chrono::minutes(10);  // the eviction makes room, not this
  auto listener = listen(echo, options);
  ASSERT_TRUE(listener);
  std::vector<int> idle;
  for (int i = 0; i < 4; ++i) {
    idle.push_back(connect_to(listener->port()));
    ASSERT_GE(idle.back(), 0);
    ASSERT_TRUE(send_text(idle.back(), "GET / HTTP/1.1\r\n"));
  }
  // Accepted in the order they connected (one thread, the kernel's queue): the first has
  // waited longest.
  const int fd = connect_to(listener->port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(send_text(fd, "GET /new HTTP/1.1\r\nConnection: close\r\n\r\n"));
  bool closed = false;
  const std::string answer = receive(fd, &closed);
  EXPECT_TRUE(answer.ends_with("GET /new\n")) << answer;
  ::close(fd);
  bool first_closed = false;
  EXPECT_EQ(receive(idle[0], &first_closed), "");
  EXPECT_TRUE(first_closed);
  for (size_t i = 1; i < idle.size(); ++i) EXPECT_TRUE(still_open(idle[i])) << i;
  for (const int i : idle) ::close(i);
}

// Whether the server closed `fd` within 30 s while the client sends it a byte every 50 ms:
// a send to a closed socket is reset, and the send after that fails.
bool closed_while_trickling(int fd) {
  const auto deadline = steady_clock::now() + std::chrono::seconds(30);
  while (steady_clock::now() < deadline) {
    if (!send_text(fd, "x")) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// Sends a POST whose 1 MB body it does not send, and reads the answer to its end (the server
// then reads and drops what comes); "" when it did not come whole.
std::string post_without_its_body(int fd) {
  if (!send_text(fd, "POST /p HTTP/1.1\r\nContent-Length: 1000000\r\n\r\nabc")) return "";
  bool closed = false;
  const std::string answer = receive(fd, &closed);
  return closed ? answer : "";
}

// A client that sent a request with a body and trickles the rest, a byte well within
// request_timeout of the last, is closed at drain_timeout after its answer: each byte it
// sends does not give it more time.
TEST(HttpListener, AClientThatTricklesABodyIsClosedAtTheDrainDeadline) {
  Echo echo;
  ListenerOptions options;
  options.request_timeout = std::chrono::milliseconds(400);
  options.drain_timeout = std::chrono::milliseconds(300);
  auto listener = listen(echo, options);
  ASSERT_TRUE(listener);
  for (const std::string& request :
       {std::string("POST /p HTTP/1.1\r\nContent-Length: 1000000\r\n\r\nabc"),
        std::string("GET / HTTP/1.1\r\nContent-Length: 1000000\r\n\r\nabc"),
        "GET / HTTP/1.1\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n"}) {
    const int fd = connect_to(listener->port());
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(send_text(fd, request));
    bool closed = false;
    EXPECT_TRUE(receive(fd, &closed).starts_with("HTTP/1.1 ")) << request.substr(0, 20);
    EXPECT_TRUE(closed);
    EXPECT_TRUE(closed_while_trickling(fd)) << request.substr(0, 20);
    ::close(fd);
  }
}

// At the cap with every connection draining (request_timeout and drain_timeout long: the
// eviction makes room, not a deadline), a new client is answered: the one draining longest is
// closed for it.
TEST(HttpListener, PastTheCapTheOldestDrainingConnectionMakesRoom) {
  Echo echo;
  ListenerOptions options;
  options.max_connections = 3;
  options.request_timeout = std::chrono::minutes(10);
  options.drain_timeout = std::chrono::minutes(10);
  auto listener = listen(echo, options);
  ASSERT_TRUE(listener);
  std::vector<int> draining;
  for (int i = 0; i < 3; ++i) {
    draining.push_back(connect_to(listener->port()));
    ASSERT_GE(draining.back(), 0);
    ASSERT_TRUE(post_without_its_body(draining.back()).ends_with("POST /p\n"));
  }
  const int fd = connect_to(listener->port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(send_text(fd, "GET /new HTTP/1.1\r\nConnection: close\r\n\r\n"));
  const std::string answer = receive(fd);
  EXPECT_TRUE(answer.ends_with("GET /new\n")) << answer;
  ::close(fd);
  EXPECT_TRUE(closed_while_trickling(draining[0]));
  for (const int i : draining) ::close(i);
  EXPECT_EQ(echo.asked, 4);
}

// At the cap with every connection blocked writing an answer its client does not take (and
// more requests pipelined behind it), a new client is answered: the one blocked longest is
// closed for it. The requests behind an answer not taken are not read.
TEST(HttpListener, PastTheCapAConnectionThatTakesNoAnswerMakesRoom) {
  Echo echo;
  ListenerOptions options;
  options.max_connections = 2;
  options.request_timeout = std::chrono::minutes(10);
  auto listener = listen(echo, options);
  ASSERT_TRUE(listener);
  std::vector<int> stuck;
  std::string pipelined;
  for (int i = 0; i < 20; ++i) pipelined += "GET /big HTTP/1.1\r\nHost: h\r\n\r\n";
  for (int i = 0; i < 2; ++i) {
    stuck.push_back(connect_to(listener->port()));
    ASSERT_GE(stuck.back(), 0);
    ASSERT_TRUE(send_text(stuck.back(), pipelined));
  }
  // Both asked (once each: the rest is not read while the answer waits), and so both writing.
  const auto deadline = steady_clock::now() + std::chrono::seconds(30);
  while (echo.asked < 2 && steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(echo.asked, 2);
  const int fd = connect_to(listener->port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(send_text(fd, "GET /new HTTP/1.1\r\nConnection: close\r\n\r\n"));
  const std::string answer = receive(fd);
  EXPECT_TRUE(answer.ends_with("GET /new\n")) << answer.substr(0, 200);
  ::close(fd);
  EXPECT_EQ(echo.asked, 3);
  for (const int i : stuck) ::close(i);
}

// A handler that throws is answered 500 with a generic body: its reason (which may name this
// machine's paths) goes to stderr, not to the client.
TEST(HttpListener, AHandlerThatThrowsIsAnswered500WithoutItsReason) {
  Echo echo;
  auto listener = listen(echo);
  ASSERT_TRUE(listener);
  const int fd = connect_to(listener->port());
  ASSERT_TRUE(send_text(fd, "GET /throw HTTP/1.1\r\nConnection: close\r\n\r\n"));
  const std::string answer = receive(fd);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 500 Internal Server Error\r\n")) << answer;
  EXPECT_NE(answer.find("X-Content-Type-Options: nosniff\r\n"), std::string::npos) << answer;
  EXPECT_TRUE(answer.ends_with("\r\n\r\ninternal error\n")) << answer;
  EXPECT_EQ(answer.find("secret"), std::string::npos) << answer;
  ::close(fd);
}

// Under a soft RLIMIT_NOFILE of 80 the listener keeps at most 20 connections open (not 1,024):
// the 21st makes the one that has waited longest close, leaving descriptors to the process.
TEST(HttpListener, UnderALowFileLimitTheCapIsAQuarterOfIt) {
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &before), 0);
  rlimit low = before;
  low.rlim_cur = 80;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  Echo echo;
  ListenerOptions options;
  options.request_timeout = std::chrono::minutes(10);
  auto listener = listen(echo, options);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &before), 0);
  ASSERT_TRUE(listener);
  std::vector<int> idle;
  for (int i = 0; i < 20; ++i) {
    idle.push_back(connect_to(listener->port()));
    ASSERT_GE(idle.back(), 0);
    ASSERT_TRUE(send_text(idle.back(), "GET / HTTP/1.1\r\n"));
  }
  const int fd = connect_to(listener->port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(send_text(fd, "GET /new HTTP/1.1\r\nConnection: close\r\n\r\n"));
  const std::string answer = receive(fd);
  EXPECT_TRUE(answer.ends_with("GET /new\n")) << answer;
  ::close(fd);
  bool first_closed = false;
  EXPECT_EQ(receive(idle[0], &first_closed), "");
  EXPECT_TRUE(first_closed);
  for (size_t i = 1; i < idle.size(); ++i) EXPECT_TRUE(still_open(idle[i])) << i;
  for (const int i : idle) ::close(i);
}

TEST(HttpListener, TheConnectionCapIsAShareOfTheFileLimit) {
  EXPECT_EQ(connection_cap(1024, 0), 1024u);
  EXPECT_EQ(connection_cap(1024, 1048576), 1024u);
  EXPECT_EQ(connection_cap(1024, 256), 64u);
  EXPECT_EQ(connection_cap(1024, 20), 16u);
  EXPECT_EQ(connection_cap(4, 256), 4u);
}

}  // namespace
}  // namespace benchgate::http_listener
