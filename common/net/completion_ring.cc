// The thread's io_uring (see completion_ring.h).
#include "common/net/completion_ring.h"

#include <liburing.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <boost/asio/error.hpp>
#include <cerrno>
#include <cstring>

#include "common/net/asio_access.h"

namespace benchgate::net {

namespace asio = boost::asio;
using boost::system::error_code;

asio::io_context::id CompletionRing::id;

namespace {

constexpr unsigned kSubmissionEntries = 256;
// Room for a completion per connection and direction at 2,048 connections; the kernel keeps
// what does not fit (IORING_FEAT_NODROP) and posts it later.
constexpr unsigned kCompletionEntries = 4096;
// The receive buffers: kBuffers of kBufferBytes, handed out by the kernel as bytes arrive and
// given back as soon as their completion was dispatched. A pool that runs dry ends a receive
// (ENOBUFS), which the ring starts again after the dispatch; nothing is lost.
constexpr unsigned kBuffers = 256;
constexpr size_t kBufferBytes = 16 * 1024;
constexpr uint16_t kBufferGroup = 0;

// user_data: slot (31 bits), kind (1 bit), tag (32 bits).
enum Kind : uint64_t { kReceive = 0, kSend = 1 };
uint64_t pack(uint32_t slot, Kind kind, uint32_t tag) {
  return (static_cast<uint64_t>(slot) << 33) | (static_cast<uint64_t>(kind) << 32) | tag;
}

error_code errno_code(int error) { return error_code(error, asio::error::get_system_category()); }

}  // namespace

// The kernel's ring, its buffer ring and the buffers.
struct CompletionRing::Ring {
  io_uring uring{};
  bool uring_up = false;
  io_uring_buf_ring* buffer_ring = nullptr;  // kBuffers entries, page-aligned
  size_t buffer_ring_bytes = 0;
  char* buffers = nullptr;  // kBuffers x kBufferBytes
  bool buffers_registered = false;

  ~Ring() {
    if (uring_up) {
      if (buffers_registered) io_uring_unregister_buf_ring(&uring, kBufferGroup);
      // Closing the ring cancels what is still in the kernel.
      io_uring_queue_exit(&uring);
    }
    if (buffer_ring != nullptr) ::munmap(buffer_ring, buffer_ring_bytes);
    if (buffers != nullptr) ::munmap(buffers, static_cast<size_t>(kBuffers) * kBufferBytes);
  }

  // Empty on success, else what failed.
  std::string open() {
    // COOP_TASKRUN: a completion that arrives while the thread runs waits for its next entry
    // into the kernel (the reactor's epoll_wait, the ring's submit) instead of interrupting it
    // (an inter-processor interrupt per arrival otherwise); a sleeping thread is still woken.
    // Older kernels refuse it: then without.
    int rc = -EINVAL;
    for (unsigned flags : {IORING_SETUP_COOP_TASKRUN, 0u}) {
      io_uring_params params{};
      params.flags = IORING_SETUP_CQSIZE | flags;
      params.cq_entries = kCompletionEntries;
      rc = io_uring_queue_init_params(kSubmissionEntries, &uring, &params);
      if (rc != -EINVAL) break;
    }
    if (rc < 0) return std::string("io_uring_setup: ") + std::strerror(-rc);
    uring_up = true;
    buffer_ring_bytes = kBuffers * sizeof(io_uring_buf);
    void* ring_memory = ::mmap(nullptr, buffer_ring_bytes, PROT_READ | PROT_WRITE,
                               MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    // Pages are given as the kernel writes into them: an idle thread holds none.
    void* buffer_memory = ::mmap(nullptr, static_cast<size_t>(kBuffers) * kBufferBytes,
                                 PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    if (ring_memory == MAP_FAILED || buffer_memory == MAP_FAILED) {
      if (ring_memory != MAP_FAILED) ::munmap(ring_memory, buffer_ring_bytes);
      if (buffer_memory != MAP_FAILED) {
        ::munmap(buffer_memory, static_cast<size_t>(kBuffers) * kBufferBytes);
      }
      return "mmap of the receive buffers failed";
    }
    buffer_ring = static_cast<io_uring_buf_ring*>(ring_memory);
    buffers = static_cast<char*>(buffer_memory);
    io_uring_buf_ring_init(buffer_ring);
    io_uring_buf_reg reg{};
    reg.ring_addr = reinterpret_cast<uint64_t>(buffer_ring);
    reg.ring_entries = kBuffers;
    reg.bgid = kBufferGroup;
    rc = io_uring_register_buf_ring(&uring, &reg, 0);
    if (rc < 0) {
      return std::string("io_uring buffer ring (Linux 5.19 or later): ") + std::strerror(-rc);
    }
    buffers_registered = true;
    for (unsigned i = 0; i < kBuffers; ++i) give_back(static_cast<uint16_t>(i));
    return {};
  }

  void give_back(uint16_t id) {
    io_uring_buf_ring_add(buffer_ring, buffers + static_cast<size_t>(id) * kBufferBytes,
                          kBufferBytes, id, io_uring_buf_ring_mask(kBuffers), 0);
    io_uring_buf_ring_advance(buffer_ring, 1);
  }
};

CompletionRing::CompletionRing(asio::io_context& io)
    : asio::io_context::service(io),
      // Made before this service if not yet there, so shut down after it.
      reactor_(asio::use_service<asio::detail::reactor>(io)),
      ring_(std::make_unique<Ring>()) {
  unavailable_ = ring_->open();
  if (unavailable_.empty() &&
      reactor_.register_descriptor(ring_->uring.ring_fd, reactor_data_) != 0) {
    unavailable_ = "the ring's descriptor could not join the reactor";
  }
  if (!unavailable_.empty()) {
    ring_.reset();
    stopped_ = true;
  }
}

CompletionRing::~CompletionRing() { stop(); }

void CompletionRing::shutdown() { stop(); }

void CompletionRing::stop() {
  if (!ring_) return;
  stopped_ = true;
  reactor_.deregister_descriptor(ring_->uring.ring_fd, reactor_data_, true);
  reactor_.cleanup_descriptor_data(reactor_data_);
  ring_.reset();
}

uint32_t CompletionRing::attach(RingTarget& target) {
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  slots_[slot] = Slot{&target, -1, 0};
  return slot;
}

void CompletionRing::detach(uint32_t slot) {
  if (slot >= slots_.size() || slots_[slot].target == nullptr) return;
  slots_[slot] = Slot{};
  free_slots_.push_back(slot);
}

bool CompletionRing::receive(uint32_t slot, uint32_t tag, int fd) {
  if (stopped_ || slot >= slots_.size()) return false;
  slots_[slot].fd = fd;
  slots_[slot].tag = tag;
  if (!queue_receive(slot)) return false;
  arm();
  return true;
}

void CompletionRing::end_receive(uint32_t slot) {
  if (slot < slots_.size()) slots_[slot].fd = -1;
}

bool CompletionRing::receiving(uint32_t slot, uint32_t tag) const {
  return slot < slots_.size() && slots_[slot].target != nullptr && slots_[slot].fd >= 0 &&
         slots_[slot].tag == tag;
}

::io_uring_sqe* CompletionRing::next_sqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_->uring);
  if (sqe != nullptr) return sqe;
  submit();
  return io_uring_get_sqe(&ring_->uring);
}

void CompletionRing::queued_one() {
  ++queued_;
  if (!dispatching_) submit();
}

// A multishot receive into the buffer group, for the slot's socket and tag.
bool CompletionRing::queue_receive(uint32_t slot) {
  io_uring_sqe* sqe = next_sqe();
  if (sqe == nullptr) return false;
  io_uring_prep_recv_multishot(sqe, slots_[slot].fd, nullptr, 0, 0);
  sqe->flags |= IOSQE_BUFFER_SELECT;
  sqe->buf_group = kBufferGroup;
  io_uring_sqe_set_data64(sqe, pack(slot, kReceive, slots_[slot].tag));
  queued_one();
  return true;
}

bool CompletionRing::send(uint32_t slot, uint32_t tag, int fd, const void* data, size_t bytes) {
  if (stopped_) return false;
  io_uring_sqe* sqe = next_sqe();
  if (sqe == nullptr) return false;
  io_uring_prep_send(sqe, fd, data, bytes, MSG_NOSIGNAL);
  io_uring_sqe_set_data64(sqe, pack(slot, kSend, tag));
  queued_one();
  arm();
  return true;
}

// Hands what was queued to the kernel. Sends on a socket with room, and receives on one that
// holds bytes, complete during the call; their completions are dispatched next.
void CompletionRing::submit() {
  if (queued_ == 0 || !ring_) return;
  for (;;) {
    const int rc = io_uring_submit(&ring_->uring);
    if (rc == -EINTR) continue;
    // Anything else left unsubmitted (EAGAIN, EBUSY: the kernel short of memory or holding
    // completions that did not fit) stays queued and goes with the next submit.
    if (rc >= 0)
      queued_ = rc >= static_cast<int>(queued_) ? 0 : queued_ - static_cast<uint32_t>(rc);
    return;
  }
}

void CompletionRing::arm() {
  if (armed_ || stopped_) return;
  armed_ = true;
  wait_.reset();
  reactor_.start_op(asio::detail::reactor::read_op, ring_->uring.ring_fd, reactor_data_, &wait_,
                    /*is_continuation=*/false, /*allow_speculative=*/true);
}

void CompletionRing::on_wake(const error_code& ec) {
  armed_ = false;
  if (ec || stopped_) return;
  dispatch();
  if (stopped_) return;
  // Completions still waiting were posted before this wake-up's edge was taken: no new edge
  // will report them. The reactor wakes the ring again once the handlers queued meanwhile ran.
  if (io_uring_cq_ready(&ring_->uring) > 0 || queued_ > 0) {
    asio_access::mark_read_edge(reactor_data_);
  }
  arm();
}

// Up to kRounds batches: each dispatches every completion waiting, then submits what the
// targets queued (their sends) in one system call, whose own completions make the next batch.
void CompletionRing::dispatch() {
  dispatching_ = true;
  for (int round = 0; round < kRounds && !stopped_; ++round) {
    io_uring_cqe* cqe = nullptr;
    unsigned head = 0;
    unsigned seen = 0;
    io_uring_for_each_cqe(&ring_->uring, head, cqe) {
      complete(cqe->user_data, cqe->res, cqe->flags);
      ++seen;
      if (stopped_) break;
    }
    if (stopped_) break;
    io_uring_cq_advance(&ring_->uring, seen);
    completions_ += seen;
    submit();
    if (io_uring_cq_ready(&ring_->uring) == 0) break;
  }
  dispatching_ = false;
}

void CompletionRing::complete(uint64_t user_data, int result, uint32_t flags) {
  const auto slot = static_cast<uint32_t>(user_data >> 33);
  const auto kind = static_cast<Kind>((user_data >> 32) & 1);
  const auto tag = static_cast<uint32_t>(user_data);
  RingTarget* target = slot < slots_.size() ? slots_[slot].target : nullptr;
  if (kind == kSend) {
    if (target == nullptr) return;
    if (result < 0) return target->on_sent(tag, errno_code(-result), 0);
    return target->on_sent(tag, {}, static_cast<size_t>(result));
  }
  const bool has_buffer = (flags & IORING_CQE_F_BUFFER) != 0;
  const auto buffer = static_cast<uint16_t>(flags >> IORING_CQE_BUFFER_SHIFT);
  const bool more = (flags & IORING_CQE_F_MORE) != 0;
  // A completion of the slot's current receive (not of a socket closed since).
  if (receiving(slot, tag)) {
    if (result > 0) {
      target->on_received(tag, {}, ring_->buffers + static_cast<size_t>(buffer) * kBufferBytes,
                          static_cast<size_t>(result));
    } else if (result == 0) {
      target->on_received(tag, {}, nullptr, 0);
    } else if (result != -ENOBUFS) {
      target->on_received(tag, errno_code(-result), nullptr, 0);
    }
  }
  if (stopped_) return;
  if (has_buffer) ring_->give_back(buffer);
  // A receive that ended without an end of stream or a failure (the pool ran dry, or the
  // kernel ended it with bytes) starts again, if the target still wants this socket.
  if (!more && (result > 0 || result == -ENOBUFS) && receiving(slot, tag)) queue_receive(slot);
}

}  // namespace benchgate::net
