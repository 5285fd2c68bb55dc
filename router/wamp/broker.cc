// Pub/sub routing (see broker.h).
#include "router/wamp/broker.h"

#include <algorithm>
#include <array>
#include <string>

#include "router/wamp/core.h"
#include "router/wamp/message_check.h"
#include "router/wamp/realm.h"
#include "router/wamp/routing_frames.h"
#include "router/wamp/session.h"

namespace benchgate::router::wamp {
namespace {

bool flag(const Json& options, const char* name, bool fallback) {
  const auto found = options.find(name);
  return found != options.end() && found->is_boolean() ? found->get<bool>() : fallback;
}

bool exact_match(const Json& options) {
  const auto match = options.find("match");
  return match == options.end() ||
         (match->is_string() && match->get_ref<const std::string&>() == "exact");
}

}  // namespace

void Broker::on_subscribe(Session& session, Json& message) {
  const uint64_t request = id_of(message[1]);
  const std::string& topic = message[3].get_ref<const std::string&>();
  if (!is_valid_uri(topic)) {
    session.send_error(MessageType::kSubscribe, request, "wamp.error.invalid_uri");
    return;
  }
  if (!exact_match(message[2])) {
    session.send_error(MessageType::kSubscribe, request, "wamp.error.invalid_argument");
    return;
  }
  Realm& realm = *session.realm();
  auto it = realm.topics.find(topic);
  // Subscribing again to a topic the session is subscribed to answers with the same id.
  const bool subscribed =
      it != realm.topics.end() && subscriptions_.contains(session, it->second.id);
  if (!subscribed &&
      session.subscriptions.size() >= core_.options().max_subscriptions_per_session) {
    session.refuse(metrics::SessionLimit::subscriptions, MessageType::kSubscribe, request);
    return;
  }
  const bool created = it == realm.topics.end();
  if (created) it = realm.topics.try_emplace(topic).first;
  Subscription& subscription = it->second;
  if (created) {
    subscription.id = core_.next_id();
    subscription.topic = topic;
    realm.subscription_topics.emplace(subscription.id, topic);
  }
  if (!subscribed) {
    subscriptions_.add(session, session.subscriptions, subscription.id,
                       subscription.subscribers.size());
    subscription.subscribers.push_back(&session);
  }
  session.send(Json::array({static_cast<int>(MessageType::kSubscribed), request, subscription.id}));
}

namespace {

// Removes the subscriber at `at` from the subscription `id`, moving the last one into its place
// (`index` learns where it went); the subscription goes with its last subscriber.
void remove_subscriber(Realm& realm, uint64_t id, size_t at, SessionIds& index) {
  const auto topic = realm.subscription_topics.find(id);
  if (topic == realm.subscription_topics.end()) return;
  const auto found = realm.topics.find(topic->second);
  if (found == realm.topics.end()) return;
  auto& subscribers = found->second.subscribers;
  if (at + 1 != subscribers.size()) {
    subscribers[at] = subscribers.back();
    index.move_shared(*subscribers[at], id, at);
  }
  subscribers.pop_back();
  if (subscribers.empty()) {
    realm.topics.erase(found);
    realm.subscription_topics.erase(topic);
  }
}

}  // namespace

void Broker::on_unsubscribe(Session& session, Json& message) {
  const uint64_t request = id_of(message[1]);
  const uint64_t id = id_of(message[2]);
  const auto at = subscriptions_.remove(session, session.subscriptions, id);
  if (!at) {
    session.send_error(MessageType::kUnsubscribe, request, "wamp.error.no_such_subscription");
    return;
  }
  remove_subscriber(*session.realm(), id, *at, subscriptions_);
  session.send(Json::array({static_cast<int>(MessageType::kUnsubscribed), request}));
}

void Broker::on_publish(Session& publisher, Json& message) {
  const uint64_t request = id_of(message[1]);
  const Json& options = message[2];
  const bool acknowledge = flag(options, "acknowledge", false);
  const std::string& topic = message[3].get_ref<const std::string&>();
  if (!is_valid_uri(topic)) {
    if (acknowledge) publisher.send_error(MessageType::kPublish, request, "wamp.error.invalid_uri");
    return;
  }
  const bool exclude_me = flag(options, "exclude_me", true);
  const uint64_t publication = core_.random_id();
  Realm& realm = *publisher.realm();
  const auto found = realm.topics.find(topic);
  if (found != realm.topics.end()) {
    const Subscription& subscription = found->second;
    Json event = Json::array(
        {static_cast<int>(MessageType::kEvent), subscription.id, publication, Json::object()});
    for (size_t i = 4; i < message.size(); ++i) event.push_back(std::move(message[i]));
    // One serialization per serializer in use among the subscribers.
    std::array<Frame, kSerializerCount> frames;
    uint64_t delivered = 0;
    for (Session* subscriber : subscription.subscribers) {
      if (exclude_me && subscriber == &publisher) continue;
      Frame& frame = frames[static_cast<size_t>(subscriber->serializer())];
      if (!frame) {
        auto buffer = std::make_shared<std::vector<uint8_t>>();
        buffer->reserve(encoded_size_hint(subscriber->serializer(), event));
        encode(subscriber->serializer(), event, *buffer);
        frame = std::move(buffer);
      }
      if (subscriber->send_frame(frame, MessageType::kEvent) == SendResult::sent) ++delivered;
    }
    core_.stats().counters.events_delivered += delivered;
  }
  if (acknowledge) {
    publisher.send(Json::array({static_cast<int>(MessageType::kPublished), request, publication}));
  }
}

bool Broker::route_publish(Session& publisher, const MessageView& message) {
  const Serializer serializer = publisher.serializer();
  const Option acknowledge = find_option(serializer, message[2].bytes, "acknowledge");
  const Option exclude_me = find_option(serializer, message[2].bytes, "exclude_me");
  if (acknowledge.kind == Option::Kind::unknown || exclude_me.kind == Option::Kind::unknown ||
      message[3].escaped || !is_valid_uri(message[3].text)) {
    return false;
  }
  const uint64_t request = message[1].number;
  const uint64_t publication = core_.random_id();
  Realm& realm = *publisher.realm();
  const auto found = realm.topics.find(message[3].text);
  if (found != realm.topics.end()) {
    const Subscription& subscription = found->second;
    // A flag that is not a boolean counts as absent, as on_publish reads it.
    const bool exclude = exclude_me.kind == Option::Kind::boolean ? exclude_me.number == 1 : true;
    std::array<Frame, kSerializerCount> frames;
    uint64_t delivered = 0;
    for (Session* subscriber : subscription.subscribers) {
      if (exclude && subscriber == &publisher) continue;
      Frame& frame = frames[static_cast<size_t>(subscriber->serializer())];
      if (!frame) {
        frame = event_frame(core_.frame_pool(), subscriber->serializer(), subscription.id,
                            publication, message, 4);
      }
      if (subscriber->send_frame(frame, MessageType::kEvent) == SendResult::sent) ++delivered;
    }
    core_.stats().counters.events_delivered += delivered;
  }
  if (acknowledge.is_true()) {
    publisher.send_frame(published_frame(core_.frame_pool(), serializer, request, publication),
                         MessageType::kPublished);
  }
  return true;
}

void Broker::session_left(Session& session) {
  Realm* realm = session.realm();
  if (realm != nullptr) {
    for (const uint64_t id : session.subscriptions) {
      remove_subscriber(*realm, id, subscriptions_.shared(session, id), subscriptions_);
    }
  }
  subscriptions_.clear(session, session.subscriptions);
}

}  // namespace benchgate::router::wamp
