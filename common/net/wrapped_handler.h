// A completion handler that does a step of its own and then calls the handler it wraps (adds
// the bytes an earlier send took, scans what a write sent), and that Asio sees as the wrapped
// handler: its associated executor, allocator and cancellation slot, every association Asio
// asks of a handler through boost::asio::associator, are the wrapped handler's. A lambda that
// captured the handler had none of them: a handler bound to a strand ran off it, one bound to
// a cancellation slot could not be cancelled, and only the allocator came through where it was
// bound again by hand. Used by the gathered write (common/net/gathered_write.h) and the router's
// WebSocket stream layer (router/wamp/websocket_frames.h).
#pragma once

#include <type_traits>
#include <utility>

#include <boost/asio/associator.hpp>

namespace benchgate::net {

// Called as step(std::move(handler), args...): the step calls the handler when it is done.
template <typename Handler, typename Step>
class WrappedHandler {
 public:
  WrappedHandler(Handler handler, Step step)
      : handler_(std::move(handler)), step_(std::move(step)) {}

  template <typename... Args>
  void operator()(Args&&... args) {
    std::move(step_)(std::move(handler_), std::forward<Args>(args)...);
  }

  const Handler& wrapped() const noexcept { return handler_; }

 private:
  Handler handler_;
  Step step_;
};

template <typename Handler, typename Step>
WrappedHandler<std::decay_t<Handler>, std::decay_t<Step>> wrap_handler(Handler&& handler,
                                                                       Step&& step) {
  return {std::forward<Handler>(handler), std::forward<Step>(step)};
}

}  // namespace benchgate::net

namespace boost::asio {

// Every association of a WrappedHandler is its wrapped handler's.
template <template <typename, typename> class Associator, typename Handler, typename Step,
          typename DefaultCandidate>
struct associator<Associator, ::benchgate::net::WrappedHandler<Handler, Step>, DefaultCandidate> {
  using type = typename Associator<Handler, DefaultCandidate>::type;

  static type get(const ::benchgate::net::WrappedHandler<Handler, Step>& h) noexcept {
    return Associator<Handler, DefaultCandidate>::get(h.wrapped());
  }

  static auto get(const ::benchgate::net::WrappedHandler<Handler, Step>& h,
                  const DefaultCandidate& c) noexcept
      -> decltype(Associator<Handler, DefaultCandidate>::get(h.wrapped(), c)) {
    return Associator<Handler, DefaultCandidate>::get(h.wrapped(), c);
  }
};

}  // namespace boost::asio
