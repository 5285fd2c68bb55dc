// The control endpoint's listen failure names its cause (common/net/listen_failure.h, whose own
// cases are tested in tests/unit/common/listen_failure_test.cc).
#include <grpcpp/impl/service_type.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "router/control/control_server.h"

namespace benchgate::router::control {
namespace {

TEST(ListenFailureTest, TheControlServerReportsTheCause) {
  // A folder nobody made: nothing to create or remove.
  const std::filesystem::path absent = std::filesystem::temp_directory_path() /
                                       ("benchgate-no-such-folder-" + std::to_string(::getpid()));
  ASSERT_FALSE(std::filesystem::exists(absent));
  const std::string path = (absent / "control.sock").string();
  grpc::Service service;  // no methods: the server never starts
  auto server = ControlServer::start("unix:" + path, service);
  ASSERT_FALSE(server);
  EXPECT_EQ(server.message(), "cannot listen for control on unix:" + path + ": folder " +
                                  absent.string() + " does not exist");
}

}  // namespace
}  // namespace benchgate::router::control
