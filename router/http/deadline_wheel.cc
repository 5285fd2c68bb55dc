// One timer for a serving thread's session deadlines (see deadline_wheel.h).
#include "router/http/deadline_wheel.h"

#include <algorithm>

#include "common/time/clock.h"
#include "common/util/pooled_handler.h"

namespace benchgate::router::http {

DeadlineWheel::DeadlineWheel(const boost::asio::any_io_executor& executor, int64_t tick_ns, Due due)
    : tick_ns_(std::max<int64_t>(tick_ns, 1)),
      due_(due),
      next_tick_(steady_now_ns() / tick_ns_),
      timer_(executor) {}

int64_t DeadlineWheel::tick_for(int64_t check_interval_ns) {
  return std::max<int64_t>(check_interval_ns / 16, 1'000'000);
}

void DeadlineWheel::schedule(DeadlineEntry& entry, int64_t at_ns, int64_t now_ns) {
  entry.unschedule();
  if (stopped_) return;
  const int64_t now_tick = now_ns / tick_ns_;
  // With nothing in the wheel every slot is empty, so the ticks up to now count as swept. (A
  // sweep keeps armed_ set while it calls back, so this never moves the ticks it walks.)
  if (!armed_) next_tick_ = std::max(next_tick_, now_tick + 1);
  const int64_t due_tick = at_ns <= 0 ? 0 : (at_ns + tick_ns_ - 1) / tick_ns_;
  const int64_t tick = std::clamp(due_tick, next_tick_, next_tick_ + kSlots - 1);
  slots_[static_cast<size_t>(tick % kSlots)].push_back(entry);
  if (!armed_ || tick < armed_tick_) arm(tick);
}

void DeadlineWheel::stop() {
  stopped_ = true;
  armed_ = false;
  timer_.cancel();
  for (List& slot : slots_) slot.clear();
}

void DeadlineWheel::arm(int64_t tick) {
  armed_ = true;
  armed_tick_ = tick;
  // expires_at() cancels a wait still pending for a later tick: its handler sees
  // operation_aborted and leaves everything as it is.
  timer_.expires_at(steady_point(tick * tick_ns_));
  // The wait's operation comes from the thread's size-class pool (common/util/pooled_handler.h),
  // not from the two blocks Asio recycles a thread, which a busy connection's posted read and
  // its write reuse request after request: a wait re-armed in one of those, when the timer
  // fired, took the block the connection's next write would have found, and that write
  // allocated (tests/alloc). A wait still queued when the wheel goes (its io_context destroyed
  // after it) frees its block into the pool of the thread that destroys it.
  timer_.async_wait(pooled([this](const boost::system::error_code& ec) { on_timer(ec); }));
}

void DeadlineWheel::arm_next() {
  for (int64_t tick = next_tick_; tick < next_tick_ + kSlots; ++tick) {
    if (!slots_[static_cast<size_t>(tick % kSlots)].empty()) return arm(tick);
  }
}

void DeadlineWheel::on_timer(const boost::system::error_code& ec) {
  if (ec || stopped_) return;
  const int64_t now_ns = steady_now_ns();
  const int64_t now_tick = now_ns / tick_ns_;
  // Every tick up to now, in order; after a long stall at most kSlots of them (then every
  // slot). An entry called back here that schedules itself again lands on a later tick: a
  // tick up to now_tick (a deadline already passed) is swept in this loop, a later one waits.
  for (int64_t tick = std::max(next_tick_, now_tick - kSlots + 1); tick <= now_tick; ++tick) {
    next_tick_ = tick + 1;
    List due;
    due.splice(due.end(), slots_[static_cast<size_t>(tick % kSlots)]);
    while (!due.empty()) {
      DeadlineEntry& entry = due.front();
      due.pop_front();
      due_(entry, now_ns);
      if (stopped_) return;
    }
  }
  next_tick_ = std::max(next_tick_, now_tick + 1);
  armed_ = false;
  arm_next();
}

}  // namespace benchgate::router::http
