// "Did you mean" suggestions: the closest known word to a misspelt one, by edit distance. One
// helper for every loader that refuses an unknown key, value or name: the scenario loader
// (orchestrator/scenario) and the router's --auth-config (router/wamp/auth/auth_config.cc).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchgate {

// Optimal string alignment distance (Levenshtein plus adjacent transpositions), ignoring case,
// so that "conections", "Connections" and "connetcions" are all one step from "connections".
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, if it is close enough to be a plausible typo.
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string_view>& candidates);

// The candidates as close to `word` as the closest one, when that one is close enough to be a
// plausible typo (several for a tie), else none: those that did_you_mean names.
std::vector<std::string_view> nearest_matches(std::string_view word,
                                              const std::vector<std::string_view>& candidates);

// " (did you mean 'X'?)", " (did you mean 'X' or 'Y'?)" for a tie, or "" when nothing is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates);

}  // namespace benchgate
