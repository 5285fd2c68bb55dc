// The dealer's pending calls by caller and CALL request id, so that a CANCEL finds its call
// without a scan of the caller's pending calls (router/wamp/dealer.h): a hash table whose
// buckets are lists linked through the calls themselves (Call::request_next), so that
// indexing a call allocates nothing. The buckets are a power of two, at least as many as the
// calls indexed: they double when a call would pass that (a new peak of calls pending in the
// router, as the dealer's own map of pending calls grows its buckets) and are never shrunk,
// so once the peak is reached a routed call costs two bucket links and no allocation. Nothing
// of it is per session.
//
// A template over the call's node (PendingCall in the router, a plain struct in the tests):
// it needs `caller` (a pointer), `caller_request` (uint64_t) and `request_next` (a Call*),
// and stays where it is while indexed. Request ids are not checked for uniqueness: where a
// caller has two calls indexed under one request id, find() answers either one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace benchgate::router::wamp {

template <typename Call>
class CallIndex {
 public:
  // Indexes `call` under its caller and caller_request.
  void insert(Call& call) {
    if (size_ == buckets_.size()) grow();
    link(call);
    ++size_;
  }
  // Takes out `call`, which must be indexed.
  void erase(Call& call) {
    Call** at = &buckets_[bucket(call.caller, call.caller_request)];
    while (*at != &call) at = &(*at)->request_next;
    *at = call.request_next;
    call.request_next = nullptr;
    --size_;
  }
  // A call of `caller` under `request`, nullptr when none is indexed.
  template <typename Caller>
  Call* find(const Caller* caller, uint64_t request) const {
    if (size_ == 0) return nullptr;
    for (Call* call = buckets_[bucket(caller, request)]; call != nullptr;
         call = call->request_next) {
      if (call->caller == caller && call->caller_request == request) return call;
    }
    return nullptr;
  }
  // The calls in the list find(caller, request) walks (for tests).
  template <typename Caller>
  size_t list_length(const Caller* caller, uint64_t request) const {
    if (size_ == 0) return 0;
    size_t length = 0;
    for (const Call* call = buckets_[bucket(caller, request)]; call != nullptr;
         call = call->request_next) {
      ++length;
    }
    return length;
  }
  size_t size() const { return size_; }
  size_t bucket_count() const { return buckets_.size(); }

 private:
  static constexpr size_t kFirstBuckets = 16;

  size_t bucket(const void* caller, uint64_t request) const {
    // A multiplicative hash of both (libstdc++'s std::hash of an integer is the integer): the
    // high bits pick the bucket, so consecutive request ids of one caller spread out.
    const uint64_t key =
        (static_cast<uint64_t>(reinterpret_cast<uintptr_t>(caller)) * 0x9E3779B97F4A7C15u) ^
        request;
    return static_cast<size_t>((key * 0xBF58476D1CE4E5B9u) >> shift_);
  }
  void link(Call& call) {
    Call*& head = buckets_[bucket(call.caller, call.caller_request)];
    call.request_next = head;
    head = &call;
  }
  void grow() {
    std::vector<Call*> old(buckets_.empty() ? kFirstBuckets : 2 * buckets_.size(), nullptr);
    old.swap(buckets_);
    shift_ = 64;
    for (size_t n = buckets_.size(); n > 1; n >>= 1) --shift_;
    for (Call* head : old) {
      while (head != nullptr) {
        Call* next = head->request_next;
        link(*head);
        head = next;
      }
    }
  }

  // Heads of the bucket lists; empty until the first call.
  std::vector<Call*> buckets_;
  size_t size_ = 0;
  // 64 - log2(buckets_.size()).
  int shift_ = 64;
};

}  // namespace benchgate::router::wamp
