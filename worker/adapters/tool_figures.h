// What a wrapped tool's output says about one window, in the worker's terms, and the small
// text helpers its parsers share. A parser fills only what the tool printed.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "worker/engine/error_kind.h"
#include "worker/engine/window_result.h"

namespace benchgate::worker::adapters {

struct ToolFigures {
  uint64_t operations = 0;  // requests the tool completed in the window
  uint64_t successes = 0;
  ErrorCounts errors{};
  std::optional<uint64_t> bytes_received;  // exact wire bytes, when the tool prints them
  ToolLatency latency;                     // `tool` is left for the caller to name
  std::optional<NegotiatedTls> tls;        // as the tool printed what the server chose
};

namespace text {

// The complete lines of `text`, without their line breaks. A last line without its line break
// is left out: it is what a tool killed mid-print leaves, and its last number may be cut.
std::vector<std::string_view> lines(std::string_view text);
// The first line that, after leading spaces, starts with `prefix`; nullopt if none.
std::optional<std::string_view> line_starting(std::string_view text, std::string_view prefix);
// Whole-string numbers (no sign, no spaces); nullopt otherwise.
std::optional<uint64_t> parse_count(std::string_view s);
std::optional<double> parse_decimal(std::string_view s);
// The whitespace-separated words of `line`.
std::vector<std::string_view> words(std::string_view line);

}  // namespace text
}  // namespace benchgate::worker::adapters
