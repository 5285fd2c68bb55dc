// A Unix socket bound while OwnerOnlySocketUmask is held (common/net/owner_only_socket.h) is its
// owner's alone, whatever the process's umask; a TCP address leaves the umask as it was.
#include "common/net/owner_only_socket.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>

namespace benchgate::net {
namespace {

namespace fs = std::filesystem;

// The umask for the test's length, and the one before it afterwards.
class OwnerOnlySocketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    before_ = ::umask(022);
    folder_ = fs::temp_directory_path() / ("benchgate-owner-only-" + std::to_string(::getpid()));
    fs::create_directories(folder_);
  }
  void TearDown() override {
    fs::remove_all(folder_);
    ::umask(before_);
  }
  // The mode bits of a Unix socket bound at `path` (what gRPC's bind does), -1 if none was.
  static int socket_mode(const std::string& path) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, path.data(), path.size());
    const bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    ::close(fd);
    struct stat status {};
    if (!bound || ::stat(path.c_str(), &status) != 0) return -1;
    return static_cast<int>(status.st_mode & 0777);
  }

  mode_t before_ = 0;
  fs::path folder_;
};

TEST_F(OwnerOnlySocketTest, AUnixSocketHasNoGroupOrOtherBitsUnderUmask022) {
  const std::string path = (folder_ / "serve.sock").string();
  int mode = -1;
  {
    OwnerOnlySocketUmask owner_only("unix:" + path);
    mode = socket_mode(path);
  }
  ASSERT_NE(mode, -1);
  EXPECT_EQ(mode & 077, 0) << std::oct << mode;
  EXPECT_EQ(mode, 0700) << std::oct << mode;
  // The umask is the process's again once the guard is gone.
  EXPECT_EQ(::umask(022), 022);
}

// Without the guard the same bind is srwxr-xr-x: what `serve --listen unix:PATH` made before.
TEST_F(OwnerOnlySocketTest, WithoutItTheSocketFollowsTheUmask) {
  EXPECT_EQ(socket_mode((folder_ / "plain.sock").string()), 0755);
}

TEST_F(OwnerOnlySocketTest, ATcpAddressLeavesTheUmaskAlone) {
  {
    OwnerOnlySocketUmask owner_only("127.0.0.1:0");
    EXPECT_EQ(::umask(022), 022);
  }
  EXPECT_EQ(::umask(022), 022);
}

// An empty PATH is gRPC's abstract socket, which no file mode guards: refused, in the words the
// worker's --listen, the router's --control and serve's --listen say it.
TEST(UnixAddressWithoutPath, AnEmptyPathIsRefusedAndAnyOtherAddressPasses) {
  EXPECT_EQ(unix_address_without_path("unix:"), "'unix:' names no PATH after unix:");
  EXPECT_EQ(unix_address_without_path("unix://"), "'unix://' names no PATH after unix:");
  for (const char* fine : {"unix:serve.sock", "unix:///run/serve.sock", "unix:@name", "unix:/",
                           "127.0.0.1:0", "[::1]:7700", ""}) {
    EXPECT_EQ(unix_address_without_path(fine), std::nullopt) << fine;
  }
}

}  // namespace
}  // namespace benchgate::net
