// The HTTP/1.1 connections of one serving thread that keep their read buffer between requests
// (--read-buffer-hold), and the timer that makes them give it back.
//
// Why: a connection with nothing buffered holds no read buffer; it waits for readability
// (async_wait), then borrows the thread's spare (router/http/session.h). That keeps an idle
// connection small, but Asio re-arms the descriptor with one epoll_ctl for every such wait, so
// a busy keep-alive connection paid one epoll_ctl per request. A connection that has just read
// keeps its buffer instead and reads ahead into it (async_read_some): Asio tries that read at
// once, and when it would block leaves it with the reactor, whose edge-triggered registration
// already covers it: no epoll_ctl. Once the hold passes without a read the connection gives the
// buffer back and waits for readability again, so an idle connection still holds none.
//
// How: the holders of a thread are one list in the order of their last read (a read moves a
// connection to the back, a few pointer stores). One timer per thread, armed only while the
// list is not empty and at most every half hold, releases the holders at the front whose last
// read is at least one hold old: a connection gives its buffer back between one hold and one
// and a half holds after its last read. Only the owning thread touches any of it.
//
// At most kMaxHolders connections of a thread hold at once (2 MiB of 16 KiB buffers); the
// others give their buffer back after every request, as all did before. That bounds what a
// burst over many connections allocates (and leaves behind in the allocator's free lists)
// while it lasts; a benchmark's connections per serving thread are usually fewer.
#pragma once

#include <cstdint>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/intrusive/list.hpp>

namespace benchgate::router::http {

inline constexpr int64_t kMaxHolders = 128;

struct ReadHoldTag;
using ReadHoldHook =
    boost::intrusive::list_base_hook<boost::intrusive::tag<ReadHoldTag>,
                                     boost::intrusive::link_mode<boost::intrusive::auto_unlink>>;

// A connection that may hold its read buffer: in the thread's list while it holds, and
// counted in the thread's gauge (metrics::ThreadStats::read_buffers_held) from its first hold
// until the buffer is given back, which for a released read ahead is once its cancellation
// has completed. The gauge is passed in (the connection knows its thread's stats).
class ReadHolder : public ReadHoldHook {
 public:
  ReadHolder() = default;
  ReadHolder(const ReadHolder&) = delete;
  ReadHolder& operator=(const ReadHolder&) = delete;

  bool holding() const { return is_linked(); }
  // Closing, lingering, handed over, or a read failed: out of the list and the gauge (the
  // buffer is the caller's business). Also before the holder is destroyed.
  void stop_holding(int64_t& gauge) {
    if (is_linked()) unlink();
    if (counted()) {
      last_read_ns_ = 0;
      --gauge;
    }
  }
  // The hold passed (the holder left the list) and the buffer is back with the thread.
  void buffer_given_back(int64_t& gauge) {
    if (!is_linked()) stop_holding(gauge);
  }

 private:
  friend class ReadHolds;
  // Counted in the gauge: from the first hold until the buffer is given back.
  bool counted() const { return last_read_ns_ != 0; }
  // The last read (never 0) while counted; 0 otherwise (one field: 8 bytes of every session).
  int64_t last_read_ns_ = 0;
};

class ReadHolds {
 public:
  // Called for a holder whose hold passed, after it left the list: gives the buffer back now,
  // or cancels the read ahead that uses it (then buffer_given_back() once it has).
  using Release = void (*)(ReadHolder& holder);
  // hold_ns 0: nobody holds (every connection gives its buffer back after each request).
  // `held`: the thread's gauge of holders.
  ReadHolds(const boost::asio::any_io_executor& executor, int64_t hold_ns, int64_t& held,
            Release release);
  ReadHolds(const ReadHolds&) = delete;
  ReadHolds& operator=(const ReadHolds&) = delete;

  bool enabled() const { return hold_ns_ > 0 && !stopped_; }
  // `holder` read bytes at now_ns: it holds its buffer until hold_ns passes without another
  // (unless kMaxHolders others are counted already: then it does not hold, holding() says).
  void touch(ReadHolder& holder, int64_t now_ns);
  // The thread stops: the timer is cancelled and nobody starts holding any more.
  void stop();

 private:
  void arm(int64_t at_ns);
  void on_timer(const boost::system::error_code& ec);

  using List = boost::intrusive::list<ReadHolder, boost::intrusive::base_hook<ReadHoldHook>,
                                      boost::intrusive::constant_time_size<false>>;
  const int64_t hold_ns_;
  int64_t& held_;
  const Release release_;
  List holders_;
  boost::asio::steady_timer timer_;
  bool armed_ = false;
  bool stopped_ = false;
};

}  // namespace benchgate::router::http
