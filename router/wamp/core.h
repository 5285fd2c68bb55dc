// The routing state of the WAMP serving thread: realms, established sessions by id, the
// dealer and the broker, id generation, limits and metrics. Everything here is touched only
// from that thread, so routing takes no locks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "router/metrics/wamp_counters.h"
#include "router/wamp/broker.h"
#include "router/wamp/dealer.h"
#include "router/wamp/frame_ledger.h"
#include "router/wamp/frame_pool.h"
#include "router/wamp/options.h"
#include "router/wamp/realm.h"
#include "router/wamp/setup_deadlines.h"

namespace benchgate::router::wamp {

class Session;

class WampCore {
 public:
  WampCore(const WampOptions& options, metrics::WampStats& stats);
  WampCore(const WampCore&) = delete;
  WampCore& operator=(const WampCore&) = delete;

  const WampOptions& options() const { return options_; }
  metrics::WampStats& stats() { return stats_; }
  Dealer& dealer() { return dealer_; }
  Broker& broker() { return broker_; }
  // Large frames in the outbound queues, against the buffered-bytes budget.
  FrameLedger& frames() { return frames_; }
  // Buffers for the messages routed per operation (router/wamp/routing_frames.h).
  FramePool& frame_pool() { return frame_pool_; }
  // The connections whose session is not established yet, and their deadline.
  SetupDeadlines& setup_deadlines() { return setup_deadlines_; }

  // Connection admission against --max-sessions: admit() is false when full; every admitted
  // connection calls release() once when it ends.
  bool admit();
  void release();

  // A random id in [1, 2^53] (session and publication ids: global scope, random per spec).
  uint64_t random_id();
  // The next id in [1, 2^53] from a router-wide sequence (registration, subscription,
  // invocation ids).
  uint64_t next_id();

  // Joins `session` (which has picked its id) to `realm_name`, creating the realm.
  Realm& attach(Session& session, const std::string& realm_name);
  // Removes the session's registrations, subscriptions and pending invocations, and the realm
  // when it was the last session in it.
  void detach(Session& session);
  Session* find_session(uint64_t id);

 private:
  const WampOptions& options_;
  metrics::WampStats& stats_;
  Dealer dealer_;
  Broker broker_;
  FrameLedger frames_;
  FramePool frame_pool_;
  SetupDeadlines setup_deadlines_;
  std::unordered_map<std::string, std::unique_ptr<Realm>> realms_;
  std::unordered_map<uint64_t, Session*> sessions_;
  uint64_t admitted_ = 0;
  uint64_t random_state_;
  uint64_t sequence_ = 0;
};

}  // namespace benchgate::router::wamp
