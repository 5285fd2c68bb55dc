// Routed messages without a document (see routing_frames.h).
#include "router/wamp/routing_frames.h"

#include <vector>

#include "common/serialization/base64.h"
#include "common/serialization/message_writer.h"
#include "router/wamp/message_type.h"

namespace benchgate::router::wamp {
namespace {

using ::benchgate::wamp::code;
using serialization::MessageWriter;

// The payload elements of `from` from `first` on, in the writer's serialization `to`.
void write_payload(MessageWriter& w, Serializer to, const MessageView& from, size_t first) {
  for (size_t i = first; i < from.size; ++i) {
    const std::span<const uint8_t> bytes = from[i].bytes;
    if (from.serializer == to) {
      w.raw(bytes);
      continue;
    }
    // Another serializer: through a document (read_view checked the bytes as the decoder does,
    // so they decode).
    Json value;
    decode(from.serializer, bytes, value);
    std::vector<uint8_t> encoded;
    encoded.reserve(encoded_size_hint(to, value));
    encode(to, value, encoded);
    w.raw(encoded);
  }
}

}  // namespace

Frame result_frame(FramePool& pool, Serializer to, uint64_t request, bool progress,
                   const MessageView& from, size_t first) {
  auto frame = pool.take();
  MessageWriter w(to, *frame);
  w.begin_array(3 + from.size - first);
  w.uint(code(MessageType::kResult));
  w.uint(request);
  if (progress) {
    w.bool_map("progress", true);
  } else {
    w.empty_map();
  }
  write_payload(w, to, from, first);
  w.end_array();
  return frame;
}

Frame invocation_frame(FramePool& pool, Serializer to, uint64_t invocation, uint64_t registration,
                       bool receive_progress, const MessageView& from, size_t first) {
  auto frame = pool.take();
  MessageWriter w(to, *frame);
  w.begin_array(4 + from.size - first);
  w.uint(code(MessageType::kInvocation));
  w.uint(invocation);
  w.uint(registration);
  if (receive_progress) {
    w.bool_map("receive_progress", true);
  } else {
    w.empty_map();
  }
  write_payload(w, to, from, first);
  w.end_array();
  return frame;
}

Frame event_frame(FramePool& pool, Serializer to, uint64_t subscription, uint64_t publication,
                  const MessageView& from, size_t first) {
  auto frame = pool.take();
  MessageWriter w(to, *frame);
  w.begin_array(4 + from.size - first);
  w.uint(code(MessageType::kEvent));
  w.uint(subscription);
  w.uint(publication);
  w.empty_map();
  write_payload(w, to, from, first);
  w.end_array();
  return frame;
}

Frame transfer_chunk_frame(FramePool& pool, Serializer to, uint64_t request, uint64_t offset,
                           std::span<const uint8_t> chunk) {
  auto frame = pool.take();
  // Room for the whole message before it is written: the few bytes after a JSON chunk's base64
  // (reserved exactly) would otherwise double the buffer, and a queued frame counts what its
  // buffer holds against --max-queued-bytes (router/wamp/connection.h). 128 bytes cover the
  // rest of [RESULT, request, {"progress": true}, [offset, chunk]] in every serializer.
  frame->reserve(
      128 + (to == Serializer::kJson ? serialization::base64_size(chunk.size()) : chunk.size()));
  MessageWriter w(to, *frame);
  w.begin_array(4);
  w.uint(code(MessageType::kResult));
  w.uint(request);
  w.bool_map("progress", true);
  w.begin_array(2);
  w.uint(offset);
  w.binary(chunk);
  w.end_array();
  w.end_array();
  return frame;
}

Frame published_frame(FramePool& pool, Serializer to, uint64_t request, uint64_t publication) {
  auto frame = pool.take();
  MessageWriter w(to, *frame);
  w.begin_array(3);
  w.uint(code(MessageType::kPublished));
  w.uint(request);
  w.uint(publication);
  w.end_array();
  return frame;
}

}  // namespace benchgate::router::wamp
