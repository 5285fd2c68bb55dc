// One HTTP/2 server connection's protocol state on nghttp2, without a socket: bytes read from
// the client go in (receive), frames to write come out (fill). nghttp2 does the framing, HPACK,
// flow control and the protocol checks; this class answers every bench route of
// router/http/routes.h (the same statuses and bodies as HTTP/1.1, counted in the same
// http_requests counter) and applies the defences of Http2Options.
//
// Hot path: a stream's state (path, echo body, response source) comes from a per-connection
// pool and keeps its capacity, response header values are written into it, bodies go out with
// NGHTTP2_DATA_FLAG_NO_COPY straight from where they lie (the hello text, the pattern block,
// the echo body) into the caller's output buffer, once. nghttp2 itself allocates per stream
// (its stream object and the queued response, with a copy of the header array); see
// router/README.md.
//
// Owned and touched by one serving thread (router/http2/connection.h, the fuzz target, tests).
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "router/http/routes.h"
#include "router/http/server_options.h"
#include "router/metrics/thread_stats.h"

namespace benchgate::router::http2 {

class ServerSession {
 public:
  ServerSession(const http::ServerOptions& options, metrics::ThreadStats& stats);
  ~ServerSession();
  ServerSession(const ServerSession&) = delete;
  ServerSession& operator=(const ServerSession&) = delete;

  // Bytes from the client, the connection preface first. Everything is consumed; a protocol
  // error or a defence queues a GOAWAY, after which done() turns true once it is written.
  // false: nghttp2 failed beyond a GOAWAY (the caller closes at once).
  bool receive(const uint8_t* data, size_t size, int64_t now_ns);
  // Appends queued frames to `out` until it holds at least `flush_bytes` or nothing is ready:
  // at most flush_bytes - 1 and one more frame (a DATA frame carries at most kMaxDataBytes).
  // The first time `out` must grow past `flush_bytes` it grows to room for that at once
  // (max_fill_bytes), so that a connection keeping `out` between batches reaches its largest
  // capacity in its first full batch: it grew again, from about flush_bytes, whenever a later
  // batch ended on more bytes than any before (frames of several streams mixed; tests/alloc).
  // false: nghttp2 failed (close at once).
  bool fill(std::string& out, size_t flush_bytes);
  // nghttp2's own DATA frame payload limit (NGHTTP2_DATA_PAYLOADLEN, the protocol's default
  // SETTINGS_MAX_FRAME_SIZE): without a read-length callback it sends no larger DATA frame,
  // whatever frame size the client allows.
  static constexpr size_t kMaxDataBytes = 16384;
  // An HTTP/2 frame's head (RFC 9113, section 4.1).
  static constexpr size_t kFrameHeadBytes = 9;
  // The most fill() leaves in `out`: flush_bytes - 1, then a frame's head and a DATA frame's
  // payload (the router's HEADERS and control frames are smaller).
  static constexpr size_t max_fill_bytes(size_t flush_bytes) {
    return flush_bytes - 1 + kFrameHeadBytes + kMaxDataBytes;
  }
  // Nothing more to read or write: the connection can close once `out` is written.
  bool done() const;
  // Streams open now (requests not answered yet, answers not fully queued).
  size_t open_streams() const { return open_streams_; }
  // When the earliest /bench/delay answer is due (0: none), and answering those due by now.
  int64_t next_delay_ns() const;
  void answer_due_delays(int64_t now_ns);
  // The idle timeout: GOAWAY NO_ERROR, nothing more is read.
  void shut_down();

  // nghttp2's callbacks (server_session.cc), public for the C trampolines only.
  struct Stream;
  int on_begin_frame(const nghttp2_frame_hd& hd);
  int on_begin_headers(const nghttp2_frame& frame);
  int on_header(const nghttp2_frame& frame, const uint8_t* name, size_t name_size,
                const uint8_t* value, size_t value_size);
  int on_frame_recv(const nghttp2_frame& frame);
  int on_data_chunk(int32_t stream_id, const uint8_t* data, size_t size);
  int on_frame_send(const nghttp2_frame& frame);
  int on_stream_close(int32_t stream_id, uint32_t error_code);
  ssize_t on_send(const uint8_t* data, size_t size);
  int on_send_data(nghttp2_frame& frame, const uint8_t* frame_head, size_t length, Stream& stream);
  ssize_t read_body(Stream& stream, size_t length, uint32_t* flags);

 private:
  // Room in out_ for `bytes` more (see fill()).
  void make_room(size_t bytes);
  Stream* stream_of(int32_t stream_id) const;
  Stream& acquire();
  void release(Stream* stream);
  // A refused echo body: its buffer freed and its budget given back.
  void drop_body(Stream& stream);
  void respond(Stream& stream);
  void submit(Stream& stream, int status, std::string_view content_type, const char* data,
              uint64_t length, bool pattern);
  // A defence bit: GOAWAY ENHANCE_YOUR_CALM, nothing more is read. Returns the callback
  // failure nghttp2 must see so that it stops reading the frame at hand.
  int calm_down(uint64_t& counter);

  const http::ServerOptions& options_;
  const Http2Options& limits_;
  const http::RouteLimits route_limits_;
  metrics::ThreadStats& stats_;
  nghttp2_session* session_ = nullptr;

  // Every stream state this connection made (as many as it ever had open at once), and those
  // free now. Owning them here frees the open ones too when the connection ends: nghttp2
  // reports no stream close then.
  std::vector<std::unique_ptr<Stream>> streams_;
  std::vector<Stream*> free_streams_;
  size_t open_streams_ = 0;
  // /bench/delay answers waiting: when, and for which stream (checked by id when due).
  std::vector<std::pair<int64_t, Stream*>> delayed_;

  // The header block being read: its bytes on the wire and CONTINUATION frames so far.
  uint64_t block_bytes_ = 0;
  uint32_t continuations_ = 0;
  // Rapid-reset bucket: RST_STREAMs the client may still send, refilled with time.
  double reset_tokens_ = 0;
  int64_t reset_refilled_ns_ = 0;
  int64_t now_ns_ = 0;
  // We sent (or queued) our own GOAWAY: one of nghttp2's is then not a protocol error.
  bool terminated_ = false;
  bool ended_ = false;  // nghttp2 reported the session's end after its last GOAWAY

  // Where on_send() appends while fill() runs.
  std::string* out_ = nullptr;
  size_t flush_bytes_ = 0;
};

}  // namespace benchgate::router::http2
