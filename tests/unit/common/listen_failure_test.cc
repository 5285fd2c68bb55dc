// A failed listen's cause is named (common/net/listen_failure.h): each case is set up for real
// (a bound port, a missing folder, a file in the way, a Unix socket a server listens on).
#include "common/net/listen_failure.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
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

// A Unix stream socket bound at `path`; listening on it when `listen`.
int unix_socket_at(const std::string& path, bool listen) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.data(), path.size());
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      (listen && ::listen(fd, 4) != 0)) {
    ::close(fd);
    return -1;
  }
  return fd;
}

TEST_F(ListenFailureTest, AUnixSocketAServerListensOnIsInUse) {
  const std::string path = (folder_ / "control.sock").string();
  const int fd = unix_socket_at(path, true);
  ASSERT_GE(fd, 0);
  const std::string in_use = "Unix socket " + path + " is in use";
  EXPECT_EQ(unix_socket_in_use("unix:" + path), in_use);
  EXPECT_EQ(unix_socket_in_use("unix://" + path), in_use);  // gRPC's unix:///ABSOLUTE/PATH
  EXPECT_EQ(why_not_listening("unix:" + path), in_use);
  // Asking took nothing from the server: its socket is still there, and still accepts.
  EXPECT_EQ(unix_socket_in_use("unix:" + path), in_use);
  ::close(fd);
}

TEST_F(ListenFailureTest, ASocketNobodyListensOnAnyMoreIsNotInUse) {
  // What a killed server leaves: the socket file, refusing connections. gRPC replaces it.
  const std::string stale = (folder_ / "stale.sock").string();
  const int fd = unix_socket_at(stale, true);
  ASSERT_GE(fd, 0);
  ::close(fd);
  ASSERT_TRUE(fs::is_socket(stale));
  EXPECT_EQ(unix_socket_in_use("unix:" + stale), std::nullopt);
  // Bound and never listened on: refused too.
  const std::string bound = (folder_ / "bound.sock").string();
  const int quiet = unix_socket_at(bound, false);
  ASSERT_GE(quiet, 0);
  EXPECT_EQ(unix_socket_in_use("unix:" + bound), std::nullopt);
  ::close(quiet);
  // No file, a file that is no socket, and a TCP address are not this check's business.
  EXPECT_EQ(unix_socket_in_use("unix:" + (folder_ / "absent.sock").string()), std::nullopt);
  const std::string file = (folder_ / "file").string();
  std::ofstream(file) << "x";
  EXPECT_EQ(unix_socket_in_use("unix:" + file), std::nullopt);
  EXPECT_EQ(unix_socket_in_use("127.0.0.1:1"), std::nullopt);
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
