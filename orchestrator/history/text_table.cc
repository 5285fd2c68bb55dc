// Column padding for TextTable (text_table.h).
#include "orchestrator/history/text_table.h"

#include <algorithm>
#include <string_view>

namespace benchgate::history {
namespace {

// Terminal columns a UTF-8 string takes: one per code point (continuation bytes take none).
size_t display_width(std::string_view s) {
  return static_cast<size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// The lines of a cell ('\n' between them).
std::vector<std::string_view> cell_lines(std::string_view cell) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  for (size_t end; (end = cell.find('\n', start)) != std::string_view::npos; start = end + 1) {
    lines.push_back(cell.substr(start, end - start));
  }
  lines.push_back(cell.substr(start));
  return lines;
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
    if (row.empty()) return;
    for (size_t i = 0; i + 1 < row.size(); ++i) {
      width[i] = std::max(width[i], display_width(row[i]));
    }
    for (std::string_view line : cell_lines(row.back())) {
      width.back() = std::max(width.back(), display_width(line));
    }
  };
  measure(header_);
  for (const auto& row : rows_) measure(row);

  std::string out;
  auto emit = [&](const std::vector<std::string>& row) {
    std::string line = indent_;
    std::vector<std::string_view> more;  // the last cell's lines after its first
    for (size_t i = 0; i < row.size(); ++i) {
      std::string_view cell = row[i];
      if (i + 1 == row.size()) {
        more = cell_lines(cell);
        cell = more.front();
        more.erase(more.begin());
      }
      const std::string pad(width[i] - display_width(cell), ' ');
      if (i > 0) line += "  ";
      const size_t column = display_width(line);
      line += align_[i] == Align::kRight ? pad + std::string(cell) : std::string(cell) + pad;
      for (std::string_view next : more) {
        line.erase(line.find_last_not_of(' ') + 1);
        line += "\n" + std::string(column, ' ') + std::string(next);
      }
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  };
  emit(header_);
  for (const auto& row : rows_) emit(row);
  return out;
}

}  // namespace benchgate::history
