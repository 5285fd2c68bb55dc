// What Boost.Asio keeps per socket and per acceptor (the reactor's registration of the
// descriptor, its non-blocking flags), for the few places that queue an operation of their own
// on that registration instead of going through Asio's socket operations: the router's accept
// loop (router/net/accept_loop.cc: accept4 instead of accept and then ioctl(FIONBIO)). Asio
// keeps these in a protected (socket) or private (acceptor) member; an explicit instantiation
// may name it ([temp.spec.general]: access is not checked there), which is how it is reached
// here. Written against the Boost release the project builds with (scripts/install-deps.sh),
// on Linux (the epoll reactor); a release that changes the members fails to compile here.
#pragma once

#include <sys/epoll.h>

#include <cstdint>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/detail/io_object_impl.hpp>
#include <boost/asio/detail/reactive_socket_service.hpp>
#include <boost/asio/detail/reactor.hpp>
#include <boost/asio/detail/socket_ops.hpp>
#include <boost/asio/execution/context.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/query.hpp>
#include <boost/version.hpp>

static_assert(BOOST_VERSION >= 107400, "common/net/asio_access.h needs Asio's reactive services");

namespace benchgate::net::asio_access {

using Tcp = boost::asio::ip::tcp;
// The executor of the sockets Asio makes by default (tcp::socket), type-erased: 56 bytes in
// every socket and more in every operation queued for it.
using Executor = boost::asio::any_io_executor;
// The io_context's own executor (8 bytes): the router's sockets (router/net/stream.h).
using IoExecutor = boost::asio::io_context::executor_type;
using Service = boost::asio::detail::reactive_socket_service<Tcp>;
using Implementation = Service::implementation_type;
template <typename SocketExecutor>
using ObjectImpl = boost::asio::detail::io_object_impl<Service, SocketExecutor>;
using Reactor = boost::asio::detail::reactor;

namespace detail {
template <typename Tag, typename Tag::type Member>
struct Expose {
  friend typename Tag::type member(Tag) { return Member; }
};
struct SocketTag {
  using type = ObjectImpl<Executor> boost::asio::basic_socket<Tcp, Executor>::*;
  friend type member(SocketTag);
};
struct IoSocketTag {
  using type = ObjectImpl<IoExecutor> boost::asio::basic_socket<Tcp, IoExecutor>::*;
  friend type member(IoSocketTag);
};
template <typename SocketExecutor>
struct SocketTagFor;
template <>
struct SocketTagFor<Executor> {
  using type = SocketTag;
};
template <>
struct SocketTagFor<IoExecutor> {
  using type = IoSocketTag;
};
struct AcceptorTag {
  using type = ObjectImpl<Executor> boost::asio::basic_socket_acceptor<Tcp, Executor>::*;
  friend type member(AcceptorTag);
};

struct TrySpeculativeTag {
  using type = bool (Reactor::descriptor_state::*)[Reactor::max_ops];
  friend type member(TrySpeculativeTag);
};
struct EpollFdTag {
  using type = int Reactor::*;
  friend type member(EpollFdTag);
};
struct RegisteredEventsTag {
  using type = uint32_t Reactor::descriptor_state::*;
  friend type member(RegisteredEventsTag);
};
template struct Expose<EpollFdTag, &Reactor::epoll_fd_>;
template struct Expose<RegisteredEventsTag, &Reactor::descriptor_state::registered_events_>;
template struct Expose<SocketTag, &boost::asio::basic_socket<Tcp, Executor>::impl_>;
template struct Expose<IoSocketTag, &boost::asio::basic_socket<Tcp, IoExecutor>::impl_>;
template struct Expose<TrySpeculativeTag, &Reactor::descriptor_state::try_speculative_>;
template struct Expose<AcceptorTag, &boost::asio::basic_socket_acceptor<Tcp, Executor>::impl_>;
}  // namespace detail

// The socket's descriptor, flags and reactor registration (a socket on either executor).
template <typename SocketExecutor>
Implementation& implementation(boost::asio::basic_socket<Tcp, SocketExecutor>& socket) {
  return (socket.*member(typename detail::SocketTagFor<SocketExecutor>::type{}))
      .get_implementation();
}
inline Implementation& implementation(Tcp::acceptor& acceptor) {
  return (acceptor.*member(detail::AcceptorTag{})).get_implementation();
}

// The reactor of the execution context an I/O object's executor belongs to.
template <typename IoObject>
boost::asio::detail::reactor& reactor(IoObject& object) {
  return boost::asio::use_service<boost::asio::detail::reactor>(
      boost::asio::query(object.get_executor(), boost::asio::execution::context));
}

// Tells Asio that the socket's descriptor is non-blocking already (made so by accept4's
// SOCK_NONBLOCK): its asynchronous operations then need no ioctl(FIONBIO) of their own, and its
// synchronous ones still wait as on a blocking socket until non_blocking(true) is asked.
// Also that the descriptor is no duplicate of another (accept4 made it): its close then leaves
// the reactor's epoll set by itself, without the epoll_ctl(DEL) Asio makes for an assigned
// descriptor, which might share its open file with another one.
template <typename SocketExecutor>
void mark_accepted_non_blocking(boost::asio::basic_socket<Tcp, SocketExecutor>& socket) {
  Implementation& impl = implementation(socket);
  impl.state_ |= boost::asio::detail::socket_ops::internal_non_blocking;
  impl.state_ &= ~boost::asio::detail::socket_ops::possible_dup;
}

// The reactor keeps, per descriptor and direction, whether an edge may have come that no
// operation took (its "try at once" flag): set when the descriptor is registered, so the first
// wait without a re-arm on a new socket (net::EdgeWait, common/net/edge_wait.h) would complete at
// once for nothing and cost a read that finds EAGAIN. Call right after the socket was registered,
// in the same call chain (no epoll_wait since: an edge from its registration is then still to come
// and sets the flag again), on an io_context run by one thread.
template <typename SocketExecutor>
void clear_initial_read_edge(boost::asio::basic_socket<Tcp, SocketExecutor>& socket) {
  Reactor::per_descriptor_data state = implementation(socket).reactor_data_;
  if (state != nullptr) (state->*member(detail::TrySpeculativeTag{}))[Reactor::read_op] = false;
}

// Sets a registered descriptor's "try at once" flag for reads, so that the next read operation
// queued with speculation allowed completes at once, after the handlers already queued ran
// (net::CompletionRing, common/net/completion_ring.cc: completions still waiting when it handed
// the thread back, which no new edge would report). On an io_context run by one thread.
inline void mark_read_edge(Reactor::per_descriptor_data state) {
  if (state != nullptr) (state->*member(detail::TrySpeculativeTag{}))[Reactor::read_op] = true;
}

// A socket that waits in a readiness set of the project's own (net::ReadinessPoller) need not
// be in the reactor's epoll set as well: there every byte that arrives also runs the reactor's
// wake-up callback in the kernel and comes back from its epoll_wait as an event with no
// operation to serve. leave_reactor_set() takes the descriptor out of the reactor's set and
// leaves Asio's registration (its per-descriptor state, the events it asked for) as it is;
// rejoin_reactor_set() puts it back with those events, which reports the readiness it has now
// as a new edge. Call rejoin_reactor_set() before any Asio operation on the socket (a wait,
// a read or write that may have to wait): until then the reactor would never see its edges.
// Closing needs neither: the descriptor leaves both sets by itself. On an io_context run by
// one thread; false: the kernel refused (the socket stays where it was).
template <typename SocketExecutor>
bool leave_reactor_set(boost::asio::basic_socket<Tcp, SocketExecutor>& socket) {
  const Implementation& impl = implementation(socket);
  if (impl.reactor_data_ == nullptr) return false;
  const int epoll_fd = reactor(socket).*member(detail::EpollFdTag{});
  return ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, impl.socket_, nullptr) == 0;
}
template <typename SocketExecutor>
bool rejoin_reactor_set(boost::asio::basic_socket<Tcp, SocketExecutor>& socket) {
  const Implementation& impl = implementation(socket);
  if (impl.reactor_data_ == nullptr) return false;
  const int epoll_fd = reactor(socket).*member(detail::EpollFdTag{});
  epoll_event event{};
  event.events = impl.reactor_data_->*member(detail::RegisteredEventsTag{});
  event.data.ptr = impl.reactor_data_;
  return ::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, impl.socket_, &event) == 0;
}

// socket.non_blocking(true) without the ioctl when the descriptor already is (see above);
// otherwise Asio's own, with its ioctl.
template <typename SocketExecutor>
void set_non_blocking(boost::asio::basic_socket<Tcp, SocketExecutor>& socket,
                      boost::system::error_code& ec) {
  Implementation& impl = implementation(socket);
  if ((impl.state_ & boost::asio::detail::socket_ops::internal_non_blocking) != 0) {
    impl.state_ |= boost::asio::detail::socket_ops::user_set_non_blocking;
    ec = {};
    return;
  }
  socket.non_blocking(true, ec);
}

}  // namespace benchgate::net::asio_access
