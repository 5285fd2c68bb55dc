// The accept loop every router listener runs (the HTTP serving threads, the WAMP WebSocket
// and RawSocket listeners): accepts for as long as the acceptor is open and hands each socket
// on. When accepting fails for lack of file descriptors or memory (EMFILE, ENFILE, ENOBUFS,
// ENOMEM) the connection stays in the listen queue and the loop waits a little before trying
// again; re-arming at once would spin at 100% CPU for as long as the shortage lasts and starve
// the connections already served on that thread.
//
// The accept itself is accept4(SOCK_NONBLOCK | SOCK_CLOEXEC), queued as an operation of the
// loop's own on the reactor's registration of the listening socket (common/net/asio_access.h),
// where Asio's async_accept calls accept(2) and leaves the socket blocking: every connection
// then needed an ioctl(FIONBIO) of its own before its first asynchronous operation or its
// non_blocking(true). The socket handed on says so to Asio (internally non-blocking); a
// session that wants non-blocking synchronous calls asks asio_access::set_non_blocking(),
// which then costs no system call. Like Asio's, the operation tries at once and, when the
// queue is empty (EAGAIN), waits for the listening socket's next edge without a re-arm.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "router/net/stream.h"

namespace benchgate::router::net {

// How long the loop waits after a resource failure.
inline constexpr std::chrono::milliseconds kAcceptRetryDelay{50};

class AcceptLoop {
 public:
  using OnSocket = std::function<void(Stream)>;

  // `what` names the listener in the log line ("HTTP", "WebSocket", "RawSocket"). Runs on the
  // acceptor's executor, which must be an io_context's (the sockets handed on are Streams on
  // it; std::invalid_argument otherwise); `acceptor` must outlive the loop.
  AcceptLoop(boost::asio::ip::tcp::acceptor& acceptor, std::string what, OnSocket on_socket);
  ~AcceptLoop();
  AcceptLoop(const AcceptLoop&) = delete;
  AcceptLoop& operator=(const AcceptLoop&) = delete;

  void start();
  // Cancels a pending retry; the owner closes the acceptor, which ends the loop.
  void stop();

  // Resource failures seen so far (each followed by a wait).
  uint64_t backoffs() const { return backoffs_; }

 private:
  class AcceptOp;

  void do_accept();
  // The operation's outcome: an accepted descriptor (non-blocking), or ec.
  void on_accept(const boost::system::error_code& ec, int fd);

  boost::asio::ip::tcp::acceptor& acceptor_;
  // The acceptor's io_context executor, for the sockets handed on.
  const boost::asio::io_context::executor_type executor_;
  const std::string what_;
  OnSocket on_socket_;
  boost::asio::steady_timer retry_;
  // Heap-held: when the loop goes while it is queued, the reactor still owns it and frees it
  // on completion (the loop's pointer in it is cleared).
  AcceptOp* op_;
  uint64_t backoffs_ = 0;
  bool failing_ = false;  // the last accept failed for lack of resources (logged once per run)
};

// "Too many open files (EMFILE; RLIMIT_NOFILE is 1024)": the error with its errno name and,
// for EMFILE, the limit it hit. Shared with the log lines of other descriptor shortages.
std::string describe_accept_error(const boost::system::error_code& ec);

}  // namespace benchgate::router::net
