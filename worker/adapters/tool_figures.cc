#include "worker/adapters/tool_figures.h"

#include <charconv>
#include <cmath>

namespace benchgate::worker::adapters::text {

std::vector<std::string_view> lines(std::string_view text) {
  std::vector<std::string_view> out;
  for (size_t end = text.find('\n'); end != std::string_view::npos; end = text.find('\n')) {
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    text.remove_prefix(end + 1);
  }
  return out;
}

std::optional<std::string_view> line_starting(std::string_view text, std::string_view prefix) {
  for (std::string_view line : lines(text)) {
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos) continue;
    line.remove_prefix(first);
    if (line.substr(0, prefix.size()) == prefix) return line;
  }
  return std::nullopt;
}

std::optional<uint64_t> parse_count(std::string_view s) {
  uint64_t value = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_decimal(std::string_view s) {
  double value = 0;
  if (s.empty() || s.front() == '-' || s.front() == '+') return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    const size_t start = line.find_first_not_of(" \t", i);
    if (start == std::string_view::npos) break;
    const size_t end = line.find_first_of(" \t", start);
    out.push_back(line.substr(start, end == std::string_view::npos ? end : end - start));
    i = end == std::string_view::npos ? line.size() : end;
  }
  return out;
}

}  // namespace benchgate::worker::adapters::text
