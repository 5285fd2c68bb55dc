// Token helpers of common/security: token files are refused unless owner-only (or read-only for
// the process's own group) and non-empty, written files are 0600, comparison and parsing of the
// Bearer metadata, loopback detection.
#include "common/security/token.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace benchgate::security {
namespace {

namespace fs = std::filesystem;

class TokenFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "benchgate-token-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string file(const std::string& text, mode_t mode) {
    const std::string path = dir_ + "/token";
    std::ofstream(path) << text;
    ::chmod(path.c_str(), mode);
    return path;
  }

  std::string dir_;
};

TEST_F(TokenFileTest, AnOwnerOnlyFileGivesItsFirstLineTrimmed) {
  auto token = read_token_file(file("  s3cret-token \r\nsecond line\n", 0600));
  ASSERT_TRUE(token.ok()) << token.message();
  EXPECT_EQ(*token, "s3cret-token");
  auto read_only = read_token_file(file("abc", 0400));
  ASSERT_TRUE(read_only.ok()) << read_only.message();
  EXPECT_EQ(*read_only, "abc");
}

TEST_F(TokenFileTest, AFileReadableByOthersIsRefusedNamingTheModeAndTheFix) {
  const std::string path = file("s3cret\n", 0644);
  auto token = read_token_file(path);
  ASSERT_FALSE(token.ok());
  EXPECT_NE(token.message().find("mode 0644"), std::string::npos) << token.message();
  EXPECT_NE(token.message().find("chmod 600 " + path), std::string::npos) << token.message();
  EXPECT_EQ(token.message().find("s3cret"), std::string::npos) << "the token leaked";
}

TEST_F(TokenFileTest, AFileWritableOrExecutableByTheGroupIsRefused) {
  EXPECT_FALSE(read_token_file(file("s3cret\n", 0660)).ok());
  EXPECT_FALSE(read_token_file(file("s3cret\n", 0620)).ok());
  EXPECT_FALSE(read_token_file(file("s3cret\n", 0650)).ok());
  EXPECT_FALSE(read_token_file(file("s3cret\n", 0444)).ok());
}

// A Kubernetes Secret volume with fsGroup: the file belongs to root, group fsGroup, mode 0440;
// the non-root container runs with that group as its own (runAsGroup = fsGroup) and can read
// the token only through the group bit. The file made here has the process's group, as there.
// 0444 above stays refused: readable by others.
TEST_F(TokenFileTest, AFileReadOnlyForTheProcesssOwnGroupIsAccepted) {
  const std::string path = file("s3cret\n", 0440);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  ASSERT_EQ(st.st_gid, ::getegid()) << "the test folder gives files another group";
  auto token = read_token_file(path);
  ASSERT_TRUE(token.ok()) << token.message();
  EXPECT_EQ(*token, "s3cret");
  EXPECT_TRUE(read_token_file(file("s3cret\n", 0640)).ok());
}

// Group-readable is accepted only for the process's own group: another group's members could
// read the token. Needs a group of this process other than its effective one to give the file.
TEST_F(TokenFileTest, AFileReadableByAnotherGroupIsRefused) {
  gid_t groups[256];
  const int count = ::getgroups(256, groups);
  gid_t other = ::getegid();
  for (int i = 0; i < count; ++i) {
    if (groups[i] != ::getegid()) other = groups[i];
  }
  if (other == ::getegid() && ::geteuid() == 0) other = ::getegid() + 4242;  // root may give any
  if (other == ::getegid()) GTEST_SKIP() << "this process belongs to one group only";
  const std::string path = file("s3cret\n", 0440);
  ASSERT_EQ(::chown(path.c_str(), static_cast<uid_t>(-1), other), 0);
  ASSERT_EQ(::chmod(path.c_str(), 0440), 0);
  auto token = read_token_file(path);
  ASSERT_FALSE(token.ok());
  EXPECT_NE(token.message().find("mode 0440"), std::string::npos) << token.message();
  // Owner only is still fine whatever the group.
  ASSERT_EQ(::chmod(path.c_str(), 0400), 0);
  EXPECT_TRUE(read_token_file(path).ok());
}

TEST_F(TokenFileTest, AnEmptyOrBlankFirstLineIsRefused) {
  auto empty = read_token_file(file("", 0600));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.message().find("empty"), std::string::npos) << empty.message();
  EXPECT_FALSE(read_token_file(file("   \nsecond\n", 0600)).ok());
}

TEST_F(TokenFileTest, AMissingFileOrAFolderIsRefused) {
  auto missing = read_token_file(dir_ + "/none");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find(dir_ + "/none"), std::string::npos) << missing.message();
  ::chmod(dir_.c_str(), 0700);
  EXPECT_FALSE(read_token_file(dir_).ok());
}

TEST_F(TokenFileTest, AFifoIsRefusedAtOnceInsteadOfWaitingForAWriter) {
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto read = read_token_file(fifo);  // blocked forever in open() before O_NONBLOCK
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.message(), "token file '" + fifo + "' is a FIFO (named pipe), not a regular file");
}

TEST_F(TokenFileTest, ADeviceIsRefused) {
  auto read = read_token_file("/dev/null");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.message().find("is a character device, not a regular file"), std::string::npos)
      << read.message();
}

TEST_F(TokenFileTest, ALinkToAnOwnerOnlyFileIsFollowed) {
  // Mounted secrets (Kubernetes, Docker) are links to the file.
  const std::string target = file("secret\n", 0600);
  const std::string link = dir_ + "/link";
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  auto read = read_token_file(link);
  ASSERT_TRUE(read.ok()) << read.message();
  EXPECT_EQ(*read, "secret");
}

TEST_F(TokenFileTest, AControlCharacterInTheTokenIsRefused) {
  EXPECT_FALSE(read_token_file(file(std::string("ab\x01"
                                                "cd\n"),
                                    0600))
                   .ok());
}

TEST_F(TokenFileTest, AWrittenTokenFileIsOwnerOnlyAndReadsBack) {
  auto token = random_token();
  ASSERT_TRUE(token.ok()) << token.message();
  const std::string path = dir_ + "/written";
  ::umask(0);  // a lax umask must not make the file readable by others
  auto written = write_token_file(path, *token);
  ::umask(022);
  ASSERT_TRUE(written.ok()) << written.message();
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto read = read_token_file(path);
  ASSERT_TRUE(read.ok()) << read.message();
  EXPECT_EQ(*read, *token);
  // Never written through an existing file.
  EXPECT_FALSE(write_token_file(path, "other").ok());
}

TEST(RandomToken, IsSixtyFourHexDigitsAndFreshEachTime) {
  auto a = random_token();
  auto b = random_token();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->size(), 64u);
  EXPECT_EQ(a->find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(*a, *b);
}

TEST(TokensEqual, OnlyTheSameBytesAndLengthMatch) {
  EXPECT_TRUE(tokens_equal("s3cret", "s3cret"));
  EXPECT_FALSE(tokens_equal("s3creT", "s3cret"));
  EXPECT_FALSE(tokens_equal("s3cre", "s3cret"));
  EXPECT_FALSE(tokens_equal("s3crets3cret", "s3cret"));  // a repeat of the token is not it
  EXPECT_FALSE(tokens_equal("", "s3cret"));
  EXPECT_FALSE(tokens_equal("", ""));  // no token configured never matches
}

TEST(BearerToken, TakesTheTokenAfterACaseInsensitiveScheme) {
  EXPECT_EQ(bearer_token("Bearer abc"), "abc");
  EXPECT_EQ(bearer_token("bearer abc"), "abc");
  EXPECT_EQ(bearer_token("Basic abc"), "");
  EXPECT_EQ(bearer_token("abc"), "");
}

TEST(LoopbackHost, OnlyAddressesOfThisMachineCount) {
  for (const char* host :
       {"127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "::ffff:127.0.0.1"}) {
    EXPECT_TRUE(is_loopback_host(host)) << host;
  }
  for (const char* host : {"0.0.0.0", "::", "[::]", "10.0.0.5", "192.168.1.1", "example.com",
                           "localhost.example.com", "128.0.0.1", ""}) {
    EXPECT_FALSE(is_loopback_host(host)) << host;
  }
}

TEST(HostOf, DropsThePortAndBrackets) {
  EXPECT_EQ(host_of("127.0.0.1:0"), "127.0.0.1");
  EXPECT_EQ(host_of("[::1]:7700"), "::1");
  EXPECT_EQ(host_of("0.0.0.0:9000"), "0.0.0.0");
  // Read by the one HOST:PORT parser (common/net/host_port.h): a value that is not HOST:PORT
  // has no host, where a split at its last ':' found "::1" in "::1:7700" (loopback to
  // is_loopback_host) and "unix" in a unix:PATH.
  for (const char* not_host_port :
       {"::1:7700", "unix:/run/w.sock", "127.0.0.1:99999", "[::1]", "127.0.0.1", ":7700"}) {
    EXPECT_EQ(host_of(not_host_port), "") << not_host_port;
    EXPECT_FALSE(is_loopback_host(host_of(not_host_port))) << not_host_port;
  }
}

}  // namespace
}  // namespace benchgate::security
