// Edit distance and "did you mean" suggestions for misspelt keys, values and names.
#include "common/util/suggest.h"

#include <algorithm>
#include <cctype>

#include "common/util/shown_text.h"

namespace benchgate {
namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// How far a word may be from a candidate and still count as a typo of it: short words allow
// one slip, longer ones more, so that "rate" never suggests "name" for "xyz".
size_t tolerance(std::string_view word) {
  if (word.size() <= 4) return 1;
  if (word.size() <= 8) return 2;
  return 3;
}

}  // namespace

size_t edit_distance(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  const size_t m = b.size();
  // Three rolling rows: the transposition step looks two rows back.
  std::vector<size_t> two_back(m + 1), prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
          lower(a[i - 2]) == lower(b[j - 1])) {
        cur[j] = std::min(cur[j], two_back[j - 2] + 1);
      }
    }
    two_back.swap(prev);
    prev.swap(cur);
  }
  return prev[m];
}

std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string_view>& candidates) {
  std::optional<std::string> best;
  size_t best_distance = tolerance(word) + 1;
  for (std::string_view candidate : candidates) {
    const size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = std::string(candidate);
    }
  }
  return best;
}

std::vector<std::string_view> nearest_matches(std::string_view word,
                                              const std::vector<std::string_view>& candidates) {
  std::vector<std::string_view> tied;
  auto best = closest_match(word, candidates);
  if (!best) return tied;
  // Equally close candidates are all named: "latency.p98" is as near to p90 as to p99.
  const size_t distance = edit_distance(word, *best);
  for (std::string_view candidate : candidates) {
    if (edit_distance(word, candidate) == distance) tied.push_back(candidate);
  }
  return tied;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates) {
  const std::vector<std::string_view> tied = nearest_matches(word, candidates);
  if (tied.empty()) return "";
  std::string out = " (did you mean ";
  for (size_t i = 0; i < tied.size(); ++i) {
    if (i > 0) out += i + 1 == tied.size() ? " or " : ", ";
    out.append("'").append(shown_text(tied[i])).append("'");
  }
  return out + "?)";
}

}  // namespace benchgate
