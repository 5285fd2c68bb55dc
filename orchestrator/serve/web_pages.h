// `orchestrator serve --http HOST:PORT`: the HTML report's pages over HTTP, read-only. The
// runs list with filters, a run's report, a live page for the running job (a small inline
// script fetches its changing part every second: the progress, and the report's timelines
// growing), and the history of a workload's metric with its baselines and change points.
// Every page is built from the store as `orchestrator report` builds its file; nothing here
// changes anything (only GET is answered; actions stay on the gRPC API).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "common/util/expected.h"

namespace benchgate::http_listener {
class HttpListener;
}  // namespace benchgate::http_listener

namespace benchgate::store {
class Store;
struct OpenOptions;
}  // namespace benchgate::store

namespace benchgate::serve {

class JobQueue;
class LiveRun;

class WebPages {
 public:
  // Listens on HOST:PORT (port 0 picks one; benchgate's HTTP listener,
  // common/http_listener/http_listener.h); reads `db_path` through its own connection
  // (opened with `store_options`: serve's --db-busy-timeout) and the running job's progress
  // from `live`.
  static Expected<std::unique_ptr<WebPages>> start(const std::string& host_port,
                                                   const std::string& db_path,
                                                   const store::OpenOptions& store_options,
                                                   const JobQueue& queue, const LiveRun& live);
  ~WebPages();

  // "HOST:PORT" with the port bound.
  const std::string& address() const { return address_; }

  // The pages, for the HTTP handler: status code and body for a GET of `path` with the raw
  // query string.
  struct Page {
    Page(int status_code, std::string text, std::string policy = "")
        : status(status_code), body(std::move(text)), csp(std::move(policy)) {}
    int status = 200;
    std::string body;
    std::string csp;  // Content-Security-Policy; empty: nothing but inline style
  };
  Page get(const std::string& path, const std::string& query);

 private:
  WebPages(const JobQueue& queue, const LiveRun& live);
  Page runs_list(const std::string& query);
  Page run_report(int64_t run_id);
  Page live();
  // The part of the live page its script replaces every second: the jobs, the running job's
  // progress and timelines, and its run as stored so far.
  std::string live_fragment();
  Page history(const std::string& query);

  const JobQueue& queue_;
  const LiveRun& live_;
  std::mutex mutex_;  // one request at a time on the store's connection
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<http_listener::HttpListener> listener_;
  std::string address_;
};

}  // namespace benchgate::serve
