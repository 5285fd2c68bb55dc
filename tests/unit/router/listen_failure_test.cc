// The control endpoint's listen failure names its cause (common/net/listen_failure.h, whose own
// cases are tested in tests/unit/common/listen_failure_test.cc).
#include <grpcpp/impl/service_type.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "router/control/control_server.h"

namespace benchgate::router::control {
namespace {

namespace fs = std::filesystem;

class ListenFailureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ =
        fs::temp_directory_path() / ("benchgate-listen-failure-" + std::to_string(::getpid()));
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  fs::path folder_;
};

TEST_F(ListenFailureTest, TheControlServerReportsTheCause) {
  const std::string path = (folder_ / "absent" / "control.sock").string();
  grpc::Service service;  // no methods: the server never starts
  auto server = ControlServer::start("unix:" + path, service);
  ASSERT_FALSE(server);
  EXPECT_EQ(server.message(), "cannot listen for control on unix:" + path + ": folder " +
                                  (folder_ / "absent").string() + " does not exist");
}

}  // namespace
}  // namespace benchgate::router::control
