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

  // Every problem, in file order, each reported once.
  std::vector<Diagnostic> take();

 private:
  std::string file_;
  std::vector<Diagnostic> list_;
};

}  // namespace benchgate::scenario
