// What the WAMP server knows of a transport connection: it can be started, and shut down
// when the server stops. Connections link themselves into the server's list (auto-unlinking
// when destroyed), and into the thread's session-setup deadlines until their session is
// established (router/wamp/setup_deadlines.h), and their outbound messages wait in an
// OutboundQueue bounded by --max-queued-bytes and, with the other connections' queues, by the
// buffered-bytes budget.
#pragma once

#include <cstdint>
#include <vector>

#include <boost/intrusive/list.hpp>

#include "router/memory/buffer_budget.h"
#include "router/wamp/frame_ledger.h"
#include "router/wamp/peer.h"

namespace benchgate::router::wamp {

using ConnectionHook =
    boost::intrusive::list_base_hook<boost::intrusive::link_mode<boost::intrusive::auto_unlink>>;
struct SetupTag;
using SetupHook =
    boost::intrusive::list_base_hook<boost::intrusive::tag<SetupTag>,
                                     boost::intrusive::link_mode<boost::intrusive::auto_unlink>>;

class Connection : public Peer, public ConnectionHook, public SetupHook {
 public:
  virtual void start() = 0;
  // Closes the socket now; pending operations then end the connection.
  virtual void shutdown() = 0;
  // No session was established within --session-setup-timeout (router/wamp/setup_deadlines.h):
  // the connection closes.
  virtual void setup_timed_out() = 0;

  // While linked into the setup deadlines: when the session must be established by
  // (steady_now_ns).
  int64_t setup_deadline_ns = 0;
};

using ConnectionList =
    boost::intrusive::list<Connection, boost::intrusive::base_hook<ConnectionHook>,
                           boost::intrusive::constant_time_size<false>>;
using SetupList = boost::intrusive::list<Connection, boost::intrusive::base_hook<SetupHook>,
                                         boost::intrusive::constant_time_size<false>>;

// Messages waiting to be written, with the bytes their buffers hold: a ring that keeps its
// capacity (a deque allocated a block every few dozen messages, and one at its construction),
// so that queueing a message allocates nothing once the ring has grown to the connection's
// backlog.
class OutboundQueue {
 public:
  OutboundQueue(uint64_t limit, FrameLedger& ledger, memory::BudgetUser user)
      : limit_(limit), ledger_(ledger), user_(user) {}
  ~OutboundQueue() { clear(); }
  OutboundQueue(const OutboundQueue&) = delete;
  OutboundQueue& operator=(const OutboundQueue&) = delete;

  // What a queued frame holds against the limit: its buffer's capacity, not the message's
  // size. A small message written into a pooled buffer holds the whole buffer, at least
  // FramePool::kFirstBytes (router/wamp/frame_pool.h); counted by size, a client that sends
  // tiny calls and never reads made the router hold ~50x --max-queued-bytes. The capacity
  // cannot change while the frame is queued: a Frame is const, and the pool writes into a
  // buffer again only once no queue holds it.
  static uint64_t held_bytes(const Frame& frame) { return frame->capacity(); }
  // Slow-consumer policy: a message always fits an empty queue (so a single message as large
  // as --max-message-bytes can be sent); otherwise the bytes the queued frames hold must stay
  // within the limit.
  bool fits(const Frame& frame) const {
    return count_ == 0 || bytes_ + held_bytes(frame) <= limit_;
  }
  // `tag` is the transport's own mark (RawSocket: the frame type). False when the
  // buffered-bytes budget has no room for a large frame: it is not queued.
  [[nodiscard]] bool push(Frame frame, uint8_t tag = 0) {
    if (!ledger_.take(frame, user_)) return false;
    bytes_ += held_bytes(frame);
    if (count_ == ring_.size()) grow();
    ring_[index(count_)] = {std::move(frame), tag};
    ++count_;
    return true;
  }
  void pop() {
    Entry& front = ring_[head_];
    ledger_.release(front.frame);
    bytes_ -= held_bytes(front.frame);
    front.frame.reset();
    head_ = index(1);
    --count_;
  }
  void clear() {
    for (size_t i = 0; i < count_; ++i) {
      Entry& entry = ring_[index(i)];
      ledger_.release(entry.frame);
      entry.frame.reset();
    }
    head_ = count_ = 0;
    bytes_ = 0;
  }
  bool empty() const { return count_ == 0; }
  // The bytes the queued frames hold (what the limit counts).
  uint64_t bytes() const { return bytes_; }
  size_t size() const { return count_; }
  const Frame& frame(size_t i) const { return ring_[index(i)].frame; }
  uint8_t tag(size_t i) const { return ring_[index(i)].tag; }

 private:
  struct Entry {
    Frame frame;
    uint8_t tag = 0;
  };
  size_t index(size_t i) const {
    const size_t at = head_ + i;
    return at < ring_.size() ? at : at - ring_.size();
  }
  void grow() {
    std::vector<Entry> bigger(ring_.empty() ? 4 : 2 * ring_.size());
    for (size_t i = 0; i < count_; ++i) bigger[i] = std::move(ring_[index(i)]);
    ring_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<Entry> ring_;
  size_t head_ = 0;
  size_t count_ = 0;
  uint64_t bytes_ = 0;
  const uint64_t limit_;
  FrameLedger& ledger_;
  const memory::BudgetUser user_;
};

}  // namespace benchgate::router::wamp
