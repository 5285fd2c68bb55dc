// The routing state of one realm: the procedures registered in it and the topics subscribed
// in it. Sessions in different realms share nothing. A realm exists while sessions are
// attached to it (realms are created on demand: any realm name is accepted).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace benchgate::router::wamp {

class Session;

// REGISTER.Options.invoke: which of a shared registration's callees gets a call.
enum class InvokePolicy : uint8_t { kSingle, kRoundRobin, kRandom, kFirst, kLast };

struct Registration {
  uint64_t id = 0;
  InvokePolicy policy = InvokePolicy::kSingle;
  // In the order they registered; one unless the policy shares the registration. A callee
  // that leaves is a nullptr here until more than half are (then the list is compacted), so
  // that taking one out of n costs no shift of the n and the others keep their order: the
  // last entry and the one at `first` are always a callee (router/wamp/dealer.cc, choose and
  // leave_registration).
  std::vector<Session*> callees;
  size_t live = 0;   // callees that are not nullptr
  size_t first = 0;  // the first of them
  // roundrobin: where the search for the next callee starts (the entry after the one that got
  // the last call), so that each call goes to the next callee in registration order.
  size_t next = 0;
};

struct Subscription {
  uint64_t id = 0;
  std::string topic;
  // Every subscriber of the topic shares the subscription id (exact matching). In no
  // particular order: one that leaves is replaced by the last (router/wamp/broker.cc).
  std::vector<Session*> subscribers;
};

// URI-keyed maps look up a std::string_view as it is (a URI read in place from a message,
// router/wamp/message_view.h), without making a std::string of it first.
struct UriHash {
  using is_transparent = void;
  size_t operator()(std::string_view uri) const { return std::hash<std::string_view>{}(uri); }
};
template <typename T>
using UriMap = std::unordered_map<std::string, T, UriHash, std::equal_to<>>;

struct Realm {
  std::string name;
  int64_t sessions = 0;
  UriMap<Registration> procedures;                                // by procedure URI
  std::unordered_map<uint64_t, std::string> registration_uris;    // registration id -> URI
  UriMap<Subscription> topics;                                    // by topic URI
  std::unordered_map<uint64_t, std::string> subscription_topics;  // subscription id -> topic
};

}  // namespace benchgate::router::wamp
