// A wait for a TCP socket's next readability edge in Asio's own epoll registration, at no
// system call of its own. Asio adds every socket to its reactor edge-triggered (EPOLLIN |
// EPOLLET), yet each async_wait re-arms the descriptor with epoll_ctl(MOD), and each
// async_read_some first tries a recv that, right after an answer went out, nearly always
// finds nothing (EAGAIN): either way a request pays one system call just to wait. An EdgeWait
// is a reactor operation of its own that the reactor queues without re-arming (speculation
// allowed, and reported exhausted after every edge, as the wait on the set of
// common/net/readiness_poller.cc is), so the socket's next edge completes it: a request then
// costs the reactor's share of one epoll_wait, its recv and its send.
//
// The rule that makes an edge enough: arm only once the socket was read until it would block,
// or until a read returned less than it asked for (the receive queue was empty then, so what
// arrives afterwards makes a new edge). The first wait on a socket, and a wait armed after an
// edge that came while nothing waited, complete at once (the reactor cannot tell whether that
// edge's bytes were read): the reader then finds them, or EAGAIN.
//
// One wait per socket at a time, on the thread that runs the socket's io_context (the only
// thread that runs it). The wait holds `keep_alive` (its target's owner) while it is queued;
// closing the socket completes it with operation_aborted, and an io_context destroyed with the
// wait queued releases `keep_alive` without calling the target. The socket must be registered
// with the reactor (any socket Asio opened or accepted is).
#pragma once

#include <cstddef>
#include <memory>

// io_context first: it declares what the reactor's header uses.
#include <boost/asio/io_context.hpp>

#include <boost/asio/detail/reactor.hpp>
#include <boost/asio/detail/reactor_op.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>

namespace benchgate::net {

class EdgeWait {
 public:
  // What the wait calls when the socket became readable (or hung up, or failed: read it to
  // find out), or with operation_aborted when the socket was closed.
  class Target {
   public:
    virtual void on_edge(const boost::system::error_code& ec) = 0;

   protected:
    ~Target() = default;
  };

  explicit EdgeWait(Target& target) : op_(*this), target_(target) {}
  EdgeWait(const EdgeWait&) = delete;
  EdgeWait& operator=(const EdgeWait&) = delete;

  // Queues the wait on `socket` (not already armed). `keep_alive` is held until it completes.
  void arm(boost::asio::ip::tcp::socket& socket, std::shared_ptr<void> keep_alive);
  bool armed() const { return armed_; }

 private:
  class Op final : public boost::asio::detail::reactor_op {
   public:
    explicit Op(EdgeWait& wait);

   private:
    static status perform(reactor_op*);
    static void complete(void* owner, boost::asio::detail::operation* base,
                         const boost::system::error_code&, std::size_t);
    EdgeWait& wait_;
  };

  Op op_;
  Target& target_;
  boost::asio::detail::reactor* reactor_ = nullptr;
  std::shared_ptr<void> keep_alive_;
  bool armed_ = false;
};

}  // namespace benchgate::net
