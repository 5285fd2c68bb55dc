// Unit parsing and formatting (common/units/units.h, docs/SCENARIOS.md "Units").
#include "common/units/units.h"

#include <gtest/gtest.h>

#include <string_view>

namespace benchgate {
namespace {

TEST(ParseDuration, AcceptsEveryUnit) {
  EXPECT_EQ(*parse_duration_ns("100ns"), 100);
  EXPECT_EQ(*parse_duration_ns("250us"), 250'000);
  EXPECT_EQ(*parse_duration_ns("5ms"), 5'000'000);
  EXPECT_EQ(*parse_duration_ns("1.5s"), 1'500'000'000);
  EXPECT_EQ(*parse_duration_ns("3m"), 180'000'000'000);
  EXPECT_EQ(*parse_duration_ns("2h"), 7'200'000'000'000);
  EXPECT_EQ(*parse_duration_ns("7\xC2\xB5s"), 7'000);  // "7µs"
}

TEST(ParseDuration, DecimalFractionsAreExact) {
  EXPECT_EQ(*parse_duration_ns("0.1s"), 100'000'000);
  EXPECT_EQ(*parse_duration_ns("0.3s"), 300'000'000);
  EXPECT_EQ(*parse_duration_ns("1.000000001s"), 1'000'000'001);
  EXPECT_EQ(*parse_duration_ns(".5ms"), 500'000);
  EXPECT_EQ(*parse_duration_ns("2.50000000000000000000ms"), 2'500'000);
}

TEST(ParseDuration, AllowsSurroundingAndSeparatingSpaces) {
  EXPECT_EQ(*parse_duration_ns(" 250 us "), 250'000);
}

TEST(ParseDuration, HundredDaysIsTheLimit) {
  EXPECT_EQ(*parse_duration_ns("2400h"), 8'640'000'000'000'000);
  EXPECT_FALSE(parse_duration_ns("2400.000001h"));
  EXPECT_FALSE(parse_duration_ns("99999999999999999h"));
}

TEST(ParseDuration, RejectsMalformedTextWithAMessageNamingIt) {
  for (const char* bad : {"", "250", "ms", "-5ms", "5 parsecs", "1e3ms", "1.2.3s", "+5s", "1.5ns",
                          "0x10ms", "inf s", "5MS"}) {
    auto result = parse_duration_ns(bad);
    ASSERT_FALSE(result) << bad;
    EXPECT_FALSE(result.message().empty());
  }
  EXPECT_NE(parse_duration_ns("250").message().find("unit"), std::string::npos);
  EXPECT_NE(parse_duration_ns("-5ms").message().find("negative"), std::string::npos);
  EXPECT_NE(parse_duration_ns("5 parsecs").message().find("parsecs"), std::string::npos);
}

TEST(ParseSize, AcceptsPlainBytesAndDecimalAndBinaryUnits) {
  EXPECT_EQ(*parse_size_bytes("64"), 64u);
  EXPECT_EQ(*parse_size_bytes("64B"), 64u);
  EXPECT_EQ(*parse_size_bytes("1KB"), 1000u);
  EXPECT_EQ(*parse_size_bytes("1kB"), 1000u);
  EXPECT_EQ(*parse_size_bytes("1KiB"), 1024u);
  EXPECT_EQ(*parse_size_bytes("1.5MB"), 1'500'000u);
  EXPECT_EQ(*parse_size_bytes("2MiB"), 2u * 1024 * 1024);
  EXPECT_EQ(*parse_size_bytes("1GB"), 1'000'000'000u);
  EXPECT_EQ(*parse_size_bytes("1GiB"), 1024u * 1024 * 1024);
  EXPECT_EQ(*parse_size_bytes("1.5KiB"), 1536u);
  EXPECT_EQ(*parse_size_bytes("0"), 0u);
  EXPECT_EQ(*parse_size_bytes("16 TiB"), uint64_t{16} << 40);
}

TEST(ParseSize, FractionsMustComeOutAsWholeBytes) {
  auto result = parse_size_bytes("1.0001KB");
  ASSERT_FALSE(result);
  EXPECT_NE(result.message().find("whole number of bytes"), std::string::npos);
  EXPECT_FALSE(parse_size_bytes("0.5"));
  EXPECT_FALSE(parse_size_bytes("1.1KiB"));
}

TEST(ParseSize, RejectsNegativeUnknownAndOversizedValues) {
  for (const char* bad : {"", "-1", "-1KB", "1XB", "1kb", "B", "KB", "1e3", "nan",
                          "99999999999999999999", "9999999999TiB"}) {
    EXPECT_FALSE(parse_size_bytes(bad)) << bad;
  }
  EXPECT_NE(parse_size_bytes("-1KB").message().find("negative"), std::string::npos);
}

TEST(ParsePercent, ConvertsToAFraction) {
  EXPECT_DOUBLE_EQ(*parse_percent("5%"), 0.05);
  EXPECT_DOUBLE_EQ(*parse_percent("0.5%"), 0.005);
  EXPECT_DOUBLE_EQ(*parse_percent("0%"), 0.0);
  EXPECT_DOUBLE_EQ(*parse_percent("150 %"), 1.5);
}

TEST(ParsePercent, RequiresAPercentSignAndAFiniteNonNegativeNumber) {
  for (const char* bad : {"5", "", "%", "-5%", "inf%", "nan%", "1e2%", "5%%", "five%"}) {
    EXPECT_FALSE(parse_percent(bad)) << bad;
  }
  EXPECT_NE(parse_percent("5").message().find("%"), std::string::npos);
}

// The parsers quote the text they were given, and their callers show the message as it is (on
// a terminal, in serve's answers, in the router's start-up error): a line break or an escape
// sequence in a bad value is shown escaped, so that it neither forges a line nor colours one.
TEST(ParseErrors, ShowTheBadValueWithItsControlCharactersEscaped) {
  EXPECT_EQ(parse_duration_ns("5\nms").message(),
            "unknown duration unit '\\nms' in '5\\nms' (ns, us, ms, s, m, h)");
  EXPECT_EQ(parse_duration_ns("-5ms\r\n").message(), "negative duration '-5ms\\r\\n'");
  EXPECT_EQ(parse_size_bytes("1\x1b[31mKB").message(),
            "unknown size unit '\\x1b[31mKB' in '1\\x1b[31mKB' (B, KB, MB, GB, TB, KiB, MiB, GiB, "
            "TiB)");
  EXPECT_EQ(parse_size_bytes(std::string_view("64\0B", 4)).message(),
            "unknown size unit '\\x00B' in '64\\x00B' (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)");
  EXPECT_EQ(parse_percent("5\n%").message(), "percentage '5\\n%' needs a '%' sign, e.g. '5%'");
}

TEST(FormatDuration, UsesTheLargestFittingUnitWithThreeSignificantDigits) {
  EXPECT_EQ(format_duration_ns(0), "0ns");
  EXPECT_EQ(format_duration_ns(999), "999ns");
  EXPECT_EQ(format_duration_ns(1500), "1.5us");
  EXPECT_EQ(format_duration_ns(2'000'000), "2ms");
  EXPECT_EQ(format_duration_ns(3'500'000'000), "3.5s");
  EXPECT_EQ(format_duration_ns(1'234'567), "1.23ms");
  EXPECT_EQ(format_duration_ns(12'345'678), "12.3ms");
  EXPECT_EQ(format_duration_ns(999'600), "1ms");  // rounding carries into the next unit
  EXPECT_EQ(format_duration_ns(0.25), "0.25ns");
  EXPECT_EQ(format_duration_ns(-1500), "-1.5us");
}

TEST(FormatBytes, UsesDecimalUnitsWithTwoDecimals) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1500), "1.50 kB");
  EXPECT_EQ(format_bytes(2.5e6), "2.50 MB");
  EXPECT_EQ(format_bytes(999'999), "1.00 MB");
  EXPECT_EQ(format_bytes(3e12), "3.00 TB");
}

// A rate as the reports write one (the tables' ops/s, a gate's figure, the live line).
TEST(FormatRate, WholeFromTenOnAndThreeSignificantDigitsUnder) {
  EXPECT_EQ(format_rate(12345.6), "12346");
  EXPECT_EQ(format_rate(10), "10");
  EXPECT_EQ(format_rate(9.87), "9.87");
  EXPECT_EQ(format_rate(2.5), "2.5");
  EXPECT_EQ(format_rate(0.001), "0.001");  // not "0"
  EXPECT_EQ(format_rate(0), "0");
}

TEST(FormatMegabytesPerSecond, TwoDecimalsInMegabytes) {
  EXPECT_EQ(format_megabytes_per_second(1.5e6), "1.50");
  EXPECT_EQ(format_megabytes_per_second(123456789), "123.46");
  EXPECT_EQ(format_megabytes_per_second(0), "0.00");
  EXPECT_EQ(format_megabytes_per_second(5000), "0.01");
  // Below 0.005 MB/s two decimals would read 0.00: three significant digits instead, never an
  // exponent.
  EXPECT_EQ(format_megabytes_per_second(1000), "0.00100");
  EXPECT_EQ(format_megabytes_per_second(1234), "0.00123");
  EXPECT_EQ(format_megabytes_per_second(50), "0.0000500");
}

}  // namespace
}  // namespace benchgate
