// benchgate's HTTP listener (common/http_listener/http_listener.h) on 127.0.0.1:
// what it answers, what it keeps open and what it closes.
#include "common/http_listener/http_listener.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

namespace benchgate::http_listener {
namespace {

using std::chrono::steady_clock;

// Answers every path with its method and path; counts the requests it was asked.
struct Echo {
  int asked = 0;
  Answer operator()(const Request& request) {
    ++asked;
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

}  // namespace
}  // namespace benchgate::http_listener
