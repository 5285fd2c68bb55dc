// The rule `run` holds a worker's Describe answer to before a workload starts: the protocol and
// the load model the workload asks for must be listed, an empty list admitting anything.
#include "orchestrator/workers/describe_rules.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <utility>
#include <vector>

#include "common/util/shown_list.h"

namespace benchgate::workers {
namespace {

scenario::Workload workload(scenario::Protocol protocol, double rate = 0) {
  scenario::Workload w;
  w.name = "w";
  w.protocol = protocol;
  w.rate = rate;
  return w;
}

v1::DescribeResponse described(std::initializer_list<const char*> protocols,
                               std::initializer_list<const char*> models) {
  v1::DescribeResponse d;
  for (const char* p : protocols) d.add_protocols(p);
  for (const char* m : models) d.add_load_models(m);
  return d;
}

TEST(DescribeRules, AProtocolNotListedIsNamedWithWhatIsListed) {
  EXPECT_EQ(unserved(described({"http2"}, {"closed"}), workload(scenario::Protocol::kHttp1)),
            "lists protocols http2; workload 'w' asks for http1");
  EXPECT_EQ(unserved(described({"http1", "http2"}, {}), workload(scenario::Protocol::kWampRpc)),
            "lists protocols http1, http2; workload 'w' asks for wamp_rpc");
  EXPECT_EQ(unserved(described({"http1", "http2"}, {}), workload(scenario::Protocol::kHttp2)), "");
}

TEST(DescribeRules, TheLoadModelIsOpenWhenTheWorkloadSetsARate) {
  EXPECT_EQ(unserved(described({"http1"}, {"closed"}), workload(scenario::Protocol::kHttp1, 500)),
            "lists load models closed; workload 'w' asks for open (it sets a rate)");
  EXPECT_EQ(unserved(described({"http1"}, {"open"}), workload(scenario::Protocol::kHttp1)),
            "lists load models open; workload 'w' asks for closed (it sets no rate)");
  EXPECT_EQ(
      unserved(described({"http1"}, {"closed", "open"}), workload(scenario::Protocol::kHttp1, 500)),
      "");
}

TEST(DescribeRules, AnEmptyListAdmitsAnything) {
  EXPECT_EQ(unserved(described({}, {}), workload(scenario::Protocol::kWampTransfer, 10)), "");
  EXPECT_EQ(unserved(v1::DescribeResponse(), workload(scenario::Protocol::kHttp1)), "");
}

TEST(DescribeRules, MaxThreadsIsInformationalNotALimit) {
  v1::DescribeResponse d = described({"http1"}, {"closed"});
  d.set_max_threads(1);
  scenario::Workload w = workload(scenario::Protocol::kHttp1);
  w.threads = 8;
  EXPECT_EQ(unserved(d, w), "");
}

// A pool whose workers answered Describe as `answers` say (name, version).
class DescribedPool : public WorkerPool {
 public:
  explicit DescribedPool(std::vector<std::pair<std::string, std::string>> answers)
      : answers_(std::move(answers)) {}
  Expected<void> start(size_t, std::chrono::steady_clock::time_point) override { return {}; }
  size_t size() const override { return answers_.size(); }
  v1::Worker::Stub& stub(size_t) override { std::abort(); }
  std::optional<Error> failure(size_t) override { return std::nullopt; }
  Expected<std::string> recover(bool, std::chrono::steady_clock::time_point) override {
    return std::string();
  }
  void stop() override {}
  v1::DescribeResponse description(size_t index) const override {
    v1::DescribeResponse d;
    d.set_name(answers_.at(index).first);
    d.set_version(answers_.at(index).second);
    return d;
  }

 private:
  std::vector<std::pair<std::string, std::string>> answers_;
};

// What a run stores with the workload (schema version 22): the workers' name and version, the
// worker's free text escaped and cut; workers that answered differently give each distinct value
// once, in worker order; the workers the workload does not run on are not asked.
TEST(DescribeRules, TheWorkersNameAndVersionAreEscapedAndEachDistinctOneKept) {
  const DescribedPool same({{"kv-worker", "1.2"}, {"kv-worker", "1.2"}});
  DescribedAs one = described_as(same, 2);
  EXPECT_EQ(one.name, "kv-worker");
  EXPECT_EQ(one.version, "1.2");
  const DescribedPool mixed(
      {{"kv\x1b[31m", "1.2\n"}, {"kv-worker", "1.2\n"}, {"kv\x1b[31m", "2.0"}, {"other", "9"}});
  DescribedAs three = described_as(mixed, 3);
  EXPECT_EQ(three.name, "kv\\x1b[31m, kv-worker");
  EXPECT_EQ(three.version, "1.2\\n, 2.0");
  const DescribedPool long_name({{std::string(300, 'n'), ""}});
  DescribedAs cut = described_as(long_name, 1);
  EXPECT_EQ(cut.name, std::string(ShownList::kItemBytes, 'n') + "...");
  EXPECT_EQ(cut.version, "");
  EXPECT_EQ(described_as(DescribedPool({}), 0).name, "");
  // A compared variant's windows add what a later window's workers answered differently.
  DescribedAs merged = merge_described({"", ""}, one);
  EXPECT_EQ(merged.name, "kv-worker");
  merged = merge_described(merged, {"kv-worker", "1.3"});
  EXPECT_EQ(merged.name, "kv-worker");
  EXPECT_EQ(merged.version, "1.2, 1.3");
  merged = merge_described(merged, {"kv-worker", "1.2"});
  EXPECT_EQ(merged.version, "1.2, 1.3");
  EXPECT_EQ(merge_described(merged, {"", ""}).version, "1.2, 1.3");
}

}  // namespace
}  // namespace benchgate::workers
