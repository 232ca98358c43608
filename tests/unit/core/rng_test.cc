#include "aicost/core/rng.h"

#include <gtest/gtest.h>

#include <cmath>

namespace aicost::core {
namespace {

TEST(Rng, SameSeedSameSequence) {
  Rng a(42), b(42);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a.next_u64(), b.next_u64()) << "at " << i;
}

TEST(Rng, DifferentSeedsDiffer) {
  Rng a(1), b(2);
  int equal = 0;
  for (int i = 0; i < 100; ++i) equal += a.next_u64() == b.next_u64();
  EXPECT_EQ(equal, 0);
}

TEST(Rng, SplitStreamsDifferFromEachOtherAndParent) {
  Rng parent(7);
  Rng s0 = parent.split(0), s1 = parent.split(1);
  Rng s0_again = parent.split(0);
  int equal01 = 0, equal0p = 0;
  for (int i = 0; i < 100; ++i) {
    const uint64_t x0 = s0.next_u64();
    equal01 += x0 == s1.next_u64();
    equal0p += x0 == parent.next_u64();
    ASSERT_EQ(x0, s0_again.next_u64());  // split is deterministic
  }
  EXPECT_EQ(equal01, 0);
  EXPECT_EQ(equal0p, 0);
}

TEST(Rng, UniformInHalfOpenUnitInterval) {
  Rng r(123);
  const int n = 100000;
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  // Mean 1/2, sigma = 1/sqrt(12); 3 sigma/sqrt(n) ~ 2.7e-3.
  EXPECT_NEAR(sum / n, 0.5, 3.0 / std::sqrt(12.0) / std::sqrt(n));
}

TEST(Rng, ExponentialMeanWithinThreeSigma) {
  // Exponential(mean mu) has sigma = mu; sample mean of n draws is within 3 mu/sqrt(n) w.p. 99.7 %.
  Rng r(2024);
  const int n = 100000;
  const double mu = 100.0;
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += r.exponential(mu);
  EXPECT_NEAR(sum / n, mu, 3.0 * mu / std::sqrt(static_cast<double>(n)));
}

TEST(Rng, WeibullShapeOneIsExponential) {
  // Weibull(k=1, lambda) = Exponential(mean lambda): mean lambda, sigma lambda.
  Rng r(99);
  const int n = 100000;
  const double lambda = 5.0;
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += r.weibull(1.0, lambda);
  EXPECT_NEAR(sum / n, lambda, 3.0 * lambda / std::sqrt(static_cast<double>(n)));
}

TEST(Rng, NormalHasZeroMeanAndUnitVariance) {
  Rng rng(7);
  const int n = 200000;
  double sum = 0, sq = 0;
  int beyond = 0;
  for (int i = 0; i < n; ++i) {
    const double x = rng.normal();
    sum += x;
    sq += x * x;
    beyond += std::abs(x) > 1.959964;
  }
  const double mean = sum / n;
  EXPECT_NEAR(mean, 0.0, 0.01);                   // se 0.0022
  EXPECT_NEAR(sq / n - mean * mean, 1.0, 0.015);  // se 0.0032
  EXPECT_NEAR(static_cast<double>(beyond) / n, 0.05, 0.003);
}

}  // namespace
}  // namespace aicost::core
