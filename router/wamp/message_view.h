// The messages a router routes per operation (CALL, YIELD, PUBLISH), read in place by
// common/serialization/value_view.h: no nlohmann::json document, nothing allocated. Options|dict
// is read key by key (find_option), Arguments|list and ArgumentsKw|dict stay the bytes they came
// in, to be passed on as they are to a peer using the same serializer
// (router/wamp/routing_frames.h).
//
// read_view() is true only for a message that the document path (decode() and
// check_client_message()) would accept with the same type and elements: the elements as
// read_elements() reads them (what it leaves to the decoders, read_view leaves to the document
// path), the element count and types as message_check.cc's shapes say; an id written as a
// signed integer, or more elements than any of the three types has, goes to the document path
// too, which gives the same answer it always gave. fuzz/wamp_message_fuzz.cc checks both agree.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "common/serialization/value_view.h"
#include "router/wamp/message_type.h"
#include "router/wamp/serializer.h"

namespace benchgate::router::wamp {

using serialization::find_option;
using serialization::Option;
using serialization::ViewElement;

inline constexpr size_t kMaxViewElements = 6;

struct MessageView {
  Serializer serializer = Serializer::kJson;
  MessageType type = MessageType::kHello;
  size_t size = 0;  // elements, the type code included
  std::array<ViewElement, kMaxViewElements> elements{};
  const ViewElement& operator[](size_t i) const { return elements[i]; }
};

// Reads a CALL, YIELD or PUBLISH; false for anything else, and for whatever the document path
// has to read (see above).
bool read_view(Serializer serializer, std::span<const uint8_t> bytes, MessageView& out);

}  // namespace benchgate::router::wamp
