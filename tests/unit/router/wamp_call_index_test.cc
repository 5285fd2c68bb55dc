// The dealer's index of pending calls by caller and request id (router/wamp/call_index.h),
// which a CANCEL looks its call up in: every indexed call is found, a call taken out is not,
// the buckets grow past a peak and not again below it, and a lookup visits one bucket's list,
// not every call.
#include "router/wamp/call_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>

namespace benchgate::router::wamp {
namespace {

struct IndexedCaller {
  int id = 0;
};

struct IndexedCall {
  IndexedCaller* caller = nullptr;
  uint64_t caller_request = 0;
  IndexedCall* request_next = nullptr;
};

TEST(WampCallIndex, FindsEveryPendingCallByCallerAndRequest) {
  // Three callers of 4,096 pending calls each (--max-pending-calls-per-session), request ids
  // 1, 2, 3, ... in each, as WAMP clients number them.
  IndexedCaller callers[3];
  std::deque<IndexedCall> calls;  // stays where it is, as the dealer's map nodes do
  CallIndex<IndexedCall> index;
  for (uint64_t request = 1; request <= 4096; ++request) {
    for (IndexedCaller& caller : callers) {
      calls.push_back(IndexedCall{&caller, request});
      index.insert(calls.back());
    }
  }
  EXPECT_EQ(index.size(), 3u * 4096);
  EXPECT_EQ(index.bucket_count(), 16384u);  // the power of two at or past the calls indexed
  for (const IndexedCall& call : calls) {
    EXPECT_EQ(index.find(call.caller, call.caller_request), &call);
  }
  // A lookup walks one bucket's list: a few calls, where a scan of the caller's pending calls
  // walked up to 4,096 (and the 12,288 of three callers share 16,384 lists).
  size_t longest = 0;
  for (const IndexedCall& call : calls) {
    longest = std::max(longest, index.list_length(call.caller, call.caller_request));
  }
  EXPECT_LE(longest, 16u);
  EXPECT_EQ(index.find(&callers[0], 0), nullptr);
  EXPECT_EQ(index.find(&callers[0], 4097), nullptr);
  const IndexedCaller stranger;
  EXPECT_EQ(index.find(&stranger, 1), nullptr);

  // Every other call ends: those are gone, the others still found, the buckets stay.
  for (size_t i = 0; i < calls.size(); i += 2) index.erase(calls[i]);
  EXPECT_EQ(index.size(), 3u * 2048);
  for (size_t i = 0; i < calls.size(); ++i) {
    const IndexedCall* found = index.find(calls[i].caller, calls[i].caller_request);
    EXPECT_EQ(found, i % 2 == 0 ? nullptr : &calls[i]) << i;
  }
  // Back to the peak: no bucket more (what the dealer's steady state relies on: no allocation).
  for (size_t i = 0; i < calls.size(); i += 2) index.insert(calls[i]);
  EXPECT_EQ(index.bucket_count(), 16384u);
  for (const IndexedCall& call : calls) {
    EXPECT_EQ(index.find(call.caller, call.caller_request), &call);
  }
  for (IndexedCall& call : calls) index.erase(call);
  EXPECT_EQ(index.size(), 0u);
  EXPECT_EQ(index.find(&callers[1], 7), nullptr);
}

TEST(WampCallIndex, ARequestIdUsedTwiceFindsEitherCallUntilBothEnd) {
  IndexedCaller caller;
  IndexedCall first{&caller, 5};
  IndexedCall second{&caller, 5};
  CallIndex<IndexedCall> index;
  index.insert(first);
  index.insert(second);
  const IndexedCall* found = index.find(&caller, 5);
  EXPECT_TRUE(found == &first || found == &second);
  index.erase(second);
  EXPECT_EQ(index.find(&caller, 5), &first);
  index.erase(first);
  EXPECT_EQ(index.find(&caller, 5), nullptr);
}

}  // namespace
}  // namespace benchgate::router::wamp
