// A wait for a socket's next readability edge (see edge_wait.h).
#include "common/net/edge_wait.h"

#include <utility>

#include <boost/asio/execution/context.hpp>
#include <boost/asio/query.hpp>
#include <boost/version.hpp>

// The wait is an Asio reactor operation queued on the socket's own registration
// (boost/asio/detail): the interface of the Boost release the project builds with
// (scripts/install-deps.sh), as in readiness_poller.cc. A release that changes it fails to
// compile here rather than misbehaving.
static_assert(BOOST_VERSION >= 107400, "EdgeWait needs Asio's reactor_op interface");

namespace benchgate::net {
namespace {

namespace asio = boost::asio;
using boost::system::error_code;
using Socket = asio::ip::tcp::socket;
using SocketBase = asio::basic_socket<asio::ip::tcp, Socket::executor_type>;

// The socket's descriptor and reactor registration are the protected io_object_impl of
// basic_socket: reached through a pointer to that member, taken in a class derived from it.
struct SocketImpl : SocketBase {
  static auto& of(Socket& socket) {
    return (static_cast<SocketBase&>(socket).*(&SocketImpl::impl_)).get_implementation();
  }
};

}  // namespace

EdgeWait::Op::Op(EdgeWait& wait)
    : reactor_op(error_code(), &Op::perform, &Op::complete), wait_(wait) {}

// Called by the reactor on the socket's edge (or at once when the reactor still thinks a read
// could succeed): nothing to try, done, and no point in speculating before the next edge.
asio::detail::reactor_op::status EdgeWait::Op::perform(reactor_op*) { return done_and_exhausted; }

void EdgeWait::Op::complete(void* owner, asio::detail::operation* base, const error_code&,
                            std::size_t) {
  EdgeWait& wait = static_cast<Op*>(base)->wait_;
  // A copy: the target may arm the wait again (and so reset the operation's) inside on_edge().
  const error_code ec = static_cast<Op*>(base)->ec_;
  // Held to the end of this call: the target may close, and its owner go, inside on_edge().
  const std::shared_ptr<void> keep = std::move(wait.keep_alive_);
  wait.armed_ = false;
  // owner null: the io_context is being destroyed with the wait still queued; the wait is the
  // target's, not the reactor's, to free.
  if (owner == nullptr) return;
  wait.target_.on_edge(ec);
}

void EdgeWait::arm(Socket& socket, std::shared_ptr<void> keep_alive) {
  if (reactor_ == nullptr) {
    reactor_ = &asio::use_service<asio::detail::reactor>(
        asio::query(socket.get_executor(), asio::execution::context));
  }
  auto& impl = SocketImpl::of(socket);
  keep_alive_ = std::move(keep_alive);
  armed_ = true;
  op_.ec_ = error_code();
  reactor_->start_op(asio::detail::reactor::read_op, impl.socket_, impl.reactor_data_, &op_,
                     /*is_continuation=*/false, /*allow_speculative=*/true);
}

}  // namespace benchgate::net
