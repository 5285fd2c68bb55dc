// The broker role: SUBSCRIBE / UNSUBSCRIBE / PUBLISH (with acknowledge and exclude_me) and
// EVENT fan-out, exact topic match. An EVENT is serialized once per serializer in use among
// the subscribers, not once per subscriber.
#pragma once

#include "router/wamp/serializer.h"

namespace benchgate::router::wamp {

class Session;
class WampCore;

class Broker {
 public:
  explicit Broker(WampCore& core) : core_(core) {}

  void on_subscribe(Session& session, Json& message);
  void on_unsubscribe(Session& session, Json& message);
  void on_publish(Session& publisher, Json& message);
  void session_left(Session& session);

 private:
  WampCore& core_;
};

}  // namespace benchgate::router::wamp
