// A failed listen's cause is named (common/net/listen_failure.h): each case is set up for real
// (a bound port, a missing folder, a file in the way).
#include "common/net/listen_failure.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace benchgate::net {
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

TEST_F(ListenFailureTest, AMissingFolderIsNamed) {
  const std::string path = (folder_ / "absent" / "control.sock").string();
  EXPECT_EQ(why_not_listening("unix:" + path),
            "folder " + (folder_ / "absent").string() + " does not exist");
}

TEST_F(ListenFailureTest, AFileAlreadyAtThePathIsNamed) {
  const std::string path = (folder_ / "control.sock").string();
  std::ofstream(path) << "x";
  EXPECT_EQ(why_not_listening("unix:" + path), path + " already exists and is not a socket");
}

TEST_F(ListenFailureTest, APathTooLongForASocketSaysHowLongItMayBe) {
  const std::string path = "/" + std::string(200, 'a');
  EXPECT_EQ(why_not_listening("unix:" + path),
            "the Unix socket's path is 201 bytes long; at most 107 fit");
}

TEST_F(ListenFailureTest, APortInUseIsNamed) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  socklen_t length = sizeof address;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const std::string port = std::to_string(ntohs(address.sin_port));
  EXPECT_EQ(why_not_listening("127.0.0.1:" + port), "port " + port + " is in use");
  ::close(fd);
}

TEST_F(ListenFailureTest, AnAddressThatIsNeitherFormIsNamed) {
  EXPECT_EQ(why_not_listening("127.0.0.1"), "not a valid HOST:PORT or unix:PATH");
  EXPECT_EQ(why_not_listening("127.0.0.1:http"), "not a valid HOST:PORT or unix:PATH");
  EXPECT_EQ(why_not_listening("127.0.0.1:70000"), "not a valid HOST:PORT or unix:PATH");
}

}  // namespace
}  // namespace benchgate::net
