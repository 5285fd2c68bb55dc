#include "orchestrator/workers/worker_streams.h"

#include "common/time/clock.h"
#include "common/workload/run_stream_end.h"
#include "orchestrator/app/interrupt.h"

namespace benchgate::workers {

using namespace std::chrono_literals;

WorkerStreams::~WorkerStreams() {
  for (auto& stream : streams_) stream->context.TryCancel();
  for (auto& stream : streams_) {
    if (stream->reader.joinable()) stream->reader.join();
  }
}

bool WorkerStreams::open(size_t worker, v1::Worker::Stub& stub, const v1::WorkloadSpec& spec) {
  auto stream = std::make_unique<Stream>();
  stream->worker = worker;
  stream->rw = stub.Run(&stream->context);
  v1::RunCommand command;
  *command.mutable_spec() = spec;
  const bool sent = stream->rw->Write(command);
  Stream& ref = *stream;
  streams_.push_back(std::move(stream));
  ref.reader = std::thread([this, &ref] { read_loop(ref); });
  return sent;
}

void WorkerStreams::read_loop(Stream& stream) {
  v1::RunEvent event;
  while (stream.rw->Read(&event)) {
    const int64_t received = steady_now_ns();
    std::lock_guard lock(mutex_);
    events_.push_back({stream.worker, event, grpc::Status::OK, received});
    changed_.notify_all();
  }
  grpc::Status status = stream.rw->Finish();
  const auto& trailing = stream.context.GetServerTrailingMetadata();
  const auto mark = trailing.find(run_stream::kEndedByWorkerKey);
  const bool by_worker = mark != trailing.end() && mark->second == run_stream::kEndedByWorkerValue;
  std::lock_guard lock(mutex_);
  stream.ended = true;
  events_.push_back({stream.worker, std::nullopt, status, steady_now_ns(), by_worker});
  changed_.notify_all();
}

void WorkerStreams::drop(size_t worker) {
  for (auto& stream : streams_) {
    if (stream->worker != worker || stream->dropped) continue;
    stream->dropped = true;
    stream->context.TryCancel();
  }
}

bool WorkerStreams::send_windows(const std::vector<v1::Window>& windows) {
  bool all = true;
  for (auto& stream : streams_) {
    if (stream->dropped || stream->worker >= windows.size()) continue;
    v1::RunCommand command;
    *command.mutable_window() = windows[stream->worker];
    all = stream->rw->Write(command) && all;
  }
  return all;
}

bool WorkerStreams::send_probe(size_t worker, uint32_t sequence, int64_t& sent_ns) {
  v1::RunCommand command;
  command.mutable_clock_probe()->set_sequence(sequence);
  for (auto& stream : streams_) {
    if (stream->worker != worker || stream->dropped) continue;
    sent_ns = steady_now_ns();
    return stream->rw->Write(command);
  }
  return false;  // a dropped worker is not asked
}

std::optional<StreamEvent> WorkerStreams::next(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  while (events_.empty()) {
    if (app::interrupted() || std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    changed_.wait_for(lock, 50ms);
  }
  StreamEvent front = std::move(events_.front());
  events_.pop_front();
  return front;
}

void WorkerStreams::close(std::chrono::milliseconds grace) {
  for (auto& stream : streams_) {
    if (!stream->dropped) stream->rw->WritesDone();
  }
  auto deadline = std::chrono::steady_clock::now() + grace;
  {
    std::unique_lock lock(mutex_);
    changed_.wait_until(lock, deadline, [&] {
      for (auto& stream : streams_) {
        if (!stream->ended) return false;
      }
      return true;
    });
  }
  for (auto& stream : streams_) stream->context.TryCancel();
  for (auto& stream : streams_) {
    if (stream->reader.joinable()) stream->reader.join();
  }
}

}  // namespace benchgate::workers
