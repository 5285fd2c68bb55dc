// What the WAMP server knows of a transport connection: it can be started, and shut down
// when the server stops. Connections link themselves into the server's list (auto-unlinking
// when destroyed), and their outbound messages wait in an OutboundQueue bounded by
// --max-queued-bytes and, with the other connections' queues, by the buffered-bytes budget.
#pragma once

#include <cstdint>
#include <deque>

#include <boost/intrusive/list.hpp>

#include "router/memory/buffer_budget.h"
#include "router/wamp/frame_ledger.h"
#include "router/wamp/peer.h"

namespace benchgate::router::wamp {

using ConnectionHook =
    boost::intrusive::list_base_hook<boost::intrusive::link_mode<boost::intrusive::auto_unlink>>;

class Connection : public Peer, public ConnectionHook {
 public:
  virtual void start() = 0;
  // Closes the socket now; pending operations then end the connection.
  virtual void shutdown() = 0;
};

using ConnectionList =
    boost::intrusive::list<Connection, boost::intrusive::constant_time_size<false>>;

// Messages waiting to be written, with their total size.
class OutboundQueue {
 public:
  OutboundQueue(uint64_t limit, FrameLedger& ledger, memory::BudgetUser user)
      : limit_(limit), ledger_(ledger), user_(user) {}
  ~OutboundQueue() { clear(); }
  OutboundQueue(const OutboundQueue&) = delete;
  OutboundQueue& operator=(const OutboundQueue&) = delete;

  // Slow-consumer policy: a message always fits an empty queue (so a single message as large
  // as --max-message-bytes can be sent); otherwise the queued bytes must stay within the limit.
  bool fits(size_t size) const { return frames_.empty() || bytes_ + size <= limit_; }
  // `tag` is the transport's own mark (RawSocket: the frame type). False when the
  // buffered-bytes budget has no room for a large frame: it is not queued.
  [[nodiscard]] bool push(Frame frame, uint8_t tag = 0) {
    if (!ledger_.take(frame, user_)) return false;
    bytes_ += frame->size();
    frames_.push_back({std::move(frame), tag});
    return true;
  }
  void pop() {
    ledger_.release(frames_.front().frame);
    bytes_ -= frames_.front().frame->size();
    frames_.pop_front();
  }
  void clear() {
    for (const Entry& entry : frames_) ledger_.release(entry.frame);
    frames_.clear();
    bytes_ = 0;
  }
  bool empty() const { return frames_.empty(); }
  size_t size() const { return frames_.size(); }
  const Frame& frame(size_t i) const { return frames_[i].frame; }
  uint8_t tag(size_t i) const { return frames_[i].tag; }

 private:
  struct Entry {
    Frame frame;
    uint8_t tag;
  };
  std::deque<Entry> frames_;
  uint64_t bytes_ = 0;
  const uint64_t limit_;
  FrameLedger& ledger_;
  const memory::BudgetUser user_;
};

}  // namespace benchgate::router::wamp
