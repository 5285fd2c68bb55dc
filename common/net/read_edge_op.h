// An Asio reactor operation that waits for the next read edge of a descriptor registered with
// the reactor (register_descriptor) without re-arming it, for a thread's own wait set nested in
// Asio's: ReadinessPoller's epoll set, CompletionRing's io_uring.
//
// Queued with speculation allowed (reactor::start_op(read_op, fd, data, op, false, true)), so the
// reactor neither re-arms the descriptor (epoll_ctl MOD, what async_wait costs) nor tries anything
// first: perform() reports "done and exhausted", which tells the reactor that speculating is
// pointless until the descriptor's next edge. (The very first start on a new registration
// completes at once, before any edge.) The owner's handler runs as a completion, on the thread's
// turn, not in perform(): by then other handlers may have run. The operation belongs to its owner,
// which queues it again after each completion; an io_context destroyed with it queued drops it
// without calling the owner.
#pragma once

#include <boost/asio/detail/reactor_op.hpp>
#include <boost/system/error_code.hpp>
#include <boost/version.hpp>
#include <cstddef>

// The operation's interface is the one of the Boost release the project builds with
// (scripts/install-deps.sh). A release that changes it fails to compile here rather than
// misbehaving.
static_assert(BOOST_VERSION >= 107400, "net::ReadEdgeOp needs Asio's reactor_op interface");

namespace benchgate::net {

template <typename Owner, void (Owner::*OnWake)(const boost::system::error_code&)>
class ReadEdgeOp final : public boost::asio::detail::reactor_op {
 public:
  explicit ReadEdgeOp(Owner& owner)
      : reactor_op(boost::system::error_code(), &ReadEdgeOp::perform, &ReadEdgeOp::complete),
        owner_(owner) {}

  // Clears the last result before the operation is queued again.
  void reset() { ec_ = boost::system::error_code(); }

 private:
  static status perform(reactor_op*) { return done_and_exhausted; }
  static void complete(void* io_owner, boost::asio::detail::operation* base,
                       const boost::system::error_code&, std::size_t) {
    // io_owner null: the io_context is being destroyed with the operation still queued.
    if (io_owner == nullptr) return;
    auto* op = static_cast<ReadEdgeOp*>(base);
    (op->owner_.*OnWake)(op->ec_);
  }

  Owner& owner_;
};

}  // namespace benchgate::net
