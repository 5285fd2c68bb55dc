// Whether router/wamp/message_view.h, and the reader under it (value_view.h's read_elements(),
// which the worker uses too), read a message as the document path does: a message read_view()
// accepts must decode, pass check_client_message() with the same type, and have the same
// elements (each element's bytes decoding to the document's element, its kind, id and URI
// agreeing), and find_option() must agree with the document's Options|dict. Shared by the
// unit test (tests/unit/router/wamp_message_view_test.cc) and the fuzz target
// (fuzz/wamp_message_fuzz.cc).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "router/wamp/message_check.h"
#include "router/wamp/message_view.h"
#include "router/wamp/serializer.h"

namespace benchgate::router::wamp::testing {

inline bool element_agrees(Serializer serializer, const ViewElement& element, const Json& value) {
  using Kind = ViewElement::Kind;
  switch (element.kind) {
    case Kind::unsigned_int:
      if (!value.is_number_unsigned() || value.get<uint64_t>() != element.number) return false;
      break;
    case Kind::boolean:
      if (!value.is_boolean() || value.get<bool>() != (element.number == 1)) return false;
      break;
    case Kind::string:
      if (!value.is_string()) return false;
      if (!element.escaped && value.get_ref<const std::string&>() != element.text) return false;
      break;
    case Kind::dict:
      if (!value.is_object()) return false;
      break;
    case Kind::list:
      if (!value.is_array()) return false;
      break;
    case Kind::other:
      if (value.is_number_unsigned() || value.is_boolean() || value.is_string() ||
          value.is_object() || value.is_array()) {
        return false;
      }
      break;
  }
  Json again;
  if (!decode(serializer, element.bytes, again)) return false;
  // A NaN is not equal to itself: the same bits are (nlohmann's MessagePack keeps a double's).
  return again == value || Json::to_msgpack(again) == Json::to_msgpack(value);
}

inline bool option_agrees(Serializer serializer, const ViewElement& dict, const Json& options,
                          const char* key) {
  const Option option = find_option(serializer, dict.bytes, key);
  const auto found = options.find(key);
  switch (option.kind) {
    case Option::Kind::unknown:
      return true;  // the document path decides
    case Option::Kind::absent:
      return found == options.end();
    case Option::Kind::unsigned_int:
      return found != options.end() && found->is_number_unsigned() &&
             found->get<uint64_t>() == option.number;
    case Option::Kind::boolean:
      return found != options.end() && found->is_boolean() &&
             found->get<bool>() == (option.number == 1);
    case Option::Kind::other:
      return found != options.end() && !found->is_number_unsigned() && !found->is_boolean();
  }
  return false;
}

// True when read_elements() (common/serialization/value_view.h, what the worker reads its
// answers with: RESULT, PUBLISHED, EVENT, INVOCATION) refuses `bytes`, or reads an array the
// decoder accepts with the same elements. The router's decoder makes JSON's NUL strings
// binary; the worker's keeps them as strings, and accepts whatever this one does.
inline bool elements_agree(Serializer serializer, std::span<const uint8_t> bytes) {
  std::array<ViewElement, kMaxViewElements> elements;
  size_t size = 0;
  if (!serialization::read_elements(serializer, bytes, elements, size)) return true;
  Json message;
  if (!decode(serializer, bytes, message) || !message.is_array() || message.size() != size) {
    return false;
  }
  for (size_t i = 0; i < size; ++i) {
    if (!element_agrees(serializer, elements[i], message[i])) return false;
  }
  return true;
}

// True when read_view() refuses `bytes` (the document path reads it), or reads it as the
// document path does.
inline bool view_agrees(Serializer serializer, std::span<const uint8_t> bytes) {
  MessageView view;
  if (!read_view(serializer, bytes, view)) return true;
  Json message;
  if (!decode(serializer, bytes, message)) return false;
  const CheckResult check = check_client_message(message);
  if (!check.ok() || check.type != view.type || message.size() != view.size) return false;
  for (size_t i = 0; i < view.size; ++i) {
    if (!element_agrees(serializer, view[i], message[i])) return false;
  }
  for (const char* key : {"acknowledge", "exclude_me", "timeout", "receive_progress", "progress"}) {
    if (!option_agrees(serializer, view[2], message[2], key)) return false;
  }
  return true;
}

}  // namespace benchgate::router::wamp::testing
