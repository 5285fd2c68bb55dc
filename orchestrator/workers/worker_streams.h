// The Run streams of one workload, one per worker. Each stream has a reader thread that
// puts the worker's events (and the stream's end) into one queue, so the engine waits for
// "the next thing any worker said" with a deadline, and notices a dead worker as a stream
// that ended early.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "benchgate/v1/worker.grpc.pb.h"

namespace benchgate::workers {

struct StreamEvent {
  size_t worker = 0;
  std::optional<v1::RunEvent> event;  // nullopt: the stream ended (see status)
  grpc::Status status;
  int64_t received_ns = 0;  // steady clock, as soon as the reader had the event
  // At the end: the worker marked the status as its own (common/workload/run_stream_end.h), so
  // its process was alive as it ended the stream.
  bool ended_by_worker = false;
};

class WorkerStreams {
 public:
  WorkerStreams() = default;
  ~WorkerStreams();  // cancels every stream and joins the readers

  WorkerStreams(const WorkerStreams&) = delete;
  WorkerStreams& operator=(const WorkerStreams&) = delete;

  // Opens a Run stream to `stub` and sends `spec` as its first message.
  // Returns false when the stream could not take the message.
  bool open(size_t worker, v1::Worker::Stub& stub, const v1::WorkloadSpec& spec);
  // Gives up on one worker's stream (a lost worker): it is cancelled, gets no more window
  // commands or probes, and whatever it still says is dropped by the caller.
  void drop(size_t worker);
  // Sends windows[i] to the stream of worker i (each with its own start instant), to every
  // stream not dropped; false if a stream refused it.
  bool send_windows(const std::vector<v1::Window>& windows);
  // Sends a clock probe to one worker; the steady-clock instant just before it was written
  // goes to `sent_ns`. False if the stream refused it or was dropped.
  bool send_probe(size_t worker, uint32_t sequence, int64_t& sent_ns);
  // The next event from any worker, or nullopt at the deadline (or on interrupt).
  std::optional<StreamEvent> next(std::chrono::steady_clock::time_point deadline);
  // Half-closes every stream (the workers stop and end their streams), waits up to `grace`,
  // then cancels what is left.
  void close(std::chrono::milliseconds grace);
  size_t size() const { return streams_.size(); }

 private:
  struct Stream {
    size_t worker = 0;
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReaderWriter<v1::RunCommand, v1::RunEvent>> rw;
    std::thread reader;
    bool ended = false;  // guarded by mutex_
    bool dropped = false;
  };
  void read_loop(Stream& stream);

  std::vector<std::unique_ptr<Stream>> streams_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<StreamEvent> events_;
};

}  // namespace benchgate::workers
