// See prometheus_text.h. The grammar is Prometheus's text format 0.0.4: one sample a line,
// `name{label="value",...} value [timestamp]`, blanks or tabs between tokens, `#` comments of
// which only `# TYPE name type` means anything here.
#include "orchestrator/sut/prometheus_text.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <vector>

namespace benchgate::sut {
namespace {

// Where a line is read: the text left and the line's number for messages.
struct ExpositionLine {
  std::string_view rest;
  size_t number = 0;

  Error error(const std::string& what) const {
    return Error{"line " + std::to_string(number) + ": " + what};
  }
  void skip_blanks() {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  }
  // The longest prefix of characters `allowed` accepts, the first also `first`.
  template <typename First, typename Allowed>
  std::string_view take(First first, Allowed allowed) {
    size_t n = 0;
    while (n < rest.size() && (n == 0 ? first(rest[n]) : allowed(rest[n]))) ++n;
    const std::string_view taken = rest.substr(0, n);
    rest.remove_prefix(n);
    return taken;
  }
  std::string_view token() {
    return take([](char c) { return c != ' ' && c != '\t'; },
                [](char c) { return c != ' ' && c != '\t'; });
  }
};

bool exposition_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool exposition_name_char(char c) { return exposition_name_start(c) || (c >= '0' && c <= '9'); }
bool label_name_start(char c) { return exposition_name_start(c) && c != ':'; }
bool label_name_char(char c) { return label_name_start(c) || (c >= '0' && c <= '9'); }

// A sample value as Prometheus reads it: a decimal or exponent float, NaN in any case and
// without a sign ("NaN", and "Nan", which prometheus-cpp writes), or Inf or Infinity in any case
// with an optional sign ("+Inf"), as Go's strconv.ParseFloat reads them. Its text
// parser takes Go's strconv.ParseFloat minus the forms Go 1.13 added: a value with 'p', 'P' or
// '_' is refused before ParseFloat sees it, so a hex float ("0x1p3") or a digit separator
// ("1_000") is no number there, and none here (from_chars reads neither).

std::optional<double> exposition_value(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool negative = lower.starts_with('-');
  const std::string_view word =
      std::string_view(lower).substr(lower.starts_with('+') || negative ? 1 : 0);
  if (word == "nan") {
    if (word.size() != lower.size()) return std::nullopt;
    return std::nan("");
  }
  if (word == "inf" || word == "infinity") return negative ? -HUGE_VAL : HUGE_VAL;
  if (text.starts_with('+')) text.remove_prefix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || std::isnan(value) ||
      std::isinf(value)) {
    return std::nullopt;
  }
  return value;
}

// `{label="value",...}` after a sample's name, its values unescaped (\\, \" and \n), sorted
// by label name.
Expected<std::map<std::string, std::string>> exposition_labels(ExpositionLine& line) {
  std::map<std::string, std::string> labels;
  line.rest.remove_prefix(1);  // '{'
  for (;;) {
    line.skip_blanks();
    if (line.rest.starts_with('}')) break;
    const std::string name(line.take(label_name_start, label_name_char));
    if (name.empty()) return line.error("expected a label name or '}'");
    line.skip_blanks();
    if (!line.rest.starts_with('=')) return line.error("expected '=' after a label name");
    line.rest.remove_prefix(1);
    line.skip_blanks();
    if (!line.rest.starts_with('"')) return line.error("a label value must be in double quotes");
    line.rest.remove_prefix(1);
    std::string value;
    for (;;) {
      if (line.rest.empty()) return line.error("a label value has no end quote");
      const char c = line.rest.front();
      line.rest.remove_prefix(1);
      if (c == '"') break;
      if (c != '\\') {
        value += c;
        continue;
      }
      const char escaped = line.rest.empty() ? '\0' : line.rest.front();
      if (escaped != '\\' && escaped != '"' && escaped != 'n') {
        return line.error("a label value holds an unknown escape (only \\\\, \\\" and \\n are)");
      }
      line.rest.remove_prefix(1);
      value += escaped == 'n' ? '\n' : escaped;
    }
    if (!labels.emplace(name, std::move(value)).second) {
      return line.error("the sample names a label twice");
    }
    line.skip_blanks();
    if (line.rest.starts_with(',')) {
      line.rest.remove_prefix(1);
      continue;
    }
    if (!line.rest.starts_with('}')) return line.error("expected ',' or '}' after a label");
  }
  line.rest.remove_prefix(1);  // '}'
  return labels;
}

// Whether the sample `name` is a count of the families typed so far (the header says which).
bool counted_sample(std::string_view name, const std::map<std::string, std::string>& types) {
  auto type_of = [&](std::string_view family) -> std::string_view {
    auto it = types.find(std::string(family));
    return it == types.end() ? std::string_view() : std::string_view(it->second);
  };
  if (type_of(name) == "counter") return true;
  auto base = [&](std::string_view suffix) -> std::string_view {
    return name.ends_with(suffix) ? name.substr(0, name.size() - suffix.size())
                                  : std::string_view();
  };
  if (auto family = base("_total"); !family.empty() && type_of(family) == "counter") return true;
  if (auto family = base("_bucket"); !family.empty() && type_of(family) == "histogram") {
    return true;
  }
  if (auto family = base("_count"); !family.empty()) {
    const auto type = type_of(family);
    return type == "histogram" || type == "summary";
  }
  return false;
}

// Appends a label value to a key as `name{label=value,...}` shows it: unquoted, so a value's
// backslash, comma and closing brace, which would read as the key's own punctuation, are
// escaped with a backslash, and a control character as \n or \xHH, so that a key is one
// printable line in messages, JSON and SQLite. Values without them, as all of the bundled
// router's are, are kept as they are.
void append_key_value(std::string& key, std::string_view value) {
  constexpr char kHex[] = "0123456789ABCDEF";
  for (const char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\' || c == ',' || c == '}') {
      key += '\\';
      key += c;
    } else if (c == '\n') {
      key += "\\n";
    } else if (byte < 0x20 || byte == 0x7f) {
      key += "\\x";
      key += kHex[byte >> 4];
      key += kHex[byte & 0xf];
    } else {
      key += c;
    }
  }
}

// The names a family's samples may have, to refuse a TYPE line after them.
std::vector<std::string> sample_names_of(const std::string& family) {
  return {family, family + "_total", family + "_bucket", family + "_count", family + "_sum"};
}

}  // namespace

Expected<ExposedCounters> parse_prometheus_counters(std::string_view text) {
  ExposedCounters out;
  std::map<std::string, std::string> types;    // family -> "counter", "gauge", ...
  std::map<std::string, size_t> type_lines;    // family -> the line of its TYPE line
  std::map<std::string, size_t> sample_lines;  // sample name -> the line of its first sample
  std::map<std::string, size_t> series_lines;  // key -> its line
  size_t number = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    ExpositionLine line{text.substr(0, end), ++number};
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.rest.ends_with('\r')) line.rest.remove_suffix(1);
    line.skip_blanks();
    if (line.rest.empty()) continue;
    if (line.rest.starts_with('#')) {
      line.rest.remove_prefix(1);
      line.skip_blanks();
      if (line.token() != "TYPE") continue;  // HELP and free comments
      line.skip_blanks();
      const std::string family(line.token());
      line.skip_blanks();
      const std::string type(line.token());
      line.skip_blanks();
      if (family.empty() || !exposition_name_start(family.front()) ||
          family.find_first_of(" \t") != std::string::npos) {
        return line.error("a TYPE line needs a metric name");
      }
      if (type != "counter" && type != "gauge" && type != "histogram" && type != "summary" &&
          type != "untyped") {
        return line.error("an unknown type (counter, gauge, histogram, summary or untyped are)");
      }
      if (!line.rest.empty()) return line.error("unexpected text after the type");
      if (auto [it, added] = type_lines.emplace(family, number); !added) {
        return line.error("a second TYPE line for a metric (the first is on line " +
                          std::to_string(it->second) + ")");
      }
      types.emplace(family, type);
      for (const auto& sample : sample_names_of(family)) {
        if (auto seen = sample_lines.find(sample); seen != sample_lines.end()) {
          return line.error("the TYPE line comes after its metric's sample on line " +
                            std::to_string(seen->second));
        }
      }
      continue;
    }
    const std::string name(line.take(exposition_name_start, exposition_name_char));
    if (name.empty()) return line.error("expected a metric name");
    std::map<std::string, std::string> labels;
    if (line.rest.starts_with('{')) {
      auto read = exposition_labels(line);
      if (!read) return read.error();
      labels = std::move(read).value();
    }
    const size_t before_blanks = line.rest.size();
    line.skip_blanks();
    const std::string_view value_text = line.token();
    // "name{...}1" is readable; "name-1" is a bad name, not a value.
    if (value_text.empty() ||
        (labels.empty() && line.rest.size() + value_text.size() == before_blanks)) {
      return line.error("expected a blank and a value after the metric name");
    }
    const auto value = exposition_value(value_text);
    if (!value) return line.error("the sample value is not a number");
    line.skip_blanks();
    if (const std::string_view stamp = line.token(); !stamp.empty()) {
      int64_t ms = 0;
      auto [stamp_end, ec] = std::from_chars(stamp.data(), stamp.data() + stamp.size(), ms);
      if (ec != std::errc() || stamp_end != stamp.data() + stamp.size()) {
        return line.error("the timestamp is not a whole number of milliseconds");
      }
      line.skip_blanks();
    }
    if (!line.rest.empty()) return line.error("unexpected text after the sample");

    std::string key = name;
    if (!labels.empty()) {
      key += '{';
      for (const auto& [label, label_value] : labels) {
        if (key.back() != '{') key += ',';
        key += label + "=";
        append_key_value(key, label_value);
      }
      key += '}';
    }
    sample_lines.emplace(name, number);
    if (auto [it, added] = series_lines.emplace(key, number); !added) {
      return line.error("a second sample of the series on line " + std::to_string(it->second));
    }
    if (!counted_sample(name, types)) continue;
    // Whole doubles up to 2^53 are exact integers; above, neighbours differ by 2 or more.
    constexpr double kExactLimit = 9007199254740992.0;
    if (*value >= 0 && *value <= kExactLimit && std::floor(*value) == *value) {
      out.counters[key] = static_cast<uint64_t>(*value);
    } else {
      out.uncounted.insert(key);
    }
  }
  return out;
}

}  // namespace benchgate::sut
