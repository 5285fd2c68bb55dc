// What a workload sends and how much of it at once, as every report writes it under the
// workload's name: the terminal's header line, the HTML report's and the Markdown summary's
// load list take it from here, so that one workload reads the same in all of them. The
// concurrency is each protocol's own (scenario::Workload::sessions and
// outstanding_per_connection): an http2 workload's streams, not its in_flight; a wamp_pubsub
// workload's publishers and subscribers, not its connections.
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "common/util/joined_with_and.h"
#include "orchestrator/report/rate_text.h"
#include "orchestrator/scenario/scenario.h"

namespace benchgate::report {

// "4 connections x 10 in flight" (http1), "4 connections x 10 streams" (http2), "8 sessions x 4
// in flight" (wamp_rpc), "2 sessions" (wamp_transfer: one transfer at a time each),
// "2 publisher(s) x 1 in flight -> 3 subscriber(s)" (wamp_pubsub).
inline std::string workload_shape(const scenario::Workload& w) {
  const uint32_t outstanding = w.outstanding_per_connection();
  switch (w.protocol) {
    case scenario::Protocol::kHttp2:
      return fmt::format("{} connections x {} streams", w.connections, outstanding);
    case scenario::Protocol::kWampRpc:
      return fmt::format("{} sessions x {} in flight", w.sessions(), outstanding);
    case scenario::Protocol::kWampTransfer:
      return fmt::format("{} sessions", w.sessions());
    case scenario::Protocol::kWampPubSub:
      // sessions() is both sides together; each publisher has `outstanding` in flight.
      return fmt::format("{} publisher(s) x {} in flight -> {} subscriber(s)", w.wamp.publishers,
                         outstanding, w.wamp.subscribers);
    default:
      return fmt::format("{} connections x {} in flight", w.connections, outstanding);
  }
}

// What `who` run, as workers_text writes it: "the worker runs 1" (`one`, one figure), "the
// workers run 2 each" (`several`, all alike), "the workers run 4, 4 and 2".
inline std::string threads_run_text(const std::string& one, const std::string& several,
                                    const std::vector<uint32_t>& threads) {
  if (threads.size() == 1) return fmt::format("{} runs {}", one, threads.front());
  bool same = true;
  for (const uint32_t t : threads) same = same && t == threads.front();
  if (same) return fmt::format("{} run {} each", several, threads.front());
  std::vector<std::string> figures;
  for (const uint32_t t : threads) figures.push_back(std::to_string(t));
  return several + " run " + joined_with_and(figures);
}

// "2 worker(s) x 4 thread(s)": the workload's workers and the threads the scenario asks of each,
// and where the workers said they run other numbers (Ready.threads, results::WorkloadResult's
// worker_threads: wamp_pubsub's at most its publishers and subscribers, a tool's, a worker's
// own) what they run: "1 worker(s) x 4 thread(s) (the worker runs 1)", "(the workers run 2
// each)", "(the workers run 4, 4 and 2)". Nothing is added where they were not told (a run
// stored before schema version 24, a workload no worker was ready for). Ready.threads 0 is a
// worker that did not say (proto3's unset), never a worker running none: "(the worker did not
// report its threads)", "(1 of 3 workers did not report its threads; the others run 4 and 2)".
inline std::string workers_text(const scenario::Workload& w,
                                const std::vector<uint32_t>& worker_threads) {
  std::string text = fmt::format("{} worker(s) x {} thread(s)", w.workers, w.threads);
  std::vector<uint32_t> reported;
  bool differ = false;
  for (const uint32_t threads : worker_threads) {
    if (threads != 0) reported.push_back(threads);
    differ = differ || threads != w.threads;
  }
  if (!differ) return text;
  const size_t unreported = worker_threads.size() - reported.size();
  if (unreported == 0) {
    return text + " (" + threads_run_text("the worker", "the workers", reported) + ")";
  }
  if (reported.empty()) {
    return text + (unreported == 1 ? " (the worker did not report its threads)"
                                   : " (the workers did not report their threads)");
  }
  return text + fmt::format(" ({} of {} workers did not report {} threads; {})", unreported,
                            worker_threads.size(), unreported == 1 ? "its" : "their",
                            threads_run_text("the other", "the others", reported));
}

// How the load is paced, as every report writes it after the workload's load: "closed loop",
// or "open loop at 5000 req/s" (rate_text).
inline std::string load_model_text(const scenario::Workload& w) {
  return w.rate > 0 ? "open loop at " + rate_text(w.rate) + " req/s" : std::string("closed loop");
}

// What the workload sends, over what, with its shape: "GET /bench/hello over h2c, 4 connections
// x 10 streams"; "wamp_rpc bench.echo (router callee) over rawsocket/cbor, 1024 B, 8 sessions
// x 4 in flight, over TLS".
inline std::string workload_load(const scenario::Workload& w) {
  if (scenario::is_http(w.protocol)) {
    const bool h2 = w.protocol == scenario::Protocol::kHttp2;
    const std::string over = h2 ? (w.tls.enabled ? " over h2 (TLS)" : " over h2c")
                                : (w.tls.enabled ? " over https" : "");
    return fmt::format("{} {}{}, {}", w.http.method, w.http.target, over, workload_shape(w));
  }
  const scenario::WampRequest& wamp = w.wamp;
  std::string what;
  if (w.protocol == scenario::Protocol::kWampRpc) {
    what = fmt::format("wamp_rpc {} ({} callee) over {}/{}, {} B, {}", wamp.procedure, wamp.callee,
                       wamp.transport, wamp.serializer, wamp.request_bytes, workload_shape(w));
  } else if (w.protocol == scenario::Protocol::kWampTransfer) {
    what = fmt::format("wamp_transfer {} over {}/{}, {} B in {} B chunks, {}", wamp.procedure,
                       wamp.transport, wamp.serializer, wamp.transfer_bytes, wamp.chunk_bytes,
                       workload_shape(w));
  } else {
    what = fmt::format("wamp_pubsub {} over {}/{}, {} B, {}", wamp.topic, wamp.transport,
                       wamp.serializer, wamp.request_bytes, workload_shape(w));
  }
  if (w.tls.enabled) what += ", over TLS";
  if (wamp.fragment_bytes > 0) what += fmt::format(", sent in {} B frames", wamp.fragment_bytes);
  if (wamp.session_per_operation) what += ", a session per call";
  return what;
}

}  // namespace benchgate::report
