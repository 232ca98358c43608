// Waste detectors on constructed inputs whose findings and savings follow in closed form, each
// threshold checked just below and at its boundary: storage growth, log retention, duplicate
// storage, unused commitments and fleets; then the findings' order and kind names.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aicost/governance/waste.h"

namespace aicost::governance {
namespace {

constexpr double kTol = 1e-9;
const ledger::Day kDay0 = ledger::days_from_civil(2024, 9, 1);

// Flat 5/day for 32 days, then 10 + 0.1·t for the last 28: the fit sees only the ramp. Growth =
// 0.1 × 30 / 10 = 30 %; today 12.7/day, 381/month; saving = (0.30 − 0.10) × 381 = 76.2.
StorageSeries ramp(double slope, bool holes = false) {
  StorageSeries s{"bucket-logs", "USD", {}};
  for (int t = 0; t < 60; ++t)
    if (!(holes && t % 5 == 1))
      s.daily_cost.push_back({kDay0 + t, t < 32 ? 5.0 : 10 + slope * (t - 32)});
  return s;
}

TEST(WasteStorageGrowth, SteepRampSavesTheExcessGrowth) {
  const auto found = storage_growth({ramp(0.1)});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, WasteKind::kStorageGrowth);
  EXPECT_NEAR(found[0].monthly_saving, 0.2 * 12.7 * 30, 1e-6);
  EXPECT_NE(found[0].message.find("30.0 %"), std::string::npos);
}

TEST(WasteStorageGrowth, MissingDaysAreLeftOutOfTheFit) {
  const auto found = storage_growth({ramp(0.1, true)});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NEAR(found[0].monthly_saving, 0.2 * 12.7 * 30, 1e-6);
}

// 0.0333 × 30 / 10 = 9.99 % < 10 %.
TEST(WasteStorageGrowth, GrowthJustBelowLimitIsFine) {
  EXPECT_TRUE(storage_growth({ramp(0.0333)}).empty());
  EXPECT_EQ(storage_growth({ramp(0.0334)}).size(), 1u);
  EXPECT_TRUE(storage_growth({ramp(0.1)}, {.max_monthly_growth = 0.3 + 1e-9}).empty());
  EXPECT_TRUE(storage_growth({ramp(-0.1)}).empty());
}

TEST(WasteStorageGrowth, TooFewPointsGiveNoFinding) {
  EXPECT_TRUE(storage_growth({{"s", "USD", {}}, {"s", "USD", {{kDay0, 1.0}}}}).empty());
  EXPECT_TRUE(storage_growth({}).empty());
}

// 10 GB more every day from 10 GB on day 0 to 600 GB on day 59; 30-day retention: on day 29 the
// store held 300 GB, all of it past retention today; at 0.02/GB-month that is 6.
LogStorage growing_logs(int days, int step = 1, double price = 0.02) {
  LogStorage l{"log-group/app", "USD", {}, price};
  for (int t = 0; t < days; t += step) l.stored_gb.push_back({kDay0 + t, 10.0 * (t + 1)});
  return l;
}

TEST(WasteLogRetention, DataOlderThanRetentionIsPriced) {
  const auto found = log_retention({growing_logs(60)});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, WasteKind::kLogRetention);
  EXPECT_NEAR(found[0].monthly_saving, 300 * 0.02, kTol);
  EXPECT_NE(found[0].evidence[0].find("300 GB"), std::string::npos);
}

// Weekly samples on days 0, 7, ..., 56: cutoff day 26, the latest sample before it is day 21 (220
// GB).
TEST(WasteLogRetention, TakesTheLatestSampleBeforeTheCutoff) {
  const auto found = log_retention({growing_logs(60, 7)});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NEAR(found[0].monthly_saving, 220 * 0.02, kTol);
}

TEST(WasteLogRetention, SpanAtRetentionOrADropGivesNoFinding) {
  EXPECT_TRUE(log_retention({growing_logs(31)}).empty());  // days 0..30: span 30, not > 30
  EXPECT_EQ(log_retention({growing_logs(32)}).size(), 1u);
  LogStorage deleted = growing_logs(60);
  deleted.stored_gb[40].second = 5;
  EXPECT_TRUE(log_retention({deleted}).empty());
  EXPECT_TRUE(log_retention({growing_logs(60)}, {.retention_days = 60}).empty());
}

TEST(WasteLogRetention, MissingPriceSavesNothingButIsReported) {
  const auto found = log_retention({growing_logs(60, 1, 0)});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].monthly_saving, 0);
  EXPECT_NE(found[0].message.find("no price"), std::string::npos);
}

TEST(WasteDuplicateStorage, KeepsTheCheapestCopyAndNamesTheRegions) {
  const auto found =
      duplicate_storage({{"s3://a/ckpt", "S3", "us-east-1", "USD", "ckpt-7", 400, 10},
                         {"s3://b/ckpt", "S3", "us-east-1", "USD", "ckpt-7", 400, 8},
                         {"s3://c/ckpt", "S3", "eu-west-1", "USD", "ckpt-7", 400, 9},
                         {"s3://d/other", "S3", "us-east-1", "USD", "", 400, 50}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].subject, "ckpt-7");
  EXPECT_NEAR(found[0].monthly_saving, 19, kTol);
  EXPECT_NE(found[0].message.find("2 regions (eu-west-1, us-east-1)"), std::string::npos);
  ASSERT_EQ(found[0].evidence.size(), 3u);
  EXPECT_EQ(found[0].evidence[0].rfind("s3://a/ckpt", 0), 0u);  // most expensive first
  EXPECT_NE(found[0].evidence[2].find("s3://b/ckpt (S3, us-east-1): 400 GB, 8.00 USD/month [keep]"),
            std::string::npos);
}

TEST(WasteDuplicateStorage, SameRegionRepeatedRowsAndMixedCurrencies) {
  const auto same = duplicate_storage(
      {{"a", "GCS", "eu", "EUR", "ds", 1, 3}, {"b", "GCS", "eu", "EUR", "ds", 1, 3}});
  ASSERT_EQ(same.size(), 1u);
  EXPECT_NEAR(same[0].monthly_saving, 3, kTol);
  EXPECT_EQ(same[0].message.find("regions"), std::string::npos);
  EXPECT_TRUE(duplicate_storage(
                  {{"a", "GCS", "eu", "EUR", "ds", 1, 3}, {"a", "GCS", "eu", "EUR", "ds", 1, 3}})
                  .empty());
  EXPECT_TRUE(duplicate_storage(
                  {{"a", "GCS", "eu", "EUR", "ds", 1, 3}, {"b", "GCS", "eu", "USD", "ds", 1, 3}})
                  .empty());
  EXPECT_TRUE(duplicate_storage({}).empty());
}

TEST(WasteUnusedCommitments, UnusedCostIsScaledToThirtyDays) {
  const auto found =
      unused_commitments({{"ri-1", "USD", 800, 200, 30}, {"sp-2", "USD", 300, 100, 15}});
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].subject,
            "ri-1");  // 200 over 30 days ties sp-2's 100 × 30 / 15: subjects ascending
  EXPECT_NEAR(found[0].monthly_saving, 200, kTol);
  EXPECT_NEAR(found[1].monthly_saving, 200, kTol);
  EXPECT_NE(found[0].message.find("20.0 % unused"), std::string::npos);
  EXPECT_NE(found[0].message.find("buy less at renewal"), std::string::npos);
  EXPECT_NE(found[1].message.find("25.0 % unused"), std::string::npos);
}

TEST(WasteUnusedCommitments, ShareAtOrBelowLimitIsFine) {
  EXPECT_TRUE(unused_commitments({{"ri-1", "USD", 95, 5, 30}}).empty());
  EXPECT_TRUE(unused_commitments({{"ri-1", "USD", 0, 0, 30}, {"ri-2", "USD", 10, 90, 0}}).empty());
  EXPECT_EQ(unused_commitments({{"ri-1", "USD", 95, 5.01, 30}}).size(), 1u);
  EXPECT_TRUE(unused_commitments({{"ri-1", "USD", 80, 20, 30}}, {.min_unused_share = 0.2}).empty());
}

// 10 replicas, mean 0.12, peak 0.35: max(0.12 / 0.6, 0.35) × 10 = 3.5 → 4; saves 1000 × 6/10.
TEST(WasteFleets, RightSizesToTargetWithPeakHeadroom) {
  const auto found = low_utilisation_fleets({{"llama-70b", "USD", 10, 0.12, 0.35, 1000}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, WasteKind::kLowUtilisationFleet);
  EXPECT_NEAR(found[0].monthly_saving, 600, kTol);
  EXPECT_NE(found[0].message.find("4 replicas"), std::string::npos);
}

// 0.24 / 0.6 × 10 and 0.3 × 10 are 4 and 3 up to rounding: no extra replica for the last ulp.
TEST(WasteFleets, ExactProductsDoNotRoundUp) {
  EXPECT_NEAR(low_utilisation_fleets({{"f", "USD", 10, 0.24, 0.3, 1000}})[0].monthly_saving, 600,
              kTol);
  EXPECT_NEAR(low_utilisation_fleets({{"f", "USD", 10, 0.12, 0.3, 1000}})[0].monthly_saving, 700,
              kTol);
}

TEST(WasteFleets, ThresholdPeakAndMinimumReplica) {
  EXPECT_TRUE(low_utilisation_fleets({{"f", "USD", 10, 0.30, 0.35, 1000}}).empty());
  EXPECT_EQ(low_utilisation_fleets({{"f", "USD", 10, 0.2999, 0.35, 1000}}).size(), 1u);
  const auto peak = low_utilisation_fleets({{"f", "USD", 10, 0.1, 1.0, 1000}});
  ASSERT_EQ(peak.size(), 1u);
  EXPECT_EQ(peak[0].monthly_saving, 0);
  EXPECT_NE(peak[0].message.find("autoscale"), std::string::npos);
  EXPECT_EQ(low_utilisation_fleets({{"f", "USD", 1, 0.01, 0.02, 1000}})[0].monthly_saving, 0);
  EXPECT_TRUE(low_utilisation_fleets({{"f", "USD", 0, 0.01, 0.02, 1000}}).empty());
  EXPECT_TRUE(
      low_utilisation_fleets({{"f", "USD", 10, 0.35, 0.4, 1000}}, {.low_below = 0.3}).empty());
  EXPECT_NEAR(low_utilisation_fleets({{"f", "USD", 10, 0.1, 0.2, 1000}}, {.target = 0.25})[0]
                  .monthly_saving,
              600, kTol);
}

TEST(WasteSort, BySavingThenKindThenSubject) {
  std::vector<WasteFinding> f = {{WasteKind::kUnusedCommitment, "b", "USD", 5, "", {}},
                                 {WasteKind::kIdleGpu, "z", "USD", 5, "", {}},
                                 {WasteKind::kUnusedCommitment, "a", "USD", 5, "", {}},
                                 {WasteKind::kUntaggedSpend, "t", "USD", 0, "", {}},
                                 {WasteKind::kHungGpu, "h", "USD", 50, "", {}}};
  sort_findings(f);
  std::vector<std::string> order;
  for (const WasteFinding& x : f) order.push_back(x.subject);
  EXPECT_EQ(order, (std::vector<std::string>{"h", "z", "a", "b", "t"}));
}

TEST(WasteKindNames, AreSnakeCase) {
  const char* names[] = {"idle_gpu",          "hung_gpu",          "expired_dev_resource",
                         "untagged_spend",    "storage_growth",    "log_retention",
                         "duplicate_storage", "unused_commitment", "low_utilisation_fleet"};
  for (int k = 0; k < 9; ++k) EXPECT_STREQ(waste_kind_name(static_cast<WasteKind>(k)), names[k]);
}

}  // namespace
}  // namespace aicost::governance
