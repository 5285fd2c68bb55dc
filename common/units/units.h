// Parsing of the units scenario files use (docs/SCENARIOS.md, "Units"), and formatting for reports.
// Plain functions with plain tests; errors say what was wrong with the text, and quote it with
// what would not print as itself escaped (common/util/shown_text.h): callers show them as they are.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/util/expected.h"

namespace benchgate {

// "250us", "1.5s", "3m", "2h", "100ns", "5ms" -> nanoseconds. A unit is required.
// Negative values and values over 100 days are errors.
Expected<int64_t> parse_duration_ns(std::string_view text);

// "64", "64B", "1KB" (1000), "1KiB" (1024), "1.5MB", "2MiB", "1GB", "1GiB" -> bytes.
// Fractions must come out as a whole number of bytes. Negative values are errors.
Expected<uint64_t> parse_size_bytes(std::string_view text);

// "5%" -> 0.05. A percent sign is required; the value must be finite and >= 0.
Expected<double> parse_percent(std::string_view text);

// 1500 -> "1.5us", 2'000'000 -> "2ms", 3'500'000'000 -> "3.5s" (3 significant digits).
std::string format_duration_ns(double ns);
// Decimal units: 1500 -> "1.50 kB", 2.5e6 -> "2.50 MB".
std::string format_bytes(double bytes);
// A rate per second as every report writes a measured or configured one (ops/s, handshakes/s,
// req/s), without its unit: whole from 10 on, 12345.6 -> "12346"; three significant digits
// under 10, so a rate of 0.001 is not "0": 2.5 -> "2.5", 0.001 -> "0.001".
std::string format_rate(double per_second);
// A data rate in megabytes (10^6 B) per second with two decimals, without its unit, as the
// reports' MB/s columns write it: 1.5e6 -> "1.50", 123456789 -> "123.46"; below 0.005 MB/s,
// where two decimals would read 0.00, three significant digits: 1234 -> "0.00123", 50 ->
// "0.0000500".
std::string format_megabytes_per_second(double bytes_per_second);

}  // namespace benchgate
