// Unit parsing and formatting (docs/SCENARIOS.md, "Units"). Durations and sizes are parsed with
// exact decimal arithmetic, so "0.1s" is exactly 100000000 ns and "1.5KiB" exactly 1536 bytes,
// with no binary floating-point rounding in between.
#include "common/units/units.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

#include "common/util/shown_text.h"

namespace benchgate {
namespace {

using U128 = unsigned __int128;

// At most 19 significant digits: the mantissa stays below 2^64 and times any multiplier
// (< 2^42) fits in 128 bits.
constexpr int kMaxDigits = 19;

// A non-negative decimal number: value = mantissa / 10^scale.
struct Decimal {
  uint64_t mantissa = 0;
  int scale = 0;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The text in quotes as a message may show it: escaped (common/util/shown_text.h), so that a
// line break or an escape sequence in a bad value reaches no caller's terminal as it is.
// Built by appending: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
std::string quoted(std::string_view s) {
  std::string q(1, '\'');
  q.append(shown_text(s));
  q.push_back('\'');
  return q;
}

std::string negated(std::string formatted) { return formatted.insert(0, 1, '-'); }

// Splits "1.5 ms" into the number text "1.5" and the unit "ms".
std::pair<std::string_view, std::string_view> split_number(std::string_view s) {
  size_t end = 0;
  while (end < s.size() && ((s[end] >= '0' && s[end] <= '9') || s[end] == '.')) ++end;
  return {s.substr(0, end), trim(s.substr(end))};
}

// Checks the shape digits[.digits] (at least one digit); no sign, exponent, inf or nan.
bool well_formed_number(std::string_view s) {
  int dots = 0;
  int digits = 0;
  for (char c : s) {
    if (c == '.') {
      ++dots;
    } else {
      ++digits;
    }
  }
  return dots <= 1 && digits > 0;
}

Expected<Decimal> parse_decimal(std::string_view text, std::string_view number) {
  if (!well_formed_number(number)) return Error{"expected a number in " + quoted(text)};
  std::string_view whole = number;
  std::string_view fraction;
  if (const size_t dot = number.find('.'); dot != std::string_view::npos) {
    whole = number.substr(0, dot);
    fraction = number.substr(dot + 1);
  }
  while (!whole.empty() && whole.front() == '0') whole.remove_prefix(1);
  while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
  if (whole.size() + fraction.size() > kMaxDigits) {
    return Error{"number too long or too precise in " + quoted(text)};
  }
  Decimal d;
  for (char c : whole) d.mantissa = d.mantissa * 10 + static_cast<uint64_t>(c - '0');
  for (char c : fraction) d.mantissa = d.mantissa * 10 + static_cast<uint64_t>(c - '0');
  d.scale = static_cast<int>(fraction.size());
  return d;
}

U128 pow10(int n) {
  U128 p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

// mantissa * multiplier / 10^scale, if that is a whole number.
bool scale_exactly(const Decimal& d, uint64_t multiplier, U128& out) {
  const U128 product = U128{d.mantissa} * multiplier;
  const U128 divisor = pow10(d.scale);
  if (product % divisor != 0) return false;
  out = product / divisor;
  return true;
}

struct Unit {
  std::string_view name;
  uint64_t multiplier;
};

constexpr std::array<Unit, 7> kDurationUnits{{{"ns", 1},
                                              {"us", 1'000},
                                              {"\xC2\xB5s", 1'000},  // "µs"
                                              {"ms", 1'000'000},
                                              {"s", 1'000'000'000},
                                              {"m", 60'000'000'000},
                                              {"h", 3'600'000'000'000}}};

constexpr std::array<Unit, 11> kSizeUnits{{{"", 1},
                                           {"B", 1},
                                           {"KB", 1'000},
                                           {"kB", 1'000},
                                           {"MB", 1'000'000},
                                           {"GB", 1'000'000'000},
                                           {"TB", 1'000'000'000'000},
                                           {"KiB", uint64_t{1} << 10},
                                           {"MiB", uint64_t{1} << 20},
                                           {"GiB", uint64_t{1} << 30},
                                           {"TiB", uint64_t{1} << 40}}};

template <size_t N>
const Unit* find_unit(const std::array<Unit, N>& units, std::string_view name) {
  for (const Unit& u : units) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

constexpr int64_t kMaxDurationNs = 100LL * 24 * 3'600'000'000'000LL;  // 100 days

// Rounds to three significant digits.
double round3(double x) {
  if (x == 0.0) return 0.0;
  const double factor = std::pow(10.0, std::floor(std::log10(x)) - 2);
  return std::round(x / factor) * factor;
}

// Fixed-point with up to `decimals` places, trailing zeros (and a bare '.') removed.
std::string trimmed_fixed(double x, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, x);
  std::string s(buf);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

}  // namespace

Expected<int64_t> parse_duration_ns(std::string_view text) {
  const std::string_view s = trim(text);
  if (!s.empty() && s.front() == '-') return Error{"negative duration " + quoted(text)};
  const auto [number, unit_name] = split_number(s);
  if (unit_name.empty()) {
    return Error{"duration " + quoted(text) + " needs a unit (ns, us, ms, s, m, h)"};
  }
  const Unit* unit = find_unit(kDurationUnits, unit_name);
  if (unit == nullptr) {
    return Error{"unknown duration unit " + quoted(unit_name) + " in " + quoted(text) +
                 " (ns, us, ms, s, m, h)"};
  }
  auto decimal = parse_decimal(text, number);
  if (!decimal) return decimal.error();
  U128 ns = 0;
  if (!scale_exactly(*decimal, unit->multiplier, ns)) {
    return Error{"duration " + quoted(text) + " is not a whole number of nanoseconds"};
  }
  if (ns > static_cast<U128>(kMaxDurationNs)) {
    return Error{"duration " + quoted(text) + " is longer than 100 days"};
  }
  return static_cast<int64_t>(ns);
}

Expected<uint64_t> parse_size_bytes(std::string_view text) {
  const std::string_view s = trim(text);
  if (!s.empty() && s.front() == '-') return Error{"negative size " + quoted(text)};
  const auto [number, unit_name] = split_number(s);
  const Unit* unit = find_unit(kSizeUnits, unit_name);
  if (unit == nullptr) {
    return Error{"unknown size unit " + quoted(unit_name) + " in " + quoted(text) +
                 " (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)"};
  }
  auto decimal = parse_decimal(text, number);
  if (!decimal) return decimal.error();
  U128 bytes = 0;
  if (!scale_exactly(*decimal, unit->multiplier, bytes)) {
    return Error{"size " + quoted(text) + " is not a whole number of bytes"};
  }
  if (bytes > static_cast<U128>(UINT64_MAX)) return Error{"size " + quoted(text) + " too large"};
  return static_cast<uint64_t>(bytes);
}

Expected<double> parse_percent(std::string_view text) {
  const std::string_view s = trim(text);
  if (!s.empty() && s.front() == '-') return Error{"negative percentage " + quoted(text)};
  const auto [number, unit] = split_number(s);
  if (unit != "%") return Error{"percentage " + quoted(text) + " needs a '%' sign, e.g. '5%'"};
  if (!well_formed_number(number)) return Error{"expected a number in " + quoted(text)};
  double value = 0.0;
  const auto result = std::from_chars(number.data(), number.data() + number.size(), value);
  if (result.ec != std::errc() || result.ptr != number.data() + number.size() ||
      !std::isfinite(value)) {
    return Error{"percentage " + quoted(text) + " is not a finite number"};
  }
  return value / 100.0;
}

std::string format_duration_ns(double ns) {
  if (std::isnan(ns)) return "nan";
  if (ns < 0) return negated(format_duration_ns(-ns));
  if (std::isinf(ns)) return "inf";
  static constexpr std::array<std::pair<double, const char*>, 4> kUnits{
      {{1.0, "ns"}, {1e3, "us"}, {1e6, "ms"}, {1e9, "s"}}};
  const double rounded = round3(ns);
  size_t u = 0;
  while (u + 1 < kUnits.size() && rounded >= kUnits[u + 1].first) ++u;
  const double x = rounded / kUnits[u].first;
  const int decimals = x >= 100 ? 0 : (x >= 10 ? 1 : 2);
  return trimmed_fixed(x, decimals) + kUnits[u].second;
}

std::string format_bytes(double bytes) {
  if (std::isnan(bytes)) return "nan";
  if (bytes < 0) return negated(format_bytes(-bytes));
  if (std::isinf(bytes)) return "inf";
  char buf[64];
  if (std::round(bytes) < 1000) {
    std::snprintf(buf, sizeof(buf), "%.0f B", bytes);
    return buf;
  }
  static constexpr std::array<const char*, 5> kUnits{"kB", "MB", "GB", "TB", "PB"};
  double scale = 1e3;
  size_t u = 0;
  // Move up while the value would print as 1000.00 or more in the current unit.
  while (u + 1 < kUnits.size() && std::round(bytes / scale * 100) >= 100000) {
    scale *= 1e3;
    ++u;
  }
  std::snprintf(buf, sizeof(buf), "%.2f %s", bytes / scale, kUnits[u]);
  return buf;
}

std::string format_rate(double per_second) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), per_second >= 10 ? "%.0f" : "%.3g", per_second);
  return buf;
}

std::string format_megabytes_per_second(double bytes_per_second) {
  char buf[64];
  const double mb = bytes_per_second / 1e6;
  // Two decimals from 0.005 MB/s up (0.01 and more); below it three significant digits, never
  // an exponent, so that a rate of a few kB/s (a gate's `min = "1kB/s"`) does not read as 0.00.
  int decimals = 2;
  if (mb > 0 && mb < 0.005) {
    decimals = std::min(12, 2 - static_cast<int>(std::floor(std::log10(mb))));
  }
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, mb);
  return buf;
}

}  // namespace benchgate
