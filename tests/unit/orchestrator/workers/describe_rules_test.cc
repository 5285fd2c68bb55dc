// The rule `run` holds a worker's Describe answer to before a workload starts: the protocol and
// the load model the workload asks for must be listed, an empty list admitting anything.
#include "orchestrator/workers/describe_rules.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace benchgate::workers
