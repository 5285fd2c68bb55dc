// Realms, sessions, ids and admission of the WAMP thread (see core.h).
#include "router/wamp/core.h"

#include <random>

#include "router/wamp/message_check.h"
#include "router/wamp/session.h"

namespace benchgate::router::wamp {

WampCore::WampCore(const WampOptions& options, metrics::WampStats& stats)
    : options_(options),
      stats_(stats),
      dealer_(*this),
      broker_(*this),
      frames_(options.buffer_budget.get()),
      setup_deadlines_(options.session_setup_timeout_ns, stats.counters.session_setup_timeouts),
      random_state_((uint64_t{std::random_device{}()} << 32) ^ std::random_device{}()) {}

bool WampCore::admit() {
  if (admitted_ >= options_.max_sessions) return false;
  ++admitted_;
  return true;
}

void WampCore::release() {
  if (admitted_ > 0) --admitted_;
}

uint64_t WampCore::random_id() {
  // splitmix64: fast, and ids need to be unpredictable enough only to be unique per spec.
  uint64_t z = (random_state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (z & (kMaxId - 1)) + 1;
}

uint64_t WampCore::next_id() {
  if (sequence_ >= kMaxId) sequence_ = 0;
  return ++sequence_;
}

Realm& WampCore::attach(Session& session, const std::string& realm_name) {
  auto& slot = realms_[realm_name];
  if (!slot) {
    slot = std::make_unique<Realm>();
    slot->name = realm_name;
  }
  ++slot->sessions;
  sessions_[session.id()] = &session;
  return *slot;
}

void WampCore::detach(Session& session) {
  dealer_.session_left(session);
  broker_.session_left(session);
  sessions_.erase(session.id());
  Realm* realm = session.realm();
  if (realm != nullptr && --realm->sessions == 0) realms_.erase(realm->name);
}

Session* WampCore::find_session(uint64_t id) {
  const auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

}  // namespace benchgate::router::wamp
