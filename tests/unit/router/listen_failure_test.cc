// The control endpoint's listen failure names its cause (common/net/listen_failure.h, whose own
// cases are tested in tests/unit/common/listen_failure_test.cc), and a unix:PATH another control
// server listens on is refused, not taken from it.
#include <grpcpp/create_channel.h>
#include <grpcpp/impl/service_type.h>
#include <grpcpp/security/credentials.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>

#include "router/control/control_server.h"
#include "router/control/control_service.h"
#include "router/http/server.h"

namespace benchgate::router::control {
namespace {

namespace fs = std::filesystem;

TEST(ListenFailureTest, TheControlServerReportsTheCause) {
  // A folder nobody made: nothing to create or remove.
  const fs::path absent =
      fs::temp_directory_path() / ("benchgate-no-such-folder-" + std::to_string(::getpid()));
  ASSERT_FALSE(fs::exists(absent));
  const std::string path = (absent / "control.sock").string();
  grpc::Service service;  // no methods: the server never starts
  auto server = ControlServer::start("unix:" + path, service);
  ASSERT_FALSE(server);
  EXPECT_EQ(server.message(), "cannot listen for control on unix:" + path + ": folder " +
                                  absent.string() + " does not exist");
}

// Control services named `name`, and what Health says at a Unix socket.
class UnixControlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("benchgate-control-" + std::to_string(::getpid()));
    fs::create_directories(folder_);
    path_ = (folder_ / "control.sock").string();
    auto http = http::HttpServer::start(http::ServerOptions{});
    ASSERT_TRUE(http) << http.message();
    http_ = std::move(*http);
  }
  void TearDown() override {
    if (http_) http_->stop();
    fs::remove_all(folder_);
  }

  std::unique_ptr<ControlService> service(const std::string& name) {
    return std::make_unique<ControlService>(RouterFacts{name, "9.9.9", {}, 1}, *http_, [] {});
  }

  // The name in the Health answer at the socket, or the call's error.
  std::string health_name() {
    auto stub = benchgate::v1::RouterControl::NewStub(
        grpc::CreateChannel("unix:" + path_, grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    benchgate::v1::HealthResponse response;
    const grpc::Status status = stub->Health(&context, {}, &response);
    return status.ok() ? response.name() : "error: " + status.error_message();
  }

  fs::path folder_;
  std::string path_;
  std::unique_ptr<http::HttpServer> http_;
};

TEST_F(UnixControlTest, ASecondServerOnASocketInUseIsRefusedAndTheFirstStillAnswers) {
  auto first_service = service("first");
  auto first = ControlServer::start("unix:" + path_, *first_service);
  ASSERT_TRUE(first) << first.message();
  ASSERT_EQ(health_name(), "first");

  // gRPC alone would remove the first one's socket and bind its own at the path.
  auto second_service = service("second");
  auto second = ControlServer::start("unix:" + path_, *second_service);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.message(),
            "cannot listen for control on unix:" + path_ + ": Unix socket " + path_ + " is in use");
  EXPECT_EQ(health_name(), "first");
  (*first)->stop();
}

TEST_F(UnixControlTest, ASocketNobodyListensOnAnyMoreIsReplaced) {
  // What a killed router leaves: the socket file, refusing connections.
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path_.data(), path_.size());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  ::close(fd);
  ASSERT_TRUE(fs::is_socket(path_));

  auto next_service = service("next");
  auto next = ControlServer::start("unix:" + path_, *next_service);
  ASSERT_TRUE(next) << next.message();
  EXPECT_EQ(health_name(), "next");
  (*next)->stop();
}

}  // namespace
}  // namespace benchgate::router::control
