// The ids every session holds of one kind, for the dealer (registrations) or the broker
// (subscriptions): each session's list (Session::registrations, Session::subscriptions) and
// where each id sits in it. UNREGISTER and UNSUBSCRIBE find their id in O(1) and take it out
// by moving the list's last id into its place (the list's order means nothing), where a scan
// of the list made a session that removes its n ids one by one cost O(n^2); REGISTER and
// SUBSCRIBE learn in O(1) whether the session holds the id already. Each entry also keeps
// where the session sits in the id's shared list (Registration::callees,
// Subscription::subscribers, router/wamp/realm.h), so that a session leaving a registration or
// a topic of n sessions takes itself out without a scan of the n. The index's nodes come
// from the thread's size-class pool (common/util/size_class_pool.h), as the dealer's pending
// calls do: the index itself allocates nothing once the pool holds as many nodes as it needs.
// Only the WAMP serving thread touches it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/util/size_class_pool.h"

namespace benchgate::router::wamp {

class Session;

class SessionIds {
 public:
  bool contains(const Session& session, uint64_t id) const {
    return positions_.find(Key{&session, id}) != positions_.end();
  }
  // Appends `id` to `list`, the session's, the session sitting at `shared` in the id's shared
  // list; false, with nothing done, when the session holds it.
  bool add(const Session& session, std::vector<uint64_t>& list, uint64_t id, size_t shared) {
    if (!positions_.try_emplace(Key{&session, id}, Place{list.size(), shared}).second) {
      return false;
    }
    list.push_back(id);
    return true;
  }
  // Takes `id` out of `list`, the session's: where the session sat in the id's shared list, or
  // nullopt when the session does not hold it.
  std::optional<size_t> remove(const Session& session, std::vector<uint64_t>& list, uint64_t id) {
    const auto found = positions_.find(Key{&session, id});
    if (found == positions_.end()) return std::nullopt;
    const Place place = found->second;
    positions_.erase(found);
    if (place.in_list + 1 != list.size()) {
      list[place.in_list] = list.back();
      positions_.find(Key{&session, list[place.in_list]})->second.in_list = place.in_list;
    }
    list.pop_back();
    return place.shared;
  }
  // Where the session, which holds `id`, sits in the id's shared list; and its move there.
  size_t shared(const Session& session, uint64_t id) const {
    return positions_.find(Key{&session, id})->second.shared;
  }
  void move_shared(const Session& session, uint64_t id, size_t shared) {
    positions_.find(Key{&session, id})->second.shared = shared;
  }
  // Forgets every id of `list`, the session's (it leaves), and empties the list.
  void clear(const Session& session, std::vector<uint64_t>& list) {
    for (const uint64_t id : list) positions_.erase(Key{&session, id});
    list.clear();
  }
  // Ids held, all sessions together.
  size_t size() const { return positions_.size(); }

 private:
  struct Key {
    const Session* session;
    uint64_t id;
    bool operator==(const Key&) const = default;
  };
  struct Place {
    size_t in_list;  // in the session's list
    size_t shared;   // in the id's shared list
  };
  struct KeyHash {
    // noexcept: the nodes keep no copy of the hash (libstdc++ caches it for a hash that may
    // throw).
    size_t operator()(const Key& key) const noexcept {
      const auto session = reinterpret_cast<uintptr_t>(key.session);
      return std::hash<uint64_t>{}(key.id ^ (session * 0x9E3779B97F4A7C15ull));
    }
  };
  std::unordered_map<Key, Place, KeyHash, std::equal_to<>,
                     PoolAllocator<std::pair<const Key, Place>>>
      positions_;
};

}  // namespace benchgate::router::wamp
