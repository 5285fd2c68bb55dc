// The messages the router routes per operation, written straight into a buffer of the WAMP
// thread's FramePool (router/wamp/frame_pool.h) with common/serialization/message_writer.h:
// no nlohmann::json document. The payload (Arguments|list and ArgumentsKw|dict of a message
// read in place, router/wamp/message_view.h) is copied as the bytes it came in when the
// receiving session uses the sender's serializer; for another serializer each of the two is
// decoded and encoded again (router/wamp/serializer.h), as every message was before.
#pragma once

#include <cstdint>
#include <span>

#include "router/wamp/frame_pool.h"
#include "router/wamp/message_view.h"
#include "router/wamp/peer.h"

namespace benchgate::router::wamp {

// [RESULT, request, Details, payload...]: Details {"progress": true} when `progress`, else {}.
// The payload: the elements of `from` from index `first` on.
Frame result_frame(FramePool& pool, Serializer to, uint64_t request, bool progress,
                   const MessageView& from, size_t first);
// [INVOCATION, invocation, registration, Details, payload...]: Details
// {"receive_progress": true} when `receive_progress`, else {}.
Frame invocation_frame(FramePool& pool, Serializer to, uint64_t invocation, uint64_t registration,
                       bool receive_progress, const MessageView& from, size_t first);
// [EVENT, subscription, publication, {}, payload...]
Frame event_frame(FramePool& pool, Serializer to, uint64_t subscription, uint64_t publication,
                  const MessageView& from, size_t first);
// [RESULT, request, {"progress": true}, [offset, chunk]]: one of bench.transfer's progressive
// results, the chunk as a binary value (base64 in JSON).
Frame transfer_chunk_frame(FramePool& pool, Serializer to, uint64_t request, uint64_t offset,
                           std::span<const uint8_t> chunk);
// [PUBLISHED, request, publication]
Frame published_frame(FramePool& pool, Serializer to, uint64_t request, uint64_t publication);

}  // namespace benchgate::router::wamp
