// A system error in the case benchgate's messages write a reason (common/util/errno_text.h):
// once three copies, in the report files, run outputs and the listen probe.
#include "common/util/errno_text.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <string>

namespace benchgate {
namespace {

TEST(ErrnoText, LowerCasesOnlyTheFirstCharacter) {
  EXPECT_EQ(lowercase_first("Address already in use"), "address already in use");
  EXPECT_EQ(lowercase_first("Name or service not known"), "name or service not known");
  EXPECT_EQ(lowercase_first("already lower"), "already lower");
  EXPECT_EQ(lowercase_first("X"), "x");
  EXPECT_EQ(lowercase_first(""), "");
  // Not a letter: as it was.
  EXPECT_EQ(lowercase_first("1 Thing"), "1 Thing");
  // A byte past ASCII is not a letter to tolower in the C locale: kept, not mangled.
  EXPECT_EQ(lowercase_first("\xc3\x89t\xc3\xa9"), "\xc3\x89t\xc3\xa9");
}

TEST(ErrnoText, IsStrerrorLowerCaseFirst) {
  for (const int error : {ENOENT, EACCES, EADDRINUSE, ECONNREFUSED, ELOOP}) {
    std::string expected = std::strerror(error);
    ASSERT_FALSE(expected.empty());
    expected[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(expected[0])));
    EXPECT_EQ(errno_text(error), expected) << error;
  }
  // glibc's words, as the messages print them.
  EXPECT_EQ(errno_text(ENOENT), "no such file or directory");
  EXPECT_EQ(errno_text(EADDRINUSE), "address already in use");
}

}  // namespace
}  // namespace benchgate
