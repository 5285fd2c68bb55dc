// Typed, validating reads of one TOML table of a scenario file. Every read that fails records a
// diagnostic at the key or value at fault and returns nothing, so a section reads all its keys
// and the file reports every problem at once. Strings are interpolated as they are read.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "orchestrator/scenario/diagnostics.h"
#include "orchestrator/scenario/interpolation.h"

namespace benchgate::scenario {

// A key docs/SCENARIOS.md describes that this build does not implement yet, and why it is refused.
struct NotYet {
  std::string_view key;
  std::string_view note;  // appended to the message, may be empty
};

// "string", "integer", "float", "array", "table", ...
std::string_view toml_type_name(const toml::node& node);

// A value of a choice that is no typo of an allowed one but means one: "wss" for transport =
// "websocket" with tls = true, "messagepack" for "msgpack". Matched ignoring case; `meant` is
// what the refusal's "did you mean" names ("'msgpack'", "transport = \"websocket\" with ...").
struct ChoiceAlias {
  std::string_view word;
  std::string_view meant;
};

// A size as the scenario wrote it, for a message that quotes it: the integer for an integer of
// bytes (`written` empty), else the text and what it comes to: "65MiB" (68157440 bytes).
std::string size_text(std::string_view written, uint64_t bytes);

class TableReader {
 public:
  // `context` completes "unknown key 'x' ...": "at the top level", "in [[workloads]] #2".
  TableReader(const toml::table& table, std::string context, Diagnostics& diagnostics,
              Interpolator& interpolator);

  // Reports every key that is not in `known` (with a "did you mean") and every key in `not_yet`.
  void check_keys(const std::vector<std::string_view>& known, const std::vector<NotYet>& not_yet);
  // Whether check_keys reported an unknown key as a misspelling of `key` ("did you mean 'key'?"):
  // a `key` that is then missing is that one mistake, reported once, at the misspelling, and not
  // again as a missing key.
  bool misspelt(std::string_view key) const { return misspelt_.count(key) != 0; }

  const std::string& context() const { return context_; }
  Diagnostics& diagnostics() { return diagnostics_; }
  Interpolator& interpolator() { return interpolator_; }

  bool has(std::string_view key) const { return table_.contains(key); }
  const toml::node* node(std::string_view key) const { return table_.get(key); }
  Location table_location() const;
  Location key_location(std::string_view key) const;    // the table's when the key is absent
  Location value_location(std::string_view key) const;  // the table's when the key is absent

  // Records "missing required key" when absent (unless misspelt: reported already); returns
  // whether it is present.
  bool require(std::string_view key);

  std::optional<std::string> string(std::string_view key);
  std::optional<bool> boolean(std::string_view key);
  // A string that must be one of `allowed`; a refused one is suggested the nearest (by edit
  // distance, ignoring case), or what its alias in `aliases` means.
  std::optional<std::string> choice(std::string_view key,
                                    const std::vector<std::string_view>& allowed,
                                    const std::vector<ChoiceAlias>& aliases = {});
  // An integer in [min, 2^32 - 1].
  std::optional<uint32_t> count(std::string_view key, uint32_t min = 1);
  std::optional<int64_t> integer(std::string_view key, int64_t min, int64_t max);
  // An integer or a float, finite and >= min.
  std::optional<double> number(std::string_view key, double min);
  // "250us", "1.5s": nanoseconds; zero only when allowed.
  std::optional<int64_t> duration_ns(std::string_view key, bool allow_zero);
  // "64KiB" or a plain integer of bytes.
  std::optional<uint64_t> size_bytes(std::string_view key);
  // `bytes` of the size `key` as it is written (size_text): a size read by size_bytes as a
  // string is quoted with its bytes; an integer, or a key not written, is the number alone.
  std::string size_text(std::string_view key, uint64_t bytes) const;
  // "5%" -> 0.05.
  std::optional<double> percent(std::string_view key);
  std::optional<std::vector<std::string>> string_array(std::string_view key);
  // A table whose values are all strings (HTTP headers).
  std::optional<std::map<std::string, std::string>> string_table(std::string_view key);
  // A nested table, for sections.
  const toml::table* table(std::string_view key);

 private:
  void wrong_type(std::string_view key, const toml::node& node, std::string_view expected);
  // The interpolated text of a string node, or nothing (with a diagnostic).
  std::optional<std::string> expand(std::string_view key, const toml::node& node);

  const toml::table& table_;
  std::string context_;
  Diagnostics& diagnostics_;
  Interpolator& interpolator_;
  std::set<std::string, std::less<>> misspelt_;                    // the keys check_keys suggested
  std::map<std::string, std::string, std::less<>> sizes_written_;  // size_bytes's strings
};

}  // namespace benchgate::scenario
