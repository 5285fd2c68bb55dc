// Typed reads of one TOML table, with diagnostics that name the key and quote the value.
#include "orchestrator/scenario/table_reader.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

#include "common/units/units.h"
#include "common/util/shown_text.h"
#include "orchestrator/scenario/suggest.h"

namespace benchgate::scenario {
namespace {

std::string quote(std::string_view s) {
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "\"" + std::string(s).
  std::string out;
  out += '"';
  out.append(shown_text(s));
  out += '"';
  return out;
}

std::string join(const std::vector<std::string_view>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += i + 1 == words.size() ? " or " : ", ";
    out += words[i];
  }
  return out;
}

// The units library's own explanation, when it gives one (it escapes the text it quotes).
std::string because(const Error& error) {
  return error.message.empty() ? std::string() : ": " + error.message;
}

std::string format_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = std::to_string(v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// A float as TOML would write it back: the shortest text that reads as the same number, with a
// decimal point where it has none (3.0, not 3, which would read as the integer it is not).
std::string float_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
  if (ec != std::errc()) return format_number(v);
  std::string s(buffer, end);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// A node's type and, for a scalar, its value: "float 1.5", "string \"8\"", "boolean true";
// "array" and "table" alone.
std::string typed_value(const toml::node& node) {
  std::string out(toml_type_name(node));
  if (const auto* f = node.as_floating_point()) {
    out += " " + float_text(f->get());
  } else if (const auto* i = node.as_integer()) {
    out += " " + std::to_string(i->get());
  } else if (const auto* b = node.as_boolean()) {
    out += b->get() ? " true" : " false";
  } else if (const auto* text = node.as_string()) {
    out += " " + quote(text->get());
  }
  return out;
}

}  // namespace

std::string size_text(std::string_view written, uint64_t bytes) {
  if (written.empty()) return std::to_string(bytes);
  return quote(written) + " (" + std::to_string(bytes) + " bytes)";
}

std::string_view toml_type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "string";
    case toml::node_type::integer:
      return "integer";
    case toml::node_type::floating_point:
      return "float";
    case toml::node_type::boolean:
      return "boolean";
    case toml::node_type::date:
      return "date";
    case toml::node_type::time:
      return "time";
    case toml::node_type::date_time:
      return "date-time";
    case toml::node_type::array:
      return node.is_array_of_tables() ? "array of tables" : "array";
    case toml::node_type::table:
      return "table";
    default:
      return "nothing";
  }
}

TableReader::TableReader(const toml::table& table, std::string context, Diagnostics& diagnostics,
                         Interpolator& interpolator)
    : table_(table),
      context_(std::move(context)),
      diagnostics_(diagnostics),
      interpolator_(interpolator) {}

void TableReader::check_keys(const std::vector<std::string_view>& known,
                             const std::vector<NotYet>& not_yet) {
  for (auto&& [key, value] : table_) {
    const std::string_view name = key.str();
    bool ok = false;
    for (std::string_view k : known) ok = ok || k == name;
    if (ok) continue;
    const NotYet* later = nullptr;
    for (const NotYet& n : not_yet) {
      if (n.key == name) later = &n;
    }
    if (later) {
      std::string message = "key '" + shown_text(name) + "' " + context_ + " is not supported yet";
      if (!later->note.empty()) message += " (" + std::string(later->note) + ")";
      diagnostics_.error(key.source(), std::move(message));
      continue;
    }
    for (std::string_view meant : nearest_matches(name, known)) misspelt_.emplace(meant);
    diagnostics_.error(key.source(), "unknown key '" + shown_text(name) + "' " + context_ +
                                         did_you_mean(name, known));
  }
}

Location TableReader::table_location() const { return diagnostics_.at(table_.source()); }

Location TableReader::key_location(std::string_view key) const {
  auto it = table_.find(key);
  if (it == table_.end()) return table_location();
  return diagnostics_.at(it->first.source());
}

Location TableReader::value_location(std::string_view key) const {
  const toml::node* n = node(key);
  return n ? diagnostics_.at(n->source()) : table_location();
}

bool TableReader::require(std::string_view key) {
  if (has(key)) return true;
  if (misspelt(key)) return false;
  diagnostics_.error(table_location(),
                     "missing required key '" + std::string(key) + "' " + context_);
  return false;
}

void TableReader::wrong_type(std::string_view key, const toml::node& node,
                             std::string_view expected) {
  diagnostics_.error(node.source(), "key '" + shown_text(key) + "' must be " +
                                        std::string(expected) + ", got " + typed_value(node));
}

std::optional<std::string> TableReader::expand(std::string_view key, const toml::node& node) {
  auto expanded = interpolator_.expand(node.as_string()->get());
  if (!expanded) {
    diagnostics_.error(node.source(), "key '" + shown_text(key) + "': " + expanded.message());
    return std::nullopt;
  }
  return std::move(expanded).value();
}

std::optional<std::string> TableReader::string(std::string_view key) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (!n->is_string()) {
    wrong_type(key, *n, "a string");
    return std::nullopt;
  }
  return expand(key, *n);
}

std::optional<bool> TableReader::boolean(std::string_view key) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (!n->is_boolean()) {
    wrong_type(key, *n, "a boolean (true or false)");
    return std::nullopt;
  }
  return n->as_boolean()->get();
}

std::optional<std::string> TableReader::choice(std::string_view key,
                                               const std::vector<std::string_view>& allowed,
                                               const std::vector<ChoiceAlias>& aliases) {
  auto value = string(key);
  if (!value) return std::nullopt;
  for (std::string_view a : allowed) {
    if (a == *value) return value;
  }
  std::string suggestion = did_you_mean(*value, allowed);
  for (const ChoiceAlias& alias : aliases) {
    if (edit_distance(*value, alias.word) == 0) {  // the same word, ignoring case
      suggestion = " (did you mean " + std::string(alias.meant) + "?)";
    }
  }
  diagnostics_.error(value_location(key), "key '" + shown_text(key) + "' must be one of " +
                                              join(allowed) + ", got '" + shown_text(*value) + "'" +
                                              suggestion);
  return std::nullopt;
}

std::optional<int64_t> TableReader::integer(std::string_view key, int64_t min, int64_t max) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (!n->is_integer()) {
    wrong_type(key, *n, "an integer");
    return std::nullopt;
  }
  const int64_t v = n->as_integer()->get();
  if (v < min) {
    diagnostics_.error(n->source(), "key '" + shown_text(key) + "' must be at least " +
                                        std::to_string(min) + ", got " + std::to_string(v));
    return std::nullopt;
  }
  if (v > max) {
    diagnostics_.error(n->source(), "key '" + shown_text(key) + "' must be at most " +
                                        std::to_string(max) + ", got " + std::to_string(v));
    return std::nullopt;
  }
  return v;
}

std::optional<uint32_t> TableReader::count(std::string_view key, uint32_t min) {
  auto v = integer(key, min, std::numeric_limits<uint32_t>::max());
  if (!v) return std::nullopt;
  return static_cast<uint32_t>(*v);
}

std::optional<double> TableReader::number(std::string_view key, double min) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  double v = 0;
  if (n->is_integer()) {
    v = static_cast<double>(n->as_integer()->get());
  } else if (n->is_floating_point()) {
    v = n->as_floating_point()->get();
  } else {
    wrong_type(key, *n, "a number");
    return std::nullopt;
  }
  if (!std::isfinite(v)) {
    diagnostics_.error(n->source(), "key '" + shown_text(key) + "' must be a finite number, got " +
                                        format_number(v));
    return std::nullopt;
  }
  if (v < min) {
    diagnostics_.error(n->source(), "key '" + shown_text(key) + "' must be at least " +
                                        format_number(min) + ", got " + format_number(v));
    return std::nullopt;
  }
  return v;
}

std::optional<int64_t> TableReader::duration_ns(std::string_view key, bool allow_zero) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (!n->is_string()) {
    wrong_type(key, *n, "a duration string such as \"250ms\" or \"1.5s\"");
    return std::nullopt;
  }
  auto text = expand(key, *n);
  if (!text) return std::nullopt;
  auto ns = parse_duration_ns(*text);
  if (!ns) {
    diagnostics_.error(n->source(), "key '" + shown_text(key) + "' has a bad duration " +
                                        quote(*text) + because(ns.error()) +
                                        "; write it like \"250us\" or \"1.5s\"");
    return std::nullopt;
  }
  if (*ns < 0 || (*ns == 0 && !allow_zero)) {
    diagnostics_.error(n->source(),
                       "key '" + shown_text(key) + "' must be more than zero, got " + quote(*text));
    return std::nullopt;
  }
  return *ns;
}

std::optional<uint64_t> TableReader::size_bytes(std::string_view key) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (n->is_integer()) {
    auto v = integer(key, 0, std::numeric_limits<int64_t>::max());
    if (!v) return std::nullopt;
    return static_cast<uint64_t>(*v);
  }
  if (!n->is_string()) {
    wrong_type(key, *n, "a size such as \"64KiB\" or an integer of bytes");
    return std::nullopt;
  }
  auto text = expand(key, *n);
  if (!text) return std::nullopt;
  auto bytes = parse_size_bytes(*text);
  if (!bytes) {
    diagnostics_.error(n->source(),
                       "key '" + shown_text(key) + "' has a bad size " + quote(*text) +
                           because(bytes.error()) +
                           "; write it like \"1KiB\", \"1.5MB\" or an integer of bytes");
    return std::nullopt;
  }
  sizes_written_[std::string(key)] = *text;
  return *bytes;
}

std::string TableReader::size_text(std::string_view key, uint64_t bytes) const {
  auto it = sizes_written_.find(key);
  return scenario::size_text(it == sizes_written_.end() ? "" : it->second, bytes);
}

std::optional<double> TableReader::percent(std::string_view key) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (!n->is_string()) {
    wrong_type(key, *n, "a percentage string such as \"5%\"");
    return std::nullopt;
  }
  auto text = expand(key, *n);
  if (!text) return std::nullopt;
  auto ratio = parse_percent(*text);
  if (!ratio) {
    diagnostics_.error(n->source(), "key '" + shown_text(key) + "' has a bad percentage " +
                                        quote(*text) + because(ratio.error()) +
                                        "; write it like \"5%\"");
    return std::nullopt;
  }
  return *ratio;
}

std::optional<std::vector<std::string>> TableReader::string_array(std::string_view key) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (!n->is_array()) {
    wrong_type(key, *n, "an array of strings");
    return std::nullopt;
  }
  std::vector<std::string> out;
  bool ok = true;
  size_t index = 0;
  for (const toml::node& element : *n->as_array()) {
    const size_t at = index++;
    if (!element.is_string()) {
      diagnostics_.error(element.source(), "key '" + shown_text(key) +
                                               "' must be an array of strings, got an element of "
                                               "type " +
                                               std::string(toml_type_name(element)));
      ok = false;
      continue;
    }
    auto text = expand(key, element);
    if (!text) {
      ok = false;
      continue;
    }
    // TOML's \u0000 puts a real NUL in the string; a program argument (argv is C strings) would
    // be cut at it, so a check of the whole argument would pass what the child reads differently.
    if (text->find('\0') != std::string::npos) {
      diagnostics_.error(element.source(),
                         "key '" + shown_text(key) + "[" + std::to_string(at) + "]' " + context_ +
                             " holds a NUL byte (\\u0000), which no program argument or name "
                             "can carry");
      ok = false;
      continue;
    }
    out.push_back(std::move(*text));
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<std::map<std::string, std::string>> TableReader::string_table(std::string_view key) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (!n->is_table()) {
    wrong_type(key, *n, "a table of strings");
    return std::nullopt;
  }
  std::map<std::string, std::string> out;
  bool ok = true;
  for (auto&& [name, value] : *n->as_table()) {
    const std::string entry = std::string(key) + "." + std::string(name.str());
    if (!value.is_string()) {
      wrong_type(entry, value, "a string");
      ok = false;
      continue;
    }
    auto text = expand(entry, value);
    if (!text) {
      ok = false;
      continue;
    }
    out.emplace(std::string(name.str()), std::move(*text));
  }
  if (!ok) return std::nullopt;
  return out;
}

const toml::table* TableReader::table(std::string_view key) {
  const toml::node* n = node(key);
  if (!n) return nullptr;
  if (!n->is_table()) {
    wrong_type(key, *n, "a table");
    return nullptr;
  }
  return n->as_table();
}

}  // namespace benchgate::scenario
