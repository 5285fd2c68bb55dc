// Where the load came from (orchestrator/engine/load_origin.h).
#include "orchestrator/engine/load_origin.h"

#include <gtest/gtest.h>

namespace benchgate::engine {
namespace {

TEST(LoadOrigin, SpawnedAndLoopbackWorkersAreLocal) {
  EXPECT_EQ(worker_host(""), "local");
  EXPECT_EQ(worker_host("127.0.0.1:7000"), "local");
  EXPECT_EQ(worker_host("127.8.9.10:7000"), "local");
  EXPECT_EQ(worker_host("localhost:7000"), "local");
  EXPECT_EQ(worker_host("[::1]:7000"), "local");
  EXPECT_EQ(load_from({"", "127.0.0.1:7001", "[::1]:7002"}), "local");
  EXPECT_EQ(load_from({}), "local");
}

TEST(LoadOrigin, OtherHostsAreNamedOnceInWorkerOrder) {
  EXPECT_EQ(worker_host("10.0.0.2:7000"), "10.0.0.2:7000");
  EXPECT_EQ(worker_host("127.example.org:7000"), "127.example.org:7000");  // not a loopback
  EXPECT_EQ(load_from({"10.0.0.3:7000", "10.0.0.2:7000", "10.0.0.3:7001"}), "10.0.0.3,10.0.0.2");
  // A mixed run says which part came from this machine.
  EXPECT_EQ(load_from({"", "loadgen-1.workers:7000"}), "local,loadgen-1.workers");
  EXPECT_EQ(load_from({"[fd00::2]:7000"}), "fd00::2");
}

TEST(LoadOrigin, TwoOriginsMergeIntoEachHostOnceInTheOrderFirstSeen) {
  EXPECT_EQ(merge_load_from("", "local"), "local");
  EXPECT_EQ(merge_load_from("local", ""), "local");
  EXPECT_EQ(merge_load_from("local", "local"), "local");
  EXPECT_EQ(merge_load_from("local", "10.0.0.2"), "local,10.0.0.2");
  EXPECT_EQ(merge_load_from("10.0.0.3,10.0.0.2", "10.0.0.2,local,fd00::2"),
            "10.0.0.3,10.0.0.2,local,fd00::2");
}

// A unix:PATH worker was named as host "unix", from the split at its last ':', and
// "[::ffff:127.0.0.1]" as a network host, by a loopback test of this file's own.
TEST(LoadOrigin, AUnixSocketWorkerAndEveryLoopbackFormAreLocal) {
  EXPECT_EQ(worker_host("unix:/run/benchgate/worker.sock"), "local");
  EXPECT_EQ(worker_host("[::ffff:127.0.0.1]:7000"), "local");
  EXPECT_EQ(load_from({"unix:/run/w1.sock", "10.0.0.2:7000", "unix:/run/w2.sock"}),
            "local,10.0.0.2");
  // Not HOST:PORT: never taken for this machine.
  EXPECT_EQ(worker_host("::1:7000"), "::1:7000");
}

TEST(LoadOrigin, HostOf) {
  EXPECT_EQ(host_of("10.0.0.2:7000"), "10.0.0.2");
  EXPECT_EQ(host_of("[fd00::2]:7000"), "fd00::2");
  EXPECT_EQ(host_of("fd00::2"), "fd00::2");
  EXPECT_EQ(host_of("name"), "name");
}

}  // namespace
}  // namespace benchgate::engine
