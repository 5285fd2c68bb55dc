// A bound on how deep a TOML text nests, checked before toml++ parses it. toml++ bounds the
// nesting of arrays and inline tables (256), but not the parts of a dotted key or of a table
// header: one key `a.a.a...` of some 40,000 parts overflows the stack inside the parser (a
// SIGSEGV in `orchestrator validate`, and in `orchestrator serve` from one client's
// submission). Every caller of toml::parse (the scenario loader, the router's auth config)
// checks its text here first.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace benchgate {

// The most dotted parts one key or one table header has: `a.b.c = 1` and `[a.b.c]` have 3.
inline constexpr size_t kMaxTomlKeyParts = 64;
// The most tables and arrays a value is nested in: the parts of the table header above it, the
// parts of its key and of the keys of the inline tables around it, and one for each array
// around it.
inline constexpr size_t kMaxTomlDepth = 128;

struct TomlDepthProblem {
  size_t line = 0;    // 1-based
  size_t column = 0;  // 1-based, in characters as toml++ counts them
  std::string message;
};

// The first key, table header or array of `text` past kMaxTomlKeyParts or kMaxTomlDepth, where
// it starts and why ("a key has 60000 dotted parts ('a.a.a...'); at most 64 are accepted"), or
// nothing. Dots inside strings (basic, literal, multi-line), comments and values (1.5, a time's
// fraction of a second) are not key parts. Text that is not valid TOML is passed over as well
// as can be, for toml++ to report; the scan itself takes linear time and constant stack.
std::optional<TomlDepthProblem> toml_depth_problem(std::string_view text);

}  // namespace benchgate
