#include "aicost/core/stats.h"

#include <gtest/gtest.h>

#include <cmath>

namespace aicost::core {
namespace {

TEST(NormalQuantile, MatchesTables) {
  EXPECT_NEAR(normal_quantile(0.5 + 0.8 / 2), 1.2815515655446004, 1e-9);  // 80 % central interval
  EXPECT_NEAR(normal_quantile(0.5 + 0.95 / 2), 1.9599639845400540, 1e-9);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-12);
  EXPECT_NEAR(normal_quantile(0.01), -2.3263478740408408, 1e-9);  // lower-tail branch
  EXPECT_NEAR(normal_quantile(0.999), 3.0902323061678132, 1e-9);  // upper-tail branch
  EXPECT_NEAR(normal_quantile(0.2), -normal_quantile(0.8), 1e-12);
  EXPECT_TRUE(std::isinf(normal_quantile(0)) && normal_quantile(0) < 0);
  EXPECT_TRUE(std::isinf(normal_quantile(1)) && normal_quantile(1) > 0);
}

}  // namespace
}  // namespace aicost::core
