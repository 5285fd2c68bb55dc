// A plain-text table for terminal listings (`runs list`, `baseline list`, `compare`): columns
// padded to their widest cell, so output lines up without a terminal library.
#pragma once

#include <string>
#include <vector>

namespace benchgate::history {

class TextTable {
 public:
  enum class Align { kLeft, kRight };

  // The header row; its size fixes the number of columns.
  explicit TextTable(std::vector<std::string> header, std::string indent = "");
  // Right-aligns a column (numbers read best that way).
  TextTable& align(size_t column, Align alignment);
  // Missing trailing cells print empty; extra cells are an error of the caller (dropped). A cell
  // of the last column may hold several lines ('\n' between them): the first is in the row, the
  // others go on under that column (a multi-line gate explanation). No other cell may.
  void add_row(std::vector<std::string> cells);
  bool empty() const { return rows_.empty(); }

  // Every row, header first, two spaces between columns, no trailing spaces, '\n' after each.
  std::string render() const;

 private:
  std::string indent_;
  std::vector<std::string> header_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace benchgate::history
