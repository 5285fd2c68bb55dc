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

// A connection that may hold its read buffer. `gauge` counts the holders of the thread
// (metrics::ThreadStats::read_buffers_held) and must outlive the holder.
class ReadHolder : public ReadHoldHook {
 public:
  explicit ReadHolder(int64_t& gauge) : gauge_(gauge) {}
  virtual ~ReadHolder() {
    if (is_linked()) --gauge_;  // the hook unlinks itself after this
  }
  ReadHolder(const ReadHolder&) = delete;
  ReadHolder& operator=(const ReadHolder&) = delete;

  bool holding() const { return is_linked(); }
  // Leaves the list (closing, lingering, handed over, released); the buffer is the caller's
  // business.
  void stop_holding() {
    if (!is_linked()) return;
    unlink();
    --gauge_;
  }

  // The hold passed without a read; stop_holding() was called. Gives the buffer back, now or
  // once the read ahead that uses it is cancelled.
  virtual void release_read_buffer() = 0;

 private:
  friend class ReadHolds;
  int64_t& gauge_;
  int64_t last_read_ns_ = 0;
};

class ReadHolds {
 public:
  // hold_ns 0: nobody holds (every connection gives its buffer back after each request).
  // `held`: the thread's gauge of holders, the one every ReadHolder of the thread counts in.
  ReadHolds(const boost::asio::any_io_executor& executor, int64_t hold_ns, const int64_t& held);
  ReadHolds(const ReadHolds&) = delete;
  ReadHolds& operator=(const ReadHolds&) = delete;

  bool enabled() const { return hold_ns_ > 0 && !stopped_; }
  // `holder` read bytes at now_ns: it holds its buffer until hold_ns passes without another
  // (unless kMaxHolders others hold already: then it does not hold, holding() says which).
  void touch(ReadHolder& holder, int64_t now_ns);
  // The thread stops: the timer is cancelled and nobody starts holding any more.
  void stop();

 private:
  void arm(int64_t at_ns);
  void on_timer(const boost::system::error_code& ec);

  using List = boost::intrusive::list<ReadHolder, boost::intrusive::base_hook<ReadHoldHook>,
                                      boost::intrusive::constant_time_size<false>>;
  const int64_t hold_ns_;
  const int64_t& held_;
  List holders_;
  boost::asio::steady_timer timer_;
  bool armed_ = false;
  bool stopped_ = false;
};

}  // namespace benchgate::router::http
