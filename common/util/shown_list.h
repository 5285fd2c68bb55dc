// Client text listed in one message (the names a worker sent that no rule knows): each item
// quoted through shown_text() and cut, and the list itself bounded, so that a peer sending
// 100,000 names makes a line, not megabytes, of the terminal, the report or a log.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace benchgate {

// `text` through shown_text(), cut after `max_bytes` of its bytes ("..." then).
std::string shown_cut(std::string_view text, size_t max_bytes);

// "'a', 'b', 'c'": the items added, each quoted through shown_cut(), in the order added; past
// `max_items` the rest are counted, not written ("'a', 'b' and 99998 more"). With kBare the
// items stand without their quotes ("a, b, c"): names a message lists as words.
class ShownList {
 public:
  static constexpr size_t kItems = 10;
  static constexpr size_t kItemBytes = 200;
  enum Quotes { kQuoted, kBare };

  explicit ShownList(size_t max_items = kItems, size_t max_item_bytes = kItemBytes,
                     Quotes quotes = kQuoted)
      : max_items_(max_items), max_item_bytes_(max_item_bytes), quotes_(quotes) {}

  // `item` quoted, then `note` as it is (" in not_measured"): the caller's own words.
  void add(std::string_view item, std::string_view note = {});

  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // The list; "" when nothing was added.
  std::string text() const;

 private:
  size_t max_items_;
  size_t max_item_bytes_;
  Quotes quotes_;
  size_t count_ = 0;
  std::string written_;
};

}  // namespace benchgate
