// Stored values as a person reads them.
#include "orchestrator/history/display_format.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

namespace benchgate::history {
namespace {

TEST(DisplayFormat, LocalTimeFollowsTheTimeZone) {
  setenv("TZ", "UTC", 1);
  tzset();
  EXPECT_EQ(format_local_time(1'700'000'000'000'000'000), "2023-11-14 22:13:20");
  setenv("TZ", "UTC-2", 1);  // POSIX: two hours east of UTC
  tzset();
  EXPECT_EQ(format_local_time(1'700'000'000'500'000'000), "2023-11-15 00:13:20");
  setenv("TZ", "UTC", 1);
  tzset();
}

TEST(DisplayFormat, SpansPickAUnitThatReadsAtAGlance) {
  EXPECT_EQ(format_span(850'000'000), "850ms");
  EXPECT_EQ(format_span(12'500'000'000), "12.5s");
  EXPECT_EQ(format_span(65'000'000'000), "1m05s");
  EXPECT_EQ(format_span(7'380'000'000'000), "2h03m");
  EXPECT_EQ(format_span(-1), "-");
}

TEST(DisplayFormat, CommitsAreShortenedAndEmptyValuesShowADash) {
  EXPECT_EQ(short_commit("0123456789abcdef0123"), "0123456789");
  EXPECT_EQ(short_commit("abc"), "abc");
  EXPECT_EQ(short_commit(""), "-");
  EXPECT_EQ(or_dash(""), "-");
  EXPECT_EQ(or_dash("main"), "main");
}

// A run measured on a tree that differed from its commit (git_revision's "SHA-dirty") must not
// read as the commit's own run once shortened.
TEST(DisplayFormat, AShortCommitKeepsTheDirtyMark) {
  EXPECT_EQ(short_commit("6bcb6d6650aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-dirty"), "6bcb6d6650-dirty");
  EXPECT_EQ(short_commit("abc-dirty"), "abc-dirty");
  EXPECT_EQ(short_commit("-dirty"), "-dirty");
}

// Who started a run: a run stored before schema version 23 has no origin (nobody recorded it,
// and serve's jobs or clients may have started it); it said "local (orchestrator run; ...)".
TEST(DisplayFormat, AnOriginNobodyRecordedIsSaidToBeNotRecorded) {
  EXPECT_EQ(origin_text(""),
            "not recorded (stored before schema version 23; counted as the operator's)");
  EXPECT_EQ(origin_text("local"), "local (orchestrator run; a point of the operator's series)");
}

TEST(DisplayFormat, LabelsAreListedInKeyOrder) {
  EXPECT_EQ(format_labels({{"z", "1"}, {"ci", "yes"}}), "ci=yes,z=1");
  EXPECT_EQ(format_labels({}), "-");
}

TEST(DisplayFormat, LatenciesCarryAUnitAndUnmeasuredIsNotZero) {
  EXPECT_EQ(format_latency_ns(1'000'000), "1ms");
  EXPECT_EQ(format_latency_ns(42'000), "42us");
  EXPECT_EQ(format_latency_ns(std::nullopt), "-");
}

TEST(DisplayFormat, PercentagesAreSignedWithTwoDecimals) {
  EXPECT_EQ(format_percent(0.5), "+50.00%");
  EXPECT_EQ(format_percent(-0.0123), "-1.23%");
  EXPECT_EQ(format_percent(0), "+0.00%");
}

}  // namespace
}  // namespace benchgate::history
