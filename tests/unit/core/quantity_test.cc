#include "aicost/core/quantity.h"

#include <gtest/gtest.h>

#include <type_traits>

namespace aicost::core {
namespace {

TEST(Quantity, FlopsOverFlopRateIsSeconds) {
  // 1e15 FLOP / 5e14 FLOP/s = 2 s, and the type is Seconds.
  auto t = flops(1e15) / tflops_per_s(500);
  static_assert(std::is_same_v<decltype(t), Seconds>);
  EXPECT_NEAR(t.value(), 2.0, 1e-12);
}

TEST(Quantity, BytesOverBytesIsPlainDouble) {
  // A ratio of equal dimensions decays to double: 80 GiB / 40 GiB = 2.
  auto r = gib(80) / gib(40);
  static_assert(std::is_same_v<decltype(r), double>);
  EXPECT_NEAR(r, 2.0, 1e-12);
}

TEST(Quantity, HourlyRateTimesHoursIsUsd) {
  // 3.6 USD/h * 1 h = 3.6 USD (stored as 0.001 USD/s * 3600 s).
  auto cost = usd_per_hour(3.6) * hours(1);
  static_assert(std::is_same_v<decltype(cost), Usd>);
  EXPECT_NEAR(cost.value(), 3.6, 1e-12);
}

TEST(Quantity, ComparisonsFollowValues) {
  EXPECT_LT(gb(80), gib(80));  // 8e10 < 8.59e10
  EXPECT_GT(hours(1), seconds(3599));
  EXPECT_EQ(seconds(3600), hours(1));
  EXPECT_LE(usd(1), usd(1));
  EXPECT_NE(bytes(1), bytes(2));
}

TEST(Quantity, AdditionAndScaling) {
  // (1 h + 30 min) * 2 = 3 h = 10800 s.
  auto t = (hours(1) + seconds(1800)) * 2.0;
  EXPECT_NEAR(t.value(), 10800.0, 1e-9);
  EXPECT_NEAR(in_hours(t), 3.0, 1e-12);
}

}  // namespace
}  // namespace aicost::core
