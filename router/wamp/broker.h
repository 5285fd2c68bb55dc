// The broker role: SUBSCRIBE / UNSUBSCRIBE / PUBLISH (with acknowledge and exclude_me) and
// EVENT fan-out, exact topic match. An EVENT is serialized once per serializer in use among
// the subscribers, not once per subscriber. A session subscribes to at most
// --max-subscriptions-per-session topics.
#pragma once

#include "router/wamp/message_view.h"
#include "router/wamp/serializer.h"
#include "router/wamp/session_ids.h"

namespace benchgate::router::wamp {

class Session;
class WampCore;

class Broker {
 public:
  explicit Broker(WampCore& core) : core_(core) {}

  void on_subscribe(Session& session, Json& message);
  void on_unsubscribe(Session& session, Json& message);
  void on_publish(Session& publisher, Json& message);
  // PUBLISH read in place (router/wamp/message_view.h), routed as on_publish routes it,
  // without a document (router/wamp/routing_frames.h). False, with nothing done, where the
  // message needs the document path: an invalid topic, an option key the view cannot read.
  bool route_publish(Session& publisher, const MessageView& message);
  void session_left(Session& session);

 private:
  WampCore& core_;
  // Where each of a session's subscription ids sits in Session::subscriptions.
  SessionIds subscriptions_;
};

}  // namespace benchgate::router::wamp
