// The order in which compared variants run: forward on even repetitions, reversed on odd ones
// (A B, B A, A B, ...), so that with an even number of repetitions each variant runs first and
// last equally often and slow drift (heat, caches, background load) does not favour one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace benchgate::engine {

// Variant indices for 0-based `repetition`.
inline std::vector<size_t> variant_order(size_t variants, uint32_t repetition) {
  std::vector<size_t> order(variants);
  for (size_t i = 0; i < variants; ++i) {
    order[i] = repetition % 2 == 0 ? i : variants - 1 - i;
  }
  return order;
}

}  // namespace benchgate::engine
