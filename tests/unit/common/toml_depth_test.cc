// The bound on a TOML text's key parts and nesting, checked before toml++ parses it (a key of
// some 40,000 dotted parts overflowed the stack inside toml++): keys at the start of a line, in
// table headers and in inline tables are counted; dots inside strings, comments and values are
// not.
#include "common/util/toml_depth.h"

#include <gtest/gtest.h>

#include <string>

namespace benchgate {
namespace {

std::string dotted(size_t parts, const std::string& part = "a") {
  std::string key = part;
  for (size_t i = 1; i < parts; ++i) key += "." + part;
  return key;
}

TEST(TomlDepth, AKeyOfSixtyThousandPartsIsRefusedAtItsStart) {
  const std::string text = "name = \"x\"\n" + dotted(60000) + " = 1\n";
  auto problem = toml_depth_problem(text);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->line, 2u);
  EXPECT_EQ(problem->column, 1u);
  EXPECT_EQ(problem->message, "a key has 60000 dotted parts ('a.a.a...'); at most 64 are accepted");
}

TEST(TomlDepth, TheLimitItselfIsAccepted) {
  EXPECT_FALSE(toml_depth_problem(dotted(kMaxTomlKeyParts) + " = 1\n"));
  EXPECT_TRUE(toml_depth_problem(dotted(kMaxTomlKeyParts + 1) + " = 1\n"));
  EXPECT_FALSE(toml_depth_problem("[" + dotted(kMaxTomlKeyParts) + "]\n"));
}

TEST(TomlDepth, ATableHeaderIsCounted) {
  const std::string text = "name = \"x\"\n\n  [" + dotted(65, "b") + "]\nx = 1\n";
  auto problem = toml_depth_problem(text);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->line, 3u);
  EXPECT_EQ(problem->column, 4u);
  EXPECT_EQ(problem->message, "a key has 65 dotted parts ('b.b.b...'); at most 64 are accepted");
  EXPECT_TRUE(toml_depth_problem("[[ " + dotted(100) + " ]]\n"));
}

TEST(TomlDepth, AnInlineTablesKeyIsCounted) {
  const std::string text = "[t]\nv = { x = 1, " + dotted(70) + " = 2 }\n";
  auto problem = toml_depth_problem(text);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->line, 2u);
  EXPECT_EQ(problem->column, 14u);
  // Inside an array of inline tables over several lines too.
  auto in_array =
      toml_depth_problem("v = [\n  { x = 1 },\n  # c\n  {y=2," + dotted(65) + "=3},\n]\n");
  ASSERT_TRUE(in_array);
  EXPECT_EQ(in_array->line, 4u);
  EXPECT_EQ(in_array->column, 8u);
}

TEST(TomlDepth, QuotedPartsAreParts) {
  auto problem = toml_depth_problem(dotted(65, "\"a.b\"") + " = 1\n");
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->message,
            "a key has 65 dotted parts ('\"a.b\".\"a.b\".\"a.b\"...'); at most 64 are accepted");
  EXPECT_TRUE(toml_depth_problem(dotted(65, "'x'") + " = 1\n"));
  // One quoted key full of dots is one part.
  EXPECT_FALSE(toml_depth_problem("\"" + dotted(1000) + "\" = 1\n"));
}

TEST(TomlDepth, DotsInStringsCommentsAndValuesAreNotCounted) {
  const std::string many = dotted(1000);
  EXPECT_FALSE(toml_depth_problem("a = \"" + many + "\"\n"));
  EXPECT_FALSE(toml_depth_problem("a = '" + many + "'\n"));
  EXPECT_FALSE(toml_depth_problem("a = \"\"\"\n" + many + "\n" + many + " = 1\n\"\"\"\n"));
  EXPECT_FALSE(toml_depth_problem("a = '''\n" + many + " = 1\n[" + many + "]\n'''\n"));
  EXPECT_FALSE(toml_depth_problem("a = \"\\\"" + many + "\"\n"));
  EXPECT_FALSE(toml_depth_problem("a = \"\"\"x\\\"\"\"\n" + many + " = 1\n\"\"\"\n"));
  EXPECT_FALSE(toml_depth_problem("# " + many + "\n  # [" + many + "]\n"));
  EXPECT_FALSE(toml_depth_problem("a = 1 # " + many + "\n"));
  EXPECT_FALSE(toml_depth_problem("a = [1.5, 2.25, 1e3] # " + many + "\n"));
  EXPECT_FALSE(
      toml_depth_problem("a = 1.5\nb = 1979-05-27T07:32:00.999999Z\n"
                         "c = 1979-05-27 07:32:00.5\nd = 07:32:00.25\n"));
  EXPECT_FALSE(toml_depth_problem("a = { s = \"" + many + "\", t = 1.5 }\n"));
  EXPECT_FALSE(toml_depth_problem("a = [\"" + many + "\", '" + many + "']\n"));
  // A multi-line string that ends in quotes of its own.
  EXPECT_FALSE(toml_depth_problem("a = \"\"\"x\"\"\"\"\"\n" + dotted(64) + " = 1\n"));
  // After every one of these the scan goes on: the key below is still found.
  const std::string text = "a = \"\"\"\n" + many + "\n\"\"\" # " + many + "\nb = [\n  '" + many +
                           "', # " + many + "\n]\n" + dotted(65) + " = 1\n";
  auto problem = toml_depth_problem(text);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->line, 7u);
  EXPECT_EQ(problem->column, 1u);
}

TEST(TomlDepth, NestingIsBounded) {
  // 64 parts in the header and 64 in the key: 128, the limit.
  EXPECT_FALSE(toml_depth_problem("[" + dotted(64) + "]\n" + dotted(64) + " = 1\n"));
  auto problem =
      toml_depth_problem("[" + dotted(64) + "]\nx = 1\ny = { " + dotted(64, "b") + " = 1 }\n");
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->line, 3u);
  EXPECT_EQ(problem->column, 7u);
  EXPECT_EQ(problem->message,
            "key 'b.b.b...' is nested 129 deep (counting the dotted parts of its table header and "
            "keys and the arrays and inline tables around it); at most 128 are accepted");
  // Inline tables whose keys are each within bounds.
  std::string nested = "v = ";
  for (int i = 0; i < 10; ++i) nested += "{ " + dotted(20) + " = ";
  nested += "1" + std::string(10, '}') + "\n";
  ASSERT_TRUE(toml_depth_problem(nested));
  EXPECT_EQ(toml_depth_problem(nested)->column, 7u + 6 * 44);
  // Arrays.
  EXPECT_FALSE(toml_depth_problem("v = " + std::string(127, '[') + std::string(127, ']') + "\n"));
  auto arrays = toml_depth_problem("v = " + std::string(200, '[') + std::string(200, ']') + "\n");
  ASSERT_TRUE(arrays);
  EXPECT_EQ(arrays->column, 5u + 127);
  EXPECT_EQ(arrays->message.substr(0, 24), "an array is nested 129 d");
}

TEST(TomlDepth, ColumnsCountCharacters) {
  auto problem = toml_depth_problem("\"é\" = { \"ü\" = 1, " + dotted(65) + " = 1 }\n");
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->column, 18u);
}

TEST(TomlDepth, TextThatIsNotTomlEnds) {
  EXPECT_FALSE(toml_depth_problem(""));
  EXPECT_FALSE(toml_depth_problem("a = \"unclosed\nb = '\nc = \"\"\"\n"));
  EXPECT_FALSE(toml_depth_problem("a = [1, 2\n"));
  EXPECT_FALSE(toml_depth_problem("a = {b = 1\n"));
  EXPECT_FALSE(toml_depth_problem("= = = [ { ] } \\\n\"\\"));
  EXPECT_FALSE(toml_depth_problem("[a.b\nc.d\n[[\n"));
  EXPECT_FALSE(toml_depth_problem("a.b.\n.c = 1\n"));
}

}  // namespace
}  // namespace benchgate
