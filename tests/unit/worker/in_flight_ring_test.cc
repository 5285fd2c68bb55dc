// The in-flight ring: FIFO order across wrap-around, fixed capacity.
#include "worker/http/in_flight_ring.h"

#include <gtest/gtest.h>

namespace benchgate::worker::http {
namespace {

TEST(InFlightRing, KeepsFifoOrderAcrossManyWrapArounds) {
  InFlightRing ring(3);
  int64_t next_in = 0;
  int64_t next_out = 0;
  for (int round = 0; round < 20; ++round) {
    while (ring.size() < ring.capacity()) ring.push({next_in, next_in++});
    const int take = 1 + round % 3;
    for (int i = 0; i < take; ++i) EXPECT_EQ(ring.pop().intended_ns, next_out++);
  }
  ring.clear();
  EXPECT_TRUE(ring.empty());
}

}  // namespace
}  // namespace benchgate::worker::http
