// Workers that are already running (started by hand, or pods placed by Kubernetes): the
// orchestrator only connects to them and never stops them, so it cannot replace one either:
// after a failed workload it only checks that each still answers.
#include <algorithm>
#include <map>

#include "orchestrator/grpc/channel.h"
#include "orchestrator/workers/discovery.h"
#include "orchestrator/workers/worker_pool.h"

namespace benchgate::workers {
namespace {

class ConnectingPool : public WorkerPool {
 public:
  ConnectingPool(std::vector<std::string> addresses, std::string token)
      : entries_(std::move(addresses)), token_(std::move(token)) {}

  Expected<void> start(size_t count, std::chrono::steady_clock::time_point deadline) override {
    const bool by_name = std::any_of(entries_.begin(), entries_.end(), is_dns_entry);
    if (!by_name && count > entries_.size()) {
      return Error{"the scenario needs " + std::to_string(count) + " workers but only " +
                   std::to_string(entries_.size()) + " worker addresses were given"};
    }
    if (stubs_.size() >= count) return {};
    return connect(count, deadline);
  }

  size_t size() const override { return stubs_.size(); }
  v1::Worker::Stub& stub(size_t index) override { return *stubs_.at(index); }
  std::string address(size_t index) const override {
    return index < addresses_.size() ? addresses_[index] : std::string();
  }
  std::optional<Error> failure(size_t) override { return std::nullopt; }
  std::string name(size_t index) const override {
    return "worker " + std::to_string(index) + " at " + addresses_.at(index);
  }
  v1::DescribeResponse description(size_t index) const override {
    auto it = described_.find(addresses_.at(index));
    return it == described_.end() ? v1::DescribeResponse() : it->second;
  }

  Expected<std::string> recover(bool after_failure,
                                std::chrono::steady_clock::time_point deadline) override {
    if (!after_failure) return std::string();
    // Every worker is asked afresh, on a fresh channel (the old one may hold a connection to a
    // worker that is gone): a worker that was lost and came back is used again only once it
    // answers Describe, and a name is resolved again, so another pod can take a lost one's place.
    const std::vector<std::string> before = addresses_;
    auto connected = connect(stubs_.size(), deadline);
    if (!connected) return connected.error();
    if (addresses_ == before) return std::string();
    std::string now;
    for (const auto& address : addresses_) now += (now.empty() ? "" : ", ") + address;
    return "workers after the failed workload: " + now;
  }
  void stop() override { stubs_.clear(); }

 private:
  // Waits until `count` of the addresses the entries give answer Describe (discovery.h), a
  // `dns:NAME:PORT` entry resolved again each round, then uses those. Resolved on every start,
  // so a run after scaling the workers finds the new ones.
  Expected<void> connect(size_t count, std::chrono::steady_clock::time_point deadline) {
    auto probe = [this](const std::string& address,
                        std::chrono::steady_clock::time_point until) -> ProbeAnswer {
      auto stub = v1::Worker::NewStub(grpcutil::make_worker_channel(address, token_));
      DescribeAnswer described = ask_describe(*stub, "worker at " + address, until);
      if (!described.response) return {described.response.error(), described.final};
      described_[address] = std::move(described.response).value();
      return Expected<void>{};
    };
    auto found = wait_for_workers(entries_, count, deadline, system_resolver(), probe);
    if (!found) return found.error();
    addresses_ = std::move(found).value();
    stubs_.clear();
    for (const auto& address : addresses_) {
      stubs_.push_back(v1::Worker::NewStub(grpcutil::make_worker_channel(address, token_)));
    }
    return {};
  }

  std::vector<std::string> entries_;    // as given: HOST:PORT or dns:NAME:PORT
  std::vector<std::string> addresses_;  // HOST:PORT of each worker used
  std::string token_;
  std::vector<std::unique_ptr<v1::Worker::Stub>> stubs_;
  // Each address's latest answer to Describe (the round that found it, or a later one).
  std::map<std::string, v1::DescribeResponse> described_;
};

}  // namespace

std::unique_ptr<WorkerPool> make_connecting_pool(std::vector<std::string> addresses,
                                                 std::string token) {
  return std::make_unique<ConnectingPool>(std::move(addresses), std::move(token));
}

}  // namespace benchgate::workers
