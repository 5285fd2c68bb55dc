// The line every allocation test prints, one per measured component:
//   ALLOC| component=NAME ops=M allocations=A per_op=A/M
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace benchgate::alloc_test {

inline void print_alloc_line(const std::string& component, uint64_t ops, uint64_t allocations) {
  std::printf("ALLOC| component=%s ops=%llu allocations=%llu per_op=%.6f\n", component.c_str(),
              static_cast<unsigned long long>(ops), static_cast<unsigned long long>(allocations),
              ops == 0 ? 0.0 : static_cast<double>(allocations) / static_cast<double>(ops));
  std::fflush(stdout);
}

}  // namespace benchgate::alloc_test
