// Column padding for TextTable (text_table.h).
#include "orchestrator/history/text_table.h"

#include <algorithm>

namespace benchgate::history {
namespace {

// Terminal columns a UTF-8 string takes: one per code point (continuation bytes take none).
size_t display_width(const std::string& s) {
  return static_cast<size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

}  // namespace

TextTable::TextTable(std::vector<std::string> header, std::string indent)
    : indent_(std::move(indent)),
      header_(std::move(header)),
      align_(header_.size(), Align::kLeft) {}

TextTable& TextTable::align(size_t column, Align alignment) {
  if (column < align_.size()) align_[column] = alignment;
  return *this;
}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(header_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render() const {
  std::vector<size_t> width(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], display_width(row[i]));
  };
  measure(header_);
  for (const auto& row : rows_) measure(row);

  std::string out;
  auto emit = [&](const std::vector<std::string>& row) {
    std::string line = indent_;
    for (size_t i = 0; i < row.size(); ++i) {
      const std::string pad(width[i] - display_width(row[i]), ' ');
      if (i > 0) line += "  ";
      line += align_[i] == Align::kRight ? pad + row[i] : row[i] + pad;
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  };
  emit(header_);
  for (const auto& row : rows_) emit(row);
  return out;
}

}  // namespace benchgate::history
