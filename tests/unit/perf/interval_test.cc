// The interval math of perf/interval.h against hand computations on tiny residual sets.
#include "aicost/perf/interval.h"

#include <gtest/gtest.h>

#include <cmath>

namespace aicost::perf {
namespace {

TEST(Interval, QuantileInterpolatesBetweenOrderStatistics) {
  // Type 7: h = (n - 1) q. n = 5, q = 0.1: h = 0.4 -> 1 + 0.4 (2 - 1) = 1.4; q = 0.9: 4 + 0.6
  // = 4.6.
  const std::vector<double> v = {5, 3, 1, 4, 2};
  EXPECT_NEAR(quantile(v, 0.1), 1.4, 1e-12);
  EXPECT_NEAR(quantile(v, 0.5), 3.0, 1e-12);
  EXPECT_NEAR(quantile(v, 0.9), 4.6, 1e-12);
  EXPECT_NEAR(quantile({7}, 0.9), 7.0, 1e-12);
}

TEST(Interval, SmallSampleFactorIsThePredictionIntervalRatio) {
  // k(n) = t(0.90, n-1) sqrt(1 + 1/n) / z(0.90), t from a printed table, z = 1.28155.
  EXPECT_NEAR(small_sample_factor(3), 1.886 * std::sqrt(4.0 / 3) / 1.28155, 1e-4);  // 1.699
  EXPECT_NEAR(small_sample_factor(10), 1.383 * std::sqrt(1.1) / 1.28155, 1e-4);     // 1.132
  // n = 38: nu = 37 is past the table, t(0.90, 37) = 1.3049 (printed tables: 1.305).
  EXPECT_NEAR(small_sample_factor(38), 1.3049 * std::sqrt(1 + 1.0 / 38) / 1.28155, 2e-4);
  EXPECT_GT(small_sample_factor(1000), 1.0);
  EXPECT_LT(small_sample_factor(1000), 1.002);
}

TEST(Interval, PoolsAreThePrefixesOfTheRegimePath) {
  EXPECT_EQ(regime_pools("hopper/bf16/dense/nemo-2025"),
            (std::vector<std::string>{"hopper/bf16/dense/nemo-2025", "hopper/bf16/dense",
                                      "hopper/bf16", "hopper", "all"}));
  EXPECT_EQ(regime_of("hopper", catalog::Precision::kFp8, true), "hopper/fp8/moe");
}

// Ten dense runs with ln r = -0.09, -0.07, ..., 0.09 from five sources (two runs each) and one
// MoE run with ln r = 0.3 from a sixth.
struct TinySet {
  std::vector<std::string> regimes, groups;
  std::vector<double> ratios;
  TinySet() {
    for (int i = 0; i < 10; ++i) {
      regimes.push_back("g/bf16/dense");
      groups.push_back("source " + std::to_string(i / 2));
      ratios.push_back(std::exp((i - 4.5) * 0.02));
    }
    regimes.push_back("g/bf16/moe");
    groups.push_back("moe source");
    ratios.push_back(std::exp(0.3));
  }
  catalog::ErrorBands bands() const {
    return build_error_bands(regimes, groups, ratios, "tiny.csv");
  }
};

TEST(Interval, BandsHoldQuantilesOfLogRatiosPerPool) {
  const TinySet s;
  const auto bands = s.bands();
  ASSERT_EQ(bands.bands.size(), 5u);  // all, g, g/bf16, g/bf16/dense, g/bf16/moe
  const auto* dense = bands.find("g/bf16/dense");
  ASSERT_NE(dense, nullptr);
  EXPECT_EQ(dense->rows, 10);
  EXPECT_EQ(dense->groups, 5);
  // h = 0.9: -0.09 + 0.9 x 0.02 = -0.072; h = 8.1: 0.07 + 0.1 x 0.02 = 0.072; median 0.
  EXPECT_NEAR(std::log(dense->p10), -0.072, 1e-12);
  EXPECT_NEAR(std::log(dense->p90), 0.072, 1e-12);
  EXPECT_NEAR(std::log(dense->median), 0.0, 1e-12);
  EXPECT_NEAR(std::log(dense->min), -0.09, 1e-12);
  EXPECT_EQ(bands.find("g/bf16")->rows, 11);
  EXPECT_EQ(bands.find("g/bf16")->groups, 6);
  EXPECT_EQ(bands.find("all")->rows, 11);
  EXPECT_EQ(bands.find("g/bf16/moe")->rows, 1);
}

TEST(Interval, ARegimeWithEnoughRowsUsesItsOwnBandWidened) {
  const TinySet s;
  const auto iv = interval_for(s.bands(), "g/bf16/dense");
  ASSERT_TRUE(iv.known);
  EXPECT_FALSE(iv.little_data);
  EXPECT_EQ(iv.pool, "g/bf16/dense");
  const double k = 1.533 * std::sqrt(1.2) / 1.28155;  // 5 sources: t(0.90, 4) = 1.533
  EXPECT_NEAR(std::log(iv.lo), -0.072 * k, 1e-4);
  EXPECT_NEAR(std::log(iv.hi), 0.072 * k, 1e-4);
}

TEST(Interval, AThinRegimeFallsBackToItsPoolAndCoversItsOwnRows) {
  const TinySet s;
  const auto iv = interval_for(s.bands(), "g/bf16/moe");
  ASSERT_TRUE(iv.known);
  EXPECT_TRUE(iv.little_data);
  EXPECT_EQ(iv.regime_rows, 1);
  EXPECT_EQ(iv.pool, "g/bf16");  // 11 rows
  EXPECT_EQ(iv.pool_rows, 11);
  // Pool of 11 sorted ln r: -0.09 .. 0.09, 0.3. h = 1.0 -> p10 = -0.07; h = 9.0 -> p90 = 0.09;
  // median (h = 5) = 0.01. Widened by k(6 sources) about the median; the high end stretched
  // to 0.3.
  const double k = 1.476 * std::sqrt(1 + 1.0 / 6) / 1.28155;
  EXPECT_NEAR(std::log(iv.lo), 0.01 + k * (-0.07 - 0.01), 1e-4);
  EXPECT_NEAR(std::log(iv.hi), 0.3, 1e-12);
}

TEST(Interval, AnUnseenRegimeTakesTheCoarsestPoolWithEnoughRows) {
  const TinySet s;
  const auto iv = interval_for(s.bands(), "other/fp8/dense");
  ASSERT_TRUE(iv.known);
  EXPECT_TRUE(iv.little_data);
  EXPECT_EQ(iv.regime_rows, 0);
  EXPECT_EQ(iv.pool, "all");
}

TEST(Interval, APoolOfFewSourcesDoesNotSetTheInterval) {
  // Ten rows of "g/bf16/dense" from two sources only, and ten of "h/bf16/dense" from five: the
  // dense regime of g skips its own pools (2 sources) and takes "all" (7 sources, 20 rows).
  TinySet s;
  s.regimes.pop_back();
  s.groups.pop_back();
  s.ratios.pop_back();
  for (int i = 0; i < 10; ++i) s.groups[i] = i < 5 ? "one" : "two";
  for (int i = 0; i < 10; ++i) {
    s.regimes.push_back("h/bf16/dense");
    s.groups.push_back("h source " + std::to_string(i / 2));
    s.ratios.push_back(std::exp((i - 4.5) * 0.02));
  }
  const auto iv = interval_for(s.bands(), "g/bf16/dense");
  EXPECT_EQ(iv.pool, "all");
  EXPECT_EQ(iv.pool_groups, 7);
  EXPECT_FALSE(iv.little_data);  // the regime has 10 runs
}

TEST(Interval, NoBandsMeansUnknown) {
  const auto iv = interval_for(catalog::ErrorBands{}, "g/bf16/dense");
  EXPECT_FALSE(iv.known);
  EXPECT_EQ(iv.lo, 1.0);
  EXPECT_EQ(iv.hi, 1.0);
}

TEST(Interval, CoverageJudgesEachGroupByBandsBuiltWithoutIt) {
  // Two groups of 10 identical-regime rows. Group A: ln r = -0.09 .. 0.09; group B the same
  // shifted by +1. Each is judged by the other's band alone: one source, widened by
  // k(2) = 3.078 sqrt(1.5) / 1.28155 = 2.94 to |ln r| <= 0.212 about its median, so none of B's
  // rows (ln r >= 0.91) is covered, nor any of A's by B's band.
  std::vector<std::string> regimes, groups;
  std::vector<double> ratios;
  for (int g = 0; g < 2; ++g) {
    for (int i = 0; i < 10; ++i) {
      regimes.push_back("g/bf16/dense");
      groups.push_back(g == 0 ? "A" : "B");
      ratios.push_back(std::exp((i - 4.5) * 0.02 + g));
    }
  }
  EXPECT_EQ(band_coverage(regimes, groups, ratios), 0.0);
  // Without the shift, every row lies within +-0.212: all covered.
  for (int i = 10; i < 20; ++i) ratios[i] = ratios[i - 10];
  EXPECT_NEAR(band_coverage(regimes, groups, ratios), 1.0, 1e-12);
}

}  // namespace
}  // namespace aicost::perf
