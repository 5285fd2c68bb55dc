// Runs the windows of one Run stream on its own thread, so the gRPC handler thread can keep
// reading the stream: a WritesDone or cancel must stop the load at once, even mid-window.
// All RunEvent writes after Ready go through write(), one at a time (gRPC allows one reader
// and one writer at a time): the windows' events from this thread, clock replies from the
// handler thread.
#pragma once

#include <grpcpp/grpcpp.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "benchgate/v1/worker.grpc.pb.h"
#include "worker/engine/engine.h"
#include "worker/engine/workload.h"

namespace benchgate::worker {

class WindowRunner {
 public:
  using Stream = grpc::ServerReaderWriter<v1::RunEvent, v1::RunCommand>;

  WindowRunner(Engine& engine, Stream& stream);
  // Call engine.stop() first: it makes a running window return at once.
  ~WindowRunner();

  void submit(const WindowCommand& window);
  // Writes one event; false when the stream broke.
  bool write(const v1::RunEvent& event);

 private:
  void loop();

  Engine& engine_;
  Stream& stream_;
  std::mutex mutex_;
  std::mutex write_mutex_;
  std::condition_variable changed_;
  std::deque<WindowCommand> queue_;
  bool closing_ = false;
  std::thread thread_;
};

}  // namespace benchgate::worker
