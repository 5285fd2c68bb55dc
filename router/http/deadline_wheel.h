// The deadlines of one serving thread's HTTP/1.1 sessions (idle, header, body, TLS handshake,
// linger) under one timer, instead of a steady_timer per session.
//
// Why: a steady_timer is 120 bytes in the session, and its pending wait another ~150 bytes of
// Asio operation and timer-queue entry, for every connection, idle ones included (issue 19,
// goal 2: memory per idle connection). Here a session holds a list hook (16 bytes) and
// nothing is pending on its behalf.
//
// How: a session keeps its deadline in a field of its own and moves it with a store (the lazy
// deadline, router/http/session.h); the wheel only promises to call the session back ("due")
// at or after the instant it was scheduled for, and no more than one tick after it while the
// thread is not busy. The session then compares the clock with its deadline: passed, it
// closes; otherwise it schedules the next check at the deadline or one check interval from
// now, whichever comes first. The wheel is kSlots lists, one per tick (tick t is due at
// t * tick_ns on the steady clock), indexed by t modulo kSlots; an entry sits in one slot at
// most and moves with a few pointer stores. An instant more than kSlots - 1 ticks ahead is
// checked at the last slot's tick instead (the session schedules itself again then), and an
// instant already passed goes to the first tick not yet swept. The timer is armed only while
// some slot holds an entry, for the first such slot's tick, so an idle thread without
// connections has no wake-ups. Only the owning thread touches any of it.
#pragma once

#include <array>
#include <cstdint>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/intrusive/list.hpp>

namespace benchgate::router::http {

struct DeadlineTag;
using DeadlineHook =
    boost::intrusive::list_base_hook<boost::intrusive::tag<DeadlineTag>,
                                     boost::intrusive::link_mode<boost::intrusive::auto_unlink>>;

// What the wheel schedules: a session (it unlinks itself when it closes or is destroyed).
// While it is not in the wheel its hook may be in a list of its owner's (DeadlineList).
class DeadlineEntry : public DeadlineHook {
 public:
  DeadlineEntry() = default;
  DeadlineEntry(const DeadlineEntry&) = delete;
  DeadlineEntry& operator=(const DeadlineEntry&) = delete;

  bool scheduled() const { return is_linked(); }
  // Out of the wheel: no call back until scheduled again.
  void unschedule() {
    if (is_linked()) unlink();
  }

 protected:
  ~DeadlineEntry() = default;
};

using DeadlineList =
    boost::intrusive::list<DeadlineEntry, boost::intrusive::base_hook<DeadlineHook>,
                           boost::intrusive::constant_time_size<false>>;

class DeadlineWheel {
 public:
  // Called for an entry whose tick came, after it left the wheel, with the clock read once
  // per sweep; it may schedule itself again (for a later tick) or close.
  using Due = void (*)(DeadlineEntry& entry, int64_t now_ns);
  static constexpr int64_t kSlots = 32;

  // `tick_ns`: how late (at most) a due call comes, and the wheel's resolution (> 0).
  DeadlineWheel(const boost::asio::any_io_executor& executor, int64_t tick_ns, Due due);
  DeadlineWheel(const DeadlineWheel&) = delete;
  DeadlineWheel& operator=(const DeadlineWheel&) = delete;

  // The tick for sessions whose shortest timeout is `check_interval_ns`: a sixteenth of it,
  // at least 1 ms (so a deadline fires at most 1/16 of the shortest timeout late, 625 ms with
  // the defaults' 10 s header and TLS handshake timeouts).
  static int64_t tick_for(int64_t check_interval_ns);

  int64_t tick_ns() const { return tick_ns_; }
  // `entry` is called back at or after at_ns, within a tick of it (later only while the
  // thread is busy); an entry already scheduled moves. After stop(): unscheduled instead.
  void schedule(DeadlineEntry& entry, int64_t at_ns, int64_t now_ns);
  // Takes every scheduled entry out of the wheel and passes it to `fn`, which must not
  // schedule it again. Used at the thread's stop, to close every session.
  template <typename Fn>
  void drain(Fn&& fn) {
    for (DeadlineList& slot : slots_) {
      while (!slot.empty()) {
        DeadlineEntry& entry = slot.front();
        slot.pop_front();
        fn(entry);
      }
    }
  }
  // The thread stops: the timer is cancelled and nothing is called back any more.
  void stop();

 private:
  using List = DeadlineList;

  void arm(int64_t tick);
  void on_timer(const boost::system::error_code& ec);
  // Arms the timer for the first slot not yet swept that holds an entry, if any.
  void arm_next();

  const int64_t tick_ns_;
  const Due due_;
  std::array<List, kSlots> slots_;
  // The first tick not swept yet: slot (t % kSlots) holds the entries of tick t for
  // next_tick_ <= t < next_tick_ + kSlots.
  int64_t next_tick_ = 0;
  // The tick the timer waits for, when armed_.
  int64_t armed_tick_ = 0;
  boost::asio::steady_timer timer_;
  bool armed_ = false;
  bool stopped_ = false;
};

}  // namespace benchgate::router::http
