// A list of client text in a message is bounded in count as each item is in bytes
// (common/util/shown_list.h): a worker that sent 100,000 unknown names made a message of all of
// them, each cut and escaped but the list uncut.
#include "common/util/shown_list.h"

#include <gtest/gtest.h>

#include <string>

namespace benchgate {
namespace {

TEST(ShownList, WritesEveryItemUpToItsBoundQuotedWithItsNote) {
  ShownList list(3);
  EXPECT_TRUE(list.empty());
  EXPECT_EQ(list.text(), "");
  list.add("a");
  list.add("errors.x", " in not_measured");
  list.add("c");
  EXPECT_EQ(list.size(), 3u);
  EXPECT_EQ(list.text(), "'a', 'errors.x' in not_measured, 'c'");
}

TEST(ShownList, CountsTheItemsPastItsBoundInsteadOfWritingThem) {
  ShownList list;
  for (int i = 0; i < 100'000; ++i) list.add("name" + std::to_string(i));
  EXPECT_EQ(list.size(), 100'000u);
  EXPECT_EQ(list.text(),
            "'name0', 'name1', 'name2', 'name3', 'name4', 'name5', 'name6', 'name7', 'name8', "
            "'name9' and 99990 more");
}

TEST(ShownList, EachItemIsEscapedAndCut) {
  ShownList list(10, 4);
  list.add("ab\ncd");  // five bytes: cut after four
  list.add("\x1b[31m");
  EXPECT_EQ(list.text(), "'ab\\nc...', '\\x1b[31...'");
  EXPECT_EQ(shown_cut("abc", 3), "abc");
  EXPECT_EQ(shown_cut("abcd", 3), "abc...");
}

}  // namespace
}  // namespace benchgate
