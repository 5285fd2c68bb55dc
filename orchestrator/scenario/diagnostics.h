// Collects every problem found while loading one scenario file, each with its location.
#pragma once

#include <string>
#include <vector>

#include <toml++/toml.h>

#include "orchestrator/scenario/scenario_loader.h"

namespace benchgate::scenario {

class Diagnostics {
 public:
  explicit Diagnostics(std::string file) : file_(std::move(file)) {}

  // Where a TOML key or value begins, in this file.
  Location at(const toml::source_region& region) const;
  // Line 1, column 1: for problems with the file as a whole (a missing top-level key).
  Location file_start() const { return Location{file_, 1, 1}; }

  void error(Location where, std::string message);
  void error(const toml::source_region& region, std::string message) {
    error(at(region), std::move(message));
  }

  bool empty() const { return list_.empty(); }
  // How many errors were reported so far (each call of error(), before any is dropped or said
  // once): a section compares it before and after reading a table to learn whether the table
  // was refused.
  size_t reported() const { return reported_; }
  const std::string& file() const { return file_; }

  // Every problem, in file order, each reported once; past kMaxListed, the first kMaxListed
  // and a last line (line 0) saying that more were found.
  std::vector<Diagnostic> take();

  // A file of generated or garbled text can hold a problem per line (hundreds of thousands of
  // unknown keys): nobody reads past the first screenfuls, and serve would hold them all for a
  // client's submission. Only this many are kept, so memory stays bounded too.
  static constexpr size_t kMaxListed = 100;

 private:
  // Sorts into file order, says each problem once and keeps the first `count`.
  void keep_first(size_t count);

  std::string file_;
  std::vector<Diagnostic> list_;
  bool more_ = false;  // problems were dropped past kMaxListed
  size_t reported_ = 0;
};

}  // namespace benchgate::scenario
