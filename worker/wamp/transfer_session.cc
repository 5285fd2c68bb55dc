// The session of a wamp_transfer workload. Every operation is one whole session lifecycle:
// TCP connect (and TLS), the transport handshake, HELLO -> WELCOME (authentication included),
// one CALL of the procedure (bench.transfer) with receive_progress and the arguments
// [transfer_bytes, chunk_bytes], the progressive results [offset, chunk], the final result
// [transfer_bytes], GOODBYE -> GOODBYE and the close. Each chunk must start where the previous
// one ended, be chunk_bytes long (the last one: what is left) and equal the pattern byte for
// byte (byte i of the transfer is 'a' + i % 26); anything else fails the transfer as
// "chunk_mismatch". The figures (docs/MEASUREMENT.md "Transfer throughput"): the data window
// from the first chunk's arrival to the last one's, and the lifecycle from the connect's start
// to the close after GOODBYE; the operation's latency is the lifecycle.
//
// The same lifecycle serves wamp_rpc with session_per_operation: its one CALL carries the
// payload, and the RESULT must echo it byte for byte ("mismatch" otherwise). Its figures are
// the same two rates of the echoed payload: the data window from the CALL's write to the
// RESULT's arrival, the lifecycle as above.
#include <boost/asio/post.hpp>
#include <cstring>
#include <string_view>

#include "common/serialization/base64.h"
#include "common/time/clock.h"
#include "worker/wamp/call_refusal.h"
#include "worker/wamp/errors.h"
#include "worker/wamp/message_type.h"
#include "worker/wamp/session.h"

namespace benchgate::worker::wamp {
namespace {

namespace asio = boost::asio;

constexpr uint64_t kCallId = 1;  // one CALL per session

class TransferSession : public Session {
 public:
  TransferSession(asio::io_context& io, ThreadState& thread, const WampPlan& plan)
      : Session(io, thread, plan, Join::kNone, /*count_bytes=*/true),
        io_(io),
        transfer_(plan.spec.kind == WampRequestSpec::Kind::kTransfer) {}

  // Readiness: the router is reachable, the session joins (authentication included) and leaves
  // again with GOODBYE, as every transfer's does; ready once the router answered it (a router
  // that never does is bounded by the engine's connect timeout). Session::reconnect() would call
  // this too, but never runs here: may_send() and rejoins_in_lead() are false and begin_window()
  // reconnects nothing.
  void connect(ConnectDone done) override {
    Session::connect([this, done = std::move(done)](const boost::system::error_code& ec) mutable {
      if (ec) return done(ec);
      readiness_done_ = std::move(done);
      leave();
    });
  }
  void begin_window() override {}  // every transfer opens its own session
  void start_sending() override { start(); }
  void expire() override {
    if (active_) fail(ErrorKind::kTimeout);
  }
  void close() override {
    active_ = false;
    readiness_done_ = nullptr;  // the engine stopped waiting for it
    Session::close();
  }

 protected:
  bool may_send() const override { return false; }  // no reconnect: the next transfer connects
  bool rejoins_in_lead() const override { return false; }

  void handle(uint64_t type, Json& message, int64_t now) override {
    if (!active_) return;
    // The CALL's ERROR, counted as a caller's is (call_refusal.h): the router's refusal, or the
    // callee's answer where the call was routed (session_per_operation to a callee).
    if (type == code(MessageType::kError)) {
      return fail(answer_error_kind(message, /*publish=*/false, /*cancel_sent=*/false));
    }
    if (type != code(MessageType::kResult)) return;
    if (message.size() < 4 || !message[1].is_number_unsigned() ||
        message[1].get<uint64_t>() != kCallId || !message[2].is_object() ||
        !message[3].is_array()) {
      return fail(ErrorKind::kProtocol);
    }
    if (!transfer_) {
      // [RESULT, 1, details, [payload]]
      const bool echoed =
          message[3].size() == 1 && binary_equals(message[3][0], plan_.payload, plan_.payload_json);
      if (!echoed) return fail(ErrorKind::kMismatch);
      thread_.stats.last_receive_ns = now;
      data_bytes_ = plan_.payload.size();
      data_end_ns_ = now;
      return leave();
    }
    const auto progress = message[2].find("progress");
    const bool progressive =
        progress != message[2].end() && progress->is_boolean() && progress->get<bool>();
    const Json& args = message[3];
    const uint64_t total = plan_.spec.transfer_bytes;
    if (!progressive) {
      // [transfer_bytes] after every byte arrived.
      if (args.size() != 1 || !args[0].is_number_unsigned() || args[0].get<uint64_t>() != total ||
          offset_ != total) {
        return fail(ErrorKind::kChunkMismatch);
      }
      thread_.stats.last_receive_ns = now;
      data_end_ns_ = last_chunk_ns_;
      return leave();
    }
    if (args.size() != 2 || !args[0].is_number_unsigned() || args[0].get<uint64_t>() != offset_ ||
        offset_ >= total || !chunk_matches(args[1])) {
      return fail(ErrorKind::kChunkMismatch);
    }
    const uint64_t size = std::min(plan_.spec.chunk_bytes, total - offset_);
    if (offset_ == 0) {
      first_chunk_ns_ = now;
    } else {
      data_bytes_ += size;
    }
    last_chunk_ns_ = now;
    offset_ += size;
  }

  void on_left(int64_t now) override {
    if (!active_) return readiness_finished({});
    active_ = false;
    ThreadStats& stats = thread_.stats;
    const uint64_t total = transfer_ ? plan_.spec.transfer_bytes : plan_.payload.size();
    stats.record_success(now, now - started_ns_, total, plan_.load->progress);
    stats.last_receive_ns = now;
    thread_.request_finished();
    ++stats.transfers;
    stats.transfer_data_bytes += data_bytes_;
    stats.transfer_data_ns += data_end_ns_ - first_chunk_ns_;
    stats.transfer_lifecycle_bytes += total;
    stats.transfer_lifecycle_ns += now - started_ns_;
    next();
  }

  uint32_t on_failed(ErrorKind kind) override {
    if (!active_) {
      readiness_finished(make_error_code(JoinError::kClosed));
      return 0;
    }
    active_ = false;
    thread_.stats.record_failure(kind);
    thread_.request_finished();
    next();
    return 1;
  }

 private:
  // The chunk at offset_: chunk_bytes (the last: what is left) of the pattern from offset_.
  bool chunk_matches(const Json& value) {
    const uint64_t size = std::min(plan_.spec.chunk_bytes, plan_.spec.transfer_bytes - offset_);
    std::span<const uint8_t> bytes;
    if (value.is_binary()) {
      bytes = value.get_binary();
    } else if (value.is_string()) {
      // WAMP's JSON form of binary: a NUL byte, then base64.
      const std::string& text = value.get_ref<const std::string&>();
      if (text.empty() || text[0] != '\0' ||
          !serialization::base64_decode(std::string_view(text).substr(1), decoded_)) {
        return false;
      }
      bytes = decoded_;
    } else {
      return false;
    }
    const size_t phase = static_cast<size_t>(offset_ % 26);
    return bytes.size() == size &&
           (size == 0 || std::memcmp(bytes.data(), plan_.payload.data() + phase, size) == 0);
  }

  // The readiness session's GOODBYE was answered (or its session failed).
  void readiness_finished(const boost::system::error_code& ec) {
    ConnectDone done = std::move(readiness_done_);
    readiness_done_ = nullptr;
    if (done) done(ec);
  }

  // The next transfer, after the handler that finished this one returned.
  void next() {
    asio::post(io_, [this] {
      if (!active_) start();
    });
  }

  void start() {
    if (active_ || thread_.phase != Phase::kRunning) return;
    const int64_t now = steady_now_ns();
    if (now >= thread_.end_ns) return;  // the end timer is about to fire
    active_ = true;
    started_ns_ = now;
    offset_ = 0;
    data_bytes_ = 0;
    first_chunk_ns_ = last_chunk_ns_ = data_end_ns_ = 0;
    thread_.stats.first_send_ns = std::min(thread_.stats.first_send_ns, now);
    thread_.request_sent();
    const uint64_t generation = ++generation_;
    Session::connect([this, generation](const boost::system::error_code& ec) {
      if (!active_ || generation != generation_) return;
      if (ec) {
        active_ = false;
        thread_.stats.record_failure(ErrorKind::kConnect);
        thread_.request_finished();
        // A session the router refused (ABORT, a failed challenge, a close during the setup)
        // was answered, and the next session is the next operation. A connect nothing answered
        // is tried once per window, as a connection of any other workload reconnects once (the
        // next window's start_sending() tries again): going on at once would count refusals
        // as fast as the kernel makes them.
        if (ec.category() == join_category()) return next();
        return;
      }
      // rpc: the data window starts with the CALL (a transfer's with its first chunk).
      if (!transfer_) first_chunk_ns_ = steady_now_ns();
      channel_->send(plan_.transfer_call, {});  // transfer, or the rpc's one CALL
    });
  }

  asio::io_context& io_;
  ConnectDone readiness_done_;  // the readiness session is leaving
  const bool transfer_;         // false: wamp_rpc with session_per_operation
  bool active_ = false;         // a transfer is under way (counted as outstanding)
  uint64_t generation_ = 0;
  int64_t started_ns_ = 0;
  uint64_t offset_ = 0;         // bytes verified so far
  uint64_t data_bytes_ = 0;     // of the chunks after the first (rpc: the echoed payload)
  int64_t first_chunk_ns_ = 0;  // rpc: the CALL's write
  int64_t last_chunk_ns_ = 0;
  int64_t data_end_ns_ = 0;
  std::vector<uint8_t> decoded_;  // JSON: the chunk's bytes
};

}  // namespace

std::unique_ptr<LoadConnection> make_lifecycle(asio::io_context& io, ThreadState& thread,
                                               const WampPlan& plan) {
  return std::make_unique<TransferSession>(io, thread, plan);
}

}  // namespace benchgate::worker::wamp
