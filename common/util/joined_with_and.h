// The items of a list as a sentence writes them, "a, b and c": who was stopped during a
// repetition, the threads each worker runs, the repetitions a paired test left out. One rule
// for every such list. Unbounded: a list of client text goes through ShownList
// (common/util/shown_list.h), which caps it.
#pragma once

#include <string>
#include <vector>

namespace benchgate {

// "" (no items), "a", "a and b", "a, b and c": commas between the items, " and " before the
// last.
inline std::string joined_with_and(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  }
  return out;
}

}  // namespace benchgate
