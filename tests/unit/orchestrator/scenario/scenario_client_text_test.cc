// Keys, values and table names of a scenario reach the loader's messages, and serve passes
// those to its clients: a line break, an escape sequence or a NUL in them is shown escaped, so
// that a message stays one line and colours nothing, while ordinary text and UTF-8 read as
// written.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/util/shown_text.h"
#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

constexpr std::string_view kWorkload = "[[workloads]]\nname = \"w\"\n";

// The one line a file with a single problem gets, checked to hold no byte that could end the
// line or start a terminal sequence.
std::string only_line_of(const std::string& text) {
  const LoadResult r = test_support::load_hermetic(text);
  EXPECT_FALSE(r.ok());
  const auto lines = test_support::diagnostic_lines(r);
  EXPECT_EQ(lines.size(), 1u) << test_support::diagnostics_text(r);
  if (lines.empty()) return "";
  for (const char c : lines[0]) {
    const auto byte = static_cast<unsigned char>(c);
    EXPECT_TRUE(byte >= 0x20 && byte != 0x7f) << "byte " << int{byte} << " in " << lines[0];
  }
  return lines[0];
}

TEST(ScenarioClientText, ControlCharactersAreShownEscapedAndOrdinaryTextAsItIs) {
  EXPECT_EQ(shown_text("plain text: ok/1.5s"), "plain text: ok/1.5s");
  EXPECT_EQ(shown_text("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(shown_text("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(shown_text("\x1b[31mred"), "\\x1b[31mred");
  EXPECT_EQ(shown_text(std::string_view("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(shown_text("del\x7f"), "del\\x7f");
  // A backslash is ordinary text: a Windows path reads as written.
  EXPECT_EQ(shown_text("C:\\temp\\x"), "C:\\temp\\x");
}

TEST(ScenarioClientText, InvalidUtf8AndCodePointsThatActAreShownAsCodes) {
  EXPECT_EQ(shown_text("\xff"), "\\xff");
  EXPECT_EQ(shown_text("a\xc3"), "a\\xc3");                  // cut short at the end
  EXPECT_EQ(shown_text("\xc3(x"), "\\xc3(x");                // a lead byte without its follower
  EXPECT_EQ(shown_text("\xc0\xaf"), "\\xc0\\xaf");           // an overlong '/'
  EXPECT_EQ(shown_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a UTF-16 surrogate
  EXPECT_EQ(shown_text("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(shown_text("\xc2\x9b"
                       "2J"),
            "\\u009b2J");                                // C1 CSI
  EXPECT_EQ(shown_text("x\xe2\x80\xaey"), "x\\u202ey");  // right-to-left override
  EXPECT_EQ(shown_text("\xe2\x80\xa8"), "\\u2028");      // line separator
}

TEST(ScenarioClientText, LinesAreShownEachEscapedAndKeepTheirBreaks) {
  // A job's output as `run --server` prints it, a stored error as `runs show` does.
  EXPECT_EQ(shown_lines("a \x1b[31mred\x07\nb\n", "", true), "a \\x1b[31mred\\x07\nb\n");
  EXPECT_EQ(shown_lines("a\r\nb", "  "), "a\n  b");
  EXPECT_EQ(shown_lines("no break", "", true), "no break");
  EXPECT_EQ(shown_lines("", "", true), "");
}

TEST(ScenarioClientText, AnUnknownKeyWithAnEscapeSequenceIsShownEscaped) {
  EXPECT_EQ(
      only_line_of("name = \"s\"\n\"x\\u001b[2J\\nforged: error\" = 1\n" + std::string(kWorkload)),
      "s.toml:2:1: error: unknown key 'x\\x1b[2J\\nforged: error' at the top level");
}

TEST(ScenarioClientText, AValueWithALineBreakIsShownEscaped) {
  EXPECT_EQ(only_line_of("name = \"s\\ns.toml:1:1: error: forged\"\n" + std::string(kWorkload)),
            "s.toml:1:8: error: key 'name' must match [a-z0-9_.-]+, got "
            "'s\\ns.toml:1:1: error: forged'");
  // Through the reader's own quoting (a value of a unit) and through a choice.
  EXPECT_EQ(only_line_of("name = \"s\"\n[[workloads]]\nname = \"w\"\nduration = \"1s\\u0000\"\n"),
            "s.toml:4:12: error: key 'duration' has a bad duration \"1s\\x00\": unknown duration "
            "unit 's\\x00' in '1s\\x00' (ns, us, ms, s, m, h); write it like \"250us\" "
            "or \"1.5s\"");
  EXPECT_EQ(only_line_of("name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"h\\ttp\"\n"),
            "s.toml:4:12: error: key 'protocol' must be one of http1, http2, wamp_rpc, "
            "wamp_pubsub or wamp_transfer, got 'h\\ttp'");
}

TEST(ScenarioClientText, ATableNameWithControlCharactersIsShownEscaped) {
  EXPECT_EQ(only_line_of("name = \"s\"\n[routers.\"a\\r\\nb\"]\nimpl = \"builtin\"\n" +
                         std::string(kWorkload)),
            "s.toml:2:10: error: router name 'a\\r\\nb' must match [a-z0-9_.-]+");
  EXPECT_EQ(only_line_of("name = \"s\"\n[worker_impls.\"w\\u001b\"]\n" + std::string(kWorkload)),
            "s.toml:2:15: error: worker name 'w\\x1b' must match [a-z0-9_.-]+");
}

TEST(ScenarioClientText, AnInterpolationInAValueIsShownEscaped) {
  EXPECT_EQ(
      only_line_of("name = \"s\"\ndescription = \"${env:\\u001b}\"\n" + std::string(kWorkload)),
      "s.toml:2:15: error: key 'description': '${env:\\x1b}' does not name an environment "
      "variable");
}

TEST(ScenarioClientText, ACharacterTomlDidNotExpectIsShownEscaped) {
  // toml++ quotes the character it saw as it is; a C1 CSI (0x9b) starts a terminal sequence.
  EXPECT_EQ(only_line_of("name = \"s\"\na\xc2\x9b"
                         "2J = 1\n"),
            "s.toml:2:2: error: TOML syntax error: Error while parsing key-value pair: expected "
            "'=', saw '\\u009b'");
}

// The plain explanations after a TOML syntax error (scenario_errors_test.cc has the common
// ones): a float with a unit is explained as an integer with one is, and a character that is no
// word gets no quoted word.
TEST(ScenarioClientText, ASyntaxErrorsExplanationQuotesTheWordAtFault) {
  EXPECT_EQ(only_line_of("name = \"s\"\n[[workloads]]\nname = \"w\"\nwarmup = 1.5s\n"),
            "s.toml:4:13: error: TOML syntax error: Error while parsing floating-point: expected "
            "decimal digit, saw 's'; a number with a unit is a string in a scenario: quote it "
            "(\"1.5s\")");
  EXPECT_EQ(only_line_of("name = @\n"),
            "s.toml:1:8: error: TOML syntax error: Error while parsing value: could not "
            "determine value type");
}

TEST(ScenarioClientText, TheFileNameIsShownEscapedOnEveryLine) {
  // serve names a submission by the file name its client sent.
  const LoadResult r =
      load_scenario_text("name = 1\n", "a\xc2\x9b\x1b.toml", test_support::hermetic_options());
  const auto lines = test_support::diagnostic_lines(r);
  ASSERT_FALSE(lines.empty());
  for (const std::string& line : lines) {
    EXPECT_TRUE(line.starts_with("a\\u009b\\x1b.toml:1:")) << line;
  }
}

}  // namespace
}  // namespace benchgate::scenario
