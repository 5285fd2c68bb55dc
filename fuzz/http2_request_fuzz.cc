// libFuzzer target: the router's HTTP/2 request handling (router/http2/server_session.h) fed
// the client preface and then the input in pieces, as a socket delivers it, with what the
// session writes drained after each piece and every delayed answer made due at the end.
// nghttp2 parses the frames; what is fuzzed is our side: the callbacks, the stream pool, the
// routes, the bodies and the defences. Limits are small so that each defence is reached.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "router/http/server_options.h"
#include "router/http2/preface.h"
#include "router/http2/server_session.h"
#include "router/metrics/thread_stats.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace http2 = benchgate::router::http2;
  if (size == 0) return 0;
  // The first byte chooses how the stream is split, so splits are fuzzed too.
  const size_t chunk = 1 + data[0] % 128;
  ++data;
  --size;

  static const benchgate::router::http::ServerOptions options = [] {
    benchgate::router::http::ServerOptions o;
    o.max_body_bytes = 1 << 16;
    o.http2.max_concurrent_streams = 8;
    o.http2.initial_window_bytes = 1 << 16;
    o.http2.max_header_list_bytes = 4096;
    o.http2.max_continuations = 3;
    o.http2.reset_burst = 4;
    o.http2.reset_rate_per_s = 1;
    return o;
  }();
  benchgate::router::metrics::ThreadStats stats;
  http2::ServerSession session(options, stats);
  int64_t now = 1'000'000'000;
  std::string out;
  const auto drain = [&] {
    out.clear();
    return session.fill(out, 1 << 16);
  };
  if (!session.receive(reinterpret_cast<const uint8_t*>(http2::kClientPreface.data()),
                       http2::kClientPreface.size(), now)) {
    return 0;
  }
  for (size_t offset = 0; offset < size && !session.done(); offset += chunk) {
    const size_t n = std::min(chunk, size - offset);
    now += 1'000'000;
    if (!session.receive(data + offset, n, now)) return 0;
    // Everything queued goes out (a few rounds: large answers leave in 64 KiB batches).
    for (int round = 0; round < 64 && drain() && !out.empty(); ++round) {
    }
  }
  session.answer_due_delays(now + 3'600'000'000'000);
  for (int round = 0; round < 64 && drain() && !out.empty(); ++round) {
  }
  return 0;
}
