// See shown_list.h.
#include "common/util/shown_list.h"

#include "common/util/shown_text.h"

namespace benchgate {

std::string shown_cut(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return shown_text(text);
  return shown_text(text.substr(0, max_bytes)) + "...";
}

void ShownList::add(std::string_view item, std::string_view note) {
  if (count_++ >= max_items_) return;
  if (!written_.empty()) written_ += ", ";
  const std::string shown = shown_cut(item, max_item_bytes_);
  written_ += quotes_ == kQuoted ? "'" + shown + "'" : shown;
  written_ += note;
}

std::string ShownList::text() const {
  if (count_ <= max_items_) return written_;
  return written_ + " and " + std::to_string(count_ - max_items_) + " more";
}

}  // namespace benchgate
