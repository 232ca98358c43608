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

namespace aicost::core {
namespace {

// Published two-sided 95 % critical values of Student's t (Abramowitz & Stegun, table 26.10):
// t_{0.975} for 1, 2, 5, 10, 30 degrees of freedom; and the normal limit for very many.
TEST(StudentT, QuantileMatchesTheTables) {
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706204736, 1e-6);
  EXPECT_NEAR(student_t_quantile(0.975, 2), 4.302652730, 1e-7);
  EXPECT_NEAR(student_t_quantile(0.975, 5), 2.570581836, 1e-7);
  EXPECT_NEAR(student_t_quantile(0.975, 10), 2.228138852, 1e-7);
  EXPECT_NEAR(student_t_quantile(0.975, 30), 2.042272456, 1e-7);
  EXPECT_NEAR(student_t_quantile(0.975, 1e7), normal_quantile(0.975), 1e-5);
  EXPECT_NEAR(student_t_quantile(0.025, 10), -2.228138852, 1e-7);
  EXPECT_DOUBLE_EQ(student_t_quantile(0.5, 7), 0);
}

// df = 1 is the Cauchy distribution: F(t) = 1/2 + atan(t)/pi; fractional df in between.
TEST(StudentT, CdfOfOneDegreeIsCauchy) {
  for (double t : {-3.0, -0.5, 0.0, 0.7, 4.0})
    EXPECT_NEAR(student_t_cdf(t, 1), 0.5 + std::atan(t) / M_PI, 1e-12);
  const double q = student_t_quantile(0.975, 12.5);
  EXPECT_GT(q, student_t_quantile(0.975, 13));
  EXPECT_LT(q, student_t_quantile(0.975, 12));
  EXPECT_NEAR(student_t_cdf(q, 12.5), 0.975, 1e-12);
  EXPECT_TRUE(std::isnan(student_t_quantile(0.9, 0)));
}

}  // namespace
}  // namespace aicost::core
