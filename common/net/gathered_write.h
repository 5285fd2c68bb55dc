// A write of many buffers on a TCP socket in as few send system calls as the socket allows.
// asio::async_write hands each send at most 16 buffers and 64 KiB, so a batch of 64 small WAMP
// messages (a frame header and a payload each: 128 buffers) took 8 sends. This sends up to
// kMaxSendBuffers buffers and kMaxSendBytes in one sendmsg now (MSG_DONTWAIT: never blocks,
// whatever the socket's mode), and hands what the socket did not take to asio::async_write, which
// waits for it; an error of that send other than EAGAIN is reported as it is. Used by the router's
// WAMP connections (router/net/stream.h, async_write_all) and the worker's RawSocket channel.
//
// On the thread that runs the socket's io_context, with no other write under way on the
// socket. The handler is called as handler(error_code, bytes written), never inside this call,
// through its associated executor (the socket's unless it is bound to another, a strand), with
// the memory of its allocator (the caller's pool); while the rest waits for the socket, its
// cancellation slot cancels the write (operation_aborted, with the bytes sent so far).
#pragma once

#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <span>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_suffix.hpp>
#include <boost/system/error_code.hpp>

#include "common/net/wrapped_handler.h"
#include "common/util/pooled_handler.h"

namespace benchgate::net {

// Buffers one sendmsg takes (Linux allows IOV_MAX, 1024): 256 iovecs are 4 KiB of stack.
inline constexpr size_t kMaxSendBuffers = 256;
// Bytes one sendmsg takes, as asio::async_write's: large messages leave as they did (a batch of
// 64 KiB calls offered whole to one send cost the router a quarter more CPU per call, 59-61
// against 44-47 us, and a fifth of its calls/s).
inline constexpr size_t kMaxSendBytes = 64 * 1024;

// Writes all of `buffers` (valid until the handler runs) on `socket`.
template <typename Socket, typename Handler>
void async_write_gathered(Socket& socket, std::span<const boost::asio::const_buffer> buffers,
                          Handler&& handler) {
  size_t sent = 0;
  size_t total = 0;
  boost::system::error_code failed;
  if (socket.is_open()) {
    iovec vectors[kMaxSendBuffers];
    size_t count = 0;
    size_t offered = 0;
    for (const boost::asio::const_buffer& buffer : buffers) {
      total += buffer.size();
      if (count == kMaxSendBuffers || offered == kMaxSendBytes) continue;
      const size_t take = std::min(buffer.size(), kMaxSendBytes - offered);
      vectors[count].iov_base = const_cast<void*>(buffer.data());
      vectors[count].iov_len = take;
      offered += take;
      ++count;
    }
    msghdr message{};
    message.msg_iov = vectors;
    message.msg_iovlen = count;
    const ssize_t n = ::sendmsg(socket.native_handle(), &message, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent = static_cast<size_t>(n);
    } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      // Reported as it is: the kernel says some errors (a reset) once only.
      failed = boost::system::error_code(errno, boost::system::system_category());
    }
  }
  // The wrappers below are the handler to Asio (wrapped_handler.h): its executor, allocator
  // and cancellation slot carry over.
  if (failed || (sent > 0 && sent == total)) {
    post_keeping_allocator(socket.get_executor(), wrap_handler(std::forward<Handler>(handler),
                                                               [failed, sent](auto&& done) {
                                                                 std::move(done)(failed, sent);
                                                               }));
    return;
  }
  // The rest (EAGAIN: all of it) waits for the socket in asio::async_write.
  boost::beast::buffers_suffix<std::span<const boost::asio::const_buffer>> rest(buffers);
  rest.consume(sent);
  boost::asio::async_write(socket, rest,
                           wrap_handler(std::forward<Handler>(handler),
                                        [sent](auto&& done, const boost::system::error_code& ec,
                                               size_t n) { std::move(done)(ec, sent + n); }));
}

}  // namespace benchgate::net
