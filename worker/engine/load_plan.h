// Everything about a workload that the load threads share read-only: where to connect, the
// prebuilt request bytes and how responses are checked. Built once by the engine.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <cstdint>
#include <memory>
#include <string>

namespace benchgate::worker {

struct LoadPlan {
  boost::asio::ip::tcp::endpoint endpoint;
  std::string request;        // one request, on the wire
  std::string batch;          // `request` repeated in_flight times (one write sends k of them)
  std::string expected_body;  // the request body, for echo checks
  uint32_t in_flight = 1;
  size_t read_buffer_bytes = 64 * 1024;  // the thread's read buffer (a TLS connection's own)
  uint32_t connections = 1;
  // Open loop when rate > 0.
  double rate = 0;
  uint32_t schedule_first = 0;        // this worker's place among the workload's connections
  uint32_t schedule_connections = 0;  // 0: this worker alone
  bool progress = false;              // record interval histograms for progress events
  uint32_t expect_status = 200;
  int64_t expect_body_bytes = -1;
  bool expect_echo = false;
  // The method is HEAD: no answer has a body, whatever its Content-Length (RFC 9112, 6.3).
  bool head_requests = false;

  // TLS (worker/http/tls_client.h): the context every connection's stream is made from; null:
  // cleartext. `sni` is sent when not empty; `verify_host` is what the certificate must name.
  std::shared_ptr<boost::asio::ssl::context> tls;
  std::string sni;
  std::string verify_host;
  bool tls_resumption = false;  // offer each reconnect the session its connection last got
  // Every request on a connection of its own: connect, request, response, close.
  bool new_connection_per_request = false;
  // http1 cleartext: readiness from the load thread's edge-triggered epoll set
  // (common/net/readiness_poller.h) instead of an Asio wait per read (WorkloadSpec::http1_io).
  bool edge_poll = false;
  // http1 cleartext: receives and sends through the load thread's io_uring
  // (common/net/completion_ring.h; WorkloadSpec::http1_io).
  bool ring_io = false;
  // http2: streams per connection and the settings the worker sends.
  uint32_t streams = 1;
  uint32_t initial_window = 1u << 30;
  uint32_t max_frame_size = 16384;

  bool open_loop() const { return rate > 0; }
};

}  // namespace benchgate::worker
