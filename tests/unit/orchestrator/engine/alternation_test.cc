// The order of compared variants: A B, B A, A B, ... so each runs first equally often.
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/engine/alternation.h"

namespace benchgate::engine {
namespace {

std::string sequence(size_t variants, uint32_t repetitions) {
  std::string out;
  for (uint32_t rep = 0; rep < repetitions; ++rep) {
    for (size_t v : variant_order(variants, rep)) out += static_cast<char>('A' + v);
  }
  return out;
}

TEST(VariantOrder, TwoVariantsAlternateABBA) { EXPECT_EQ(sequence(2, 4), "ABBAABBA"); }

TEST(VariantOrder, ThreeVariantsReverseOnOddRepetitions) { EXPECT_EQ(sequence(3, 2), "ABCCBA"); }

TEST(VariantOrder, WithAnEvenNumberOfRepetitionsEachVariantRunsFirstEquallyOften) {
  int first_a = 0;
  int first_b = 0;
  for (uint32_t rep = 0; rep < 6; ++rep) {
    (variant_order(2, rep).front() == 0 ? first_a : first_b)++;
  }
  EXPECT_EQ(first_a, first_b);
}

}  // namespace
}  // namespace benchgate::engine
