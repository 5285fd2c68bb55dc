// Read buffers held between requests (see read_hold.h).
#include "router/http/read_hold.h"

#include <algorithm>

#include "common/time/clock.h"

namespace benchgate::router::http {

ReadHolds::ReadHolds(const boost::asio::any_io_executor& executor, int64_t hold_ns, int64_t& held,
                     Release release)
    : hold_ns_(hold_ns), held_(held), release_(release), timer_(executor) {}

void ReadHolds::touch(ReadHolder& holder, int64_t now_ns) {
  if (holder.is_linked()) {
    holder.unlink();
  } else if (!holder.counted()) {
    if (held_ >= kMaxHolders) return;
    ++held_;
  }
  holder.last_read_ns_ = std::max<int64_t>(now_ns, 1);
  holders_.push_back(holder);
  if (!armed_) arm(now_ns + hold_ns_);
}

void ReadHolds::stop() {
  stopped_ = true;
  timer_.cancel();
}

void ReadHolds::arm(int64_t at_ns) {
  armed_ = true;
  timer_.expires_at(steady_point(at_ns));
  timer_.async_wait([this](const boost::system::error_code& ec) { on_timer(ec); });
}

void ReadHolds::on_timer(const boost::system::error_code& ec) {
  armed_ = false;
  if (ec || stopped_) return;
  const int64_t now_ns = steady_now_ns();
  while (!holders_.empty()) {
    ReadHolder& holder = holders_.front();
    if (now_ns - holder.last_read_ns_ < hold_ns_) break;
    holder.unlink();
    release_(holder);
  }
  if (holders_.empty()) return;
  // The next holder to expire, but not sooner than half a hold from now: a thread whose
  // connections pause one after another wakes at most twice per hold.
  arm(std::max(holders_.front().last_read_ns_ + hold_ns_, now_ns + hold_ns_ / 2));
}

}  // namespace benchgate::router::http
