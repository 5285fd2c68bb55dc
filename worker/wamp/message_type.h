// The WAMP message type codes, as the client uses them (common/wamp/message_type.h).
#pragma once

#include "common/wamp/message_type.h"

namespace benchgate::worker::wamp {

using ::benchgate::wamp::code;
using ::benchgate::wamp::MessageType;

}  // namespace benchgate::worker::wamp
