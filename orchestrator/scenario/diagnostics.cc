// Diagnostic formatting and collection.
#include "orchestrator/scenario/diagnostics.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "common/util/shown_text.h"

namespace benchgate::scenario {

std::string Diagnostic::format() const {
  // The file's name is a client's too (serve shows the name a submission came with).
  const std::string file = shown_text(where.file);
  if (where.line == 0) return file + ": error: " + message;
  return file + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) +
         ": error: " + message;
}

Location Diagnostics::at(const toml::source_region& region) const {
  // A node built without a source (it never happens for parsed text) still gets a real place.
  if (region.begin.line == 0) return file_start();
  return Location{file_, static_cast<uint32_t>(region.begin.line),
                  static_cast<uint32_t>(region.begin.column)};
}

void Diagnostics::error(Location where, std::string message) {
  ++reported_;
  list_.push_back(Diagnostic{std::move(where), std::move(message)});
  // The first kMaxListed in file order survive any later trimming: each one dropped has
  // kMaxListed before it among those kept.
  if (list_.size() >= 4 * kMaxListed) keep_first(kMaxListed);
}

void Diagnostics::keep_first(size_t count) {
  auto key = [](const Diagnostic& d) { return std::tie(d.where.line, d.where.column, d.message); };
  // Sections are read in a fixed order, not file order; sort so the report reads top to bottom.
  std::stable_sort(list_.begin(), list_.end(),
                   [&](const Diagnostic& a, const Diagnostic& b) { return key(a) < key(b); });
  // A bad [defaults] value can fail the same check for every workload; say it once.
  list_.erase(
      std::unique(list_.begin(), list_.end(),
                  [&](const Diagnostic& a, const Diagnostic& b) { return key(a) == key(b); }),
      list_.end());
  if (list_.size() > count) {
    list_.resize(count);
    more_ = true;
  }
}

std::vector<Diagnostic> Diagnostics::take() {
  keep_first(kMaxListed);
  if (std::exchange(more_, false)) {
    list_.push_back(Diagnostic{Location{file_, 0, 0},
                               "more than " + std::to_string(kMaxListed) + " problems; the first " +
                                   std::to_string(kMaxListed) + " in the file are listed"});
  }
  return std::exchange(list_, {});
}

}  // namespace benchgate::scenario
