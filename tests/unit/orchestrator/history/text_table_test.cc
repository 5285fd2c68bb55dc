// TextTable lines columns up without trailing spaces.
#include "orchestrator/history/text_table.h"

#include <gtest/gtest.h>

namespace benchgate::history {
namespace {

TEST(TextTable, PadsEveryColumnToItsWidestCellAndAlignsNumbersRight) {
  TextTable table({"ID", "NAME", "N"});
  table.align(2, TextTable::Align::kRight);
  table.add_row({"1", "alpha", "7"});
  table.add_row({"12", "b", "1234"});
  EXPECT_EQ(table.render(),
            "ID  NAME      N\n"
            "1   alpha     7\n"
            "12  b      1234\n");
}

TEST(TextTable, MissingCellsPrintEmptyAndLinesHaveNoTrailingSpaces) {
  TextTable table({"A", "B"}, "  ");
  table.add_row({"x"});
  EXPECT_EQ(table.render(), "  A  B\n  x\n");
}

TEST(TextTable, MultiByteCharactersCountAsOneColumn) {
  TextTable table({"UNIT", "X"});
  table.add_row({"\xc2\xb5s", "1"});  // "µs"
  EXPECT_EQ(table.render(), "UNIT  X\n\xc2\xb5s    1\n");
}

// A last cell of several lines (a gate's explanation quoting a child's stderr) goes on under its
// column; its widest line sets the column's width, and no line has trailing spaces.
TEST(TextTable, ALastCellOfSeveralLinesGoesOnUnderItsColumn) {
  TextTable table({"ID", "WHY"}, "  ");
  table.add_row({"1", "first\nsecond line\n\nlast"});
  table.add_row({"22", "one"});
  EXPECT_EQ(table.render(),
            "  ID  WHY\n"
            "  1   first\n"
            "      second line\n"
            "\n"
            "      last\n"
            "  22  one\n");
}

}  // namespace
}  // namespace benchgate::history
