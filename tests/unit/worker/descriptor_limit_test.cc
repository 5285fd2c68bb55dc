// A workload's connections against RLIMIT_NOFILE: refused up front with the limit named, and
// a connect error of EMFILE names it too.
#include "worker/engine/descriptor_limit.h"

#include <gtest/gtest.h>

#include <boost/asio/error.hpp>

namespace benchgate::worker {
namespace {

TEST(DescriptorLimit, ConnectionsThatFitPass) {
  const DescriptorLimit limit{1024, 4096, 20};
  EXPECT_FALSE(descriptor_shortfall(1000, 1, limit));  // 1000 + 3 + 20 = 1023
  EXPECT_FALSE(descriptor_shortfall(1001, 1, limit));  // exactly 1024
}

TEST(DescriptorLimit, ConnectionsPastTheLimitAreRefusedNamingIt) {
  const DescriptorLimit limit{1024, 4096, 20};
  const auto shortfall = descriptor_shortfall(25000, 2, limit);
  ASSERT_TRUE(shortfall);
  EXPECT_EQ(*shortfall,
            "25000 connections need 25026 file descriptors (one per connection, 6 for the load "
            "threads, 20 open now), but RLIMIT_NOFILE is 1024 (connecting would fail with "
            "EMFILE); raise it (ulimit -n, up to the hard limit 4096) or use fewer connections");
  EXPECT_TRUE(descriptor_shortfall(1002, 1, limit));  // one past
}

TEST(DescriptorLimit, TheCurrentProcessHasALimitAndOpenDescriptors) {
  const DescriptorLimit limit = current_descriptor_limit();
  EXPECT_GT(limit.soft, 0u);
  EXPECT_GE(limit.hard, limit.soft);
  EXPECT_GE(limit.open, 3u);  // stdin, stdout, stderr at least
}

TEST(DescriptorLimit, EmfileNamesTheLimit) {
  const std::string text = describe_connect_error(boost::asio::error::no_descriptors);
  EXPECT_NE(text.find("(EMFILE; RLIMIT_NOFILE is " +
                      std::to_string(current_descriptor_limit().soft) + ")"),
            std::string::npos)
      << text;
  EXPECT_EQ(describe_connect_error(boost::asio::error::connection_refused),
            boost::system::error_code(boost::asio::error::connection_refused).message());
}

}  // namespace
}  // namespace benchgate::worker
