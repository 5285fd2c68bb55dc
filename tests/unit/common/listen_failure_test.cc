// A failed listen's cause is named (common/net/listen_failure.h): each case is set up for real
// (a bound port, a missing folder, a file in the way, a Unix socket a server listens on).
#include "common/net/listen_failure.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
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

// Where the connect attempt cannot tell whether a server listens, the socket is not taken over:
// taking it from a live owner is what the check exists to prevent.
TEST_F(ListenFailureTest, ASocketOfAnotherTypeBoundThereIsInUse) {
  const std::string path = (folder_ / "datagram.sock").string();
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.data(), path.size());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  const std::string in_use =
      "Unix socket " + path + " is in use (a socket of another type is bound there)";
  EXPECT_EQ(unix_socket_in_use("unix:" + path), in_use);
  EXPECT_EQ(why_not_listening("unix:" + path), in_use);
  // Once its owner closed it, the file is a stale socket like any other: not in use.
  ::close(fd);
  EXPECT_EQ(unix_socket_in_use("unix:" + path), std::nullopt);
}

TEST_F(ListenFailureTest, ASocketThisUserMayNotConnectToMayBeInUse) {
  const std::string path = (folder_ / "private.sock").string();
  const int fd = unix_socket_at(path, true);
  ASSERT_GE(fd, 0);
  // Owner-only: another user (any user but root, who may connect anyway) gets EACCES.
  fs::permissions(folder_, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  fs::permissions(path, ::geteuid() == 0 ? fs::perms::owner_all : fs::perms::none);
  const std::string may_be =
      "Unix socket " + path + " may be in use: this user may not connect to it (Permission denied)";
  if (::geteuid() != 0) {
    EXPECT_EQ(unix_socket_in_use("unix:" + path), may_be);
    EXPECT_EQ(why_not_listening("unix:" + path), may_be);
  } else {
    // As root: asked by an unprivileged user, in a child.
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(2);
      ::_exit(unix_socket_in_use("unix:" + path) == may_be ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "1: not refused as in use; 2: no unprivileged user";
  }
  ::close(fd);
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

// Read by the one HOST:PORT parser (common/net/host_port.h), with its reason: "::1:0" was
// split at its last ':' and bound as host "::1", ":0" named only as not valid.
TEST_F(ListenFailureTest, AnAddressThatIsNeitherFormIsNamed) {
  EXPECT_EQ(why_not_listening("127.0.0.1"), "not a valid HOST:PORT or unix:PATH: it has no :PORT");
  EXPECT_EQ(why_not_listening("127.0.0.1:http"),
            "not a valid HOST:PORT or unix:PATH: its port 'http' is not a number from 0 to 65535");
  EXPECT_EQ(why_not_listening("127.0.0.1:70000"),
            "not a valid HOST:PORT or unix:PATH: its port '70000' is not a number from 0 to 65535");
  EXPECT_EQ(why_not_listening(":0"), "not a valid HOST:PORT or unix:PATH: its HOST is empty");
  EXPECT_EQ(why_not_listening("::1:0"),
            "not a valid HOST:PORT or unix:PATH: an IPv6 host is written in brackets, as in "
            "\"[::1]:7700\"");
}

}  // namespace
}  // namespace benchgate::net
