// One rule for a text's lines (common/util/text_lines.h), which the gate table, the Markdown
// summary's cells and `runs show` all split a multi-line explanation or error by.
#include "common/util/text_lines.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace benchgate {
namespace {

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> out;
  for (const std::string_view line : text_lines(text)) out.emplace_back(line);
  return out;
}

using Lines = std::vector<std::string>;

TEST(TextLines, EveryLineBreakEndsALineAndALastEmptyLineIsLeftOut) {
  EXPECT_EQ(lines_of("one"), (Lines{"one"}));
  EXPECT_EQ(lines_of("one\ntwo"), (Lines{"one", "two"}));
  EXPECT_EQ(lines_of("one\r\ntwo\rthree\n"), (Lines{"one", "two", "three"}));
  // An empty line inside stays: a child's stderr with a blank line shows it.
  EXPECT_EQ(lines_of("one\n\nthree"), (Lines{"one", "", "three"}));
  // \r\n is one break, \n\r two.
  EXPECT_EQ(lines_of("a\r\nb"), (Lines{"a", "b"}));
  EXPECT_EQ(lines_of("a\n\rb"), (Lines{"a", "", "b"}));
  EXPECT_EQ(lines_of("a\r\r\n"), (Lines{"a", ""}));
}

TEST(TextLines, AnEmptyTextIsOneEmptyLine) {
  EXPECT_EQ(lines_of(""), (Lines{""}));
  EXPECT_EQ(lines_of("\n"), (Lines{""}));
  EXPECT_EQ(lines_of("\r\n"), (Lines{""}));
  EXPECT_EQ(lines_of("\n\n"), (Lines{"", ""}));
}

}  // namespace
}  // namespace benchgate
