// What a load thread needs from one connection of any protocol (an HTTP/1.1 connection, a
// WAMP session): connecting before the first window and the window's phases. Called only on
// the connection's own thread; these are per-window calls, never per operation.
#pragma once

#include <boost/system/error_code.hpp>
#include <functional>
#include <string>

namespace benchgate::worker {

class LoadConnection {
 public:
  using ConnectDone = std::function<void(const boost::system::error_code&)>;
  virtual ~LoadConnection() = default;

  // Connects (and joins, for session protocols); `done` runs on the connection's thread.
  virtual void connect(ConnectDone done) = 0;
  // Read in `done` when it got an error: the peer refused the connection's setup after the
  // connection was made, in its own words ("the router refused the WAMP session: ABORT ...",
  // worker/wamp/errors.h); empty when the error code says why.
  virtual std::string refusal() const { return {}; }
  virtual void begin_window() = 0;   // forgets the last window's counters; reconnects when down
  virtual void start_sending() = 0;  // the window's start instant
  virtual void stop_sending() = 0;   // the window's sending time is over
  virtual void expire() = 0;         // the drain deadline passed: outstanding work times out
  virtual void close() = 0;          // the stream ended: close for good
};

}  // namespace benchgate::worker
