// Waste detectors on constructed inputs whose findings and savings follow in closed form; each
// detector's threshold is checked just below and at its boundary.
#include "aicost/governance/waste.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace aicost::governance {
namespace {

using ledger::Day;
using ledger::UnixSeconds;
using std::nullopt;

constexpr double kTol = 1e-9;
const Day kDay0 = ledger::days_from_civil(2024, 9, 1);
const UnixSeconds kT0 = std::int64_t{kDay0} * 86400;  // 2024-09-01T00:00Z

GpuActivityHour sample(const std::string& gpu, int h, std::optional<double> sm,
                       std::optional<double> gr = nullopt, std::optional<double> util = nullopt,
                       const std::string& host = "h1") {
  return {host, gpu, kT0 + 3600LL * h, sm, gr, util};
}

// Hours [0, n) of one GPU; activity `idle` on hours [from, to), 0.5 elsewhere.
void add_gpu(std::vector<GpuActivityHour>& out, const std::string& gpu, int n, int from, int to,
             double idle = 0.01) {
  for (int h = 0; h < n; ++h) out.push_back(sample(gpu, h, h >= from && h < to ? idle : 0.5));
}

const std::map<std::string, double> kPrice = {{"h1", 2.0}};

// 8 idle hours of 24 observed at 2/GPU-hour: 8 × 2 × 30 days / 1 day = 480.
TEST(WasteIdleGpus, IdleRunSavingIsExtrapolatedToAMonth) {
  std::vector<GpuActivityHour> hours;
  add_gpu(hours, "0", 24, 10, 18);
  const auto found = idle_gpus(hours, kPrice, "USD");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, WasteKind::kIdleGpu);
  EXPECT_EQ(found[0].subject, "h1");
  EXPECT_EQ(found[0].currency, "USD");
  EXPECT_NEAR(found[0].monthly_saving, 480, kTol);
  ASSERT_EQ(found[0].evidence.size(), 1u);
  EXPECT_NE(found[0].evidence[0].find("2024-09-01T10:00Z to 2024-09-01T18:00Z, 8 h"),
            std::string::npos);
  EXPECT_NE(found[0].evidence[0].find("16.00 USD"), std::string::npos);
}

// gpu 0 idle 6 h, gpu 1 idle 4 h, 10 h observed at 3/GPU-hour: 10 × 3 × 720 / 10 = 2160.
TEST(WasteIdleGpus, AggregatesTheGpusOfAHost) {
  std::vector<GpuActivityHour> hours;
  add_gpu(hours, "0", 10, 0, 6);
  add_gpu(hours, "1", 10, 6, 10);
  const auto found = idle_gpus(hours, {{"h1", 3.0}}, "USD");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NEAR(found[0].monthly_saving, 2160, kTol);
  EXPECT_NE(found[0].message.find("2 GPUs"), std::string::npos);
  EXPECT_NE(found[0].message.find("10 GPU-hours in 10 h observed, longest run 6 h"),
            std::string::npos);
  ASSERT_EQ(found[0].evidence.size(), 2u);
  EXPECT_EQ(found[0].evidence[0].rfind("gpu 0:", 0), 0u);  // the longest run first
}

TEST(WasteIdleGpus, ActivityAtTheThresholdIsNotIdle) {
  std::vector<GpuActivityHour> at, below, higher;
  add_gpu(at, "0", 12, 0, 8, 0.05);
  add_gpu(below, "0", 12, 0, 8, 0.0499);
  add_gpu(higher, "0", 12, 0, 8, 0.1);
  EXPECT_TRUE(idle_gpus(at, kPrice, "USD").empty());
  EXPECT_EQ(idle_gpus(below, kPrice, "USD").size(), 1u);
  EXPECT_TRUE(idle_gpus(higher, kPrice, "USD").empty());
  EXPECT_EQ(idle_gpus(higher, kPrice, "USD", {.idle_below = 0.2}).size(), 1u);
  EXPECT_TRUE(idle_gpus({}, kPrice, "USD").empty());
}

TEST(WasteIdleGpus, RunShorterThanMinHoursIsIgnored) {
  std::vector<GpuActivityHour> hours;
  add_gpu(hours, "0", 12, 2, 5);  // 3 idle hours < 4
  EXPECT_TRUE(idle_gpus(hours, kPrice, "USD").empty());
  EXPECT_EQ(idle_gpus(hours, kPrice, "USD", {.min_hours = 3}).size(), 1u);
}

// Idle hours 0-2 and 4-6: with hour 3 missing they are two 3-hour runs; with it, one of 7 hours.
TEST(WasteIdleGpus, AMissingHourBreaksTheRun) {
  std::vector<GpuActivityHour> hours;
  for (int h : {0, 1, 2, 4, 5, 6}) hours.push_back(sample("0", h, 0.0));
  EXPECT_TRUE(idle_gpus(hours, kPrice, "USD").empty());
  hours.push_back(sample("0", 3, 0.0));
  const auto found = idle_gpus(hours, kPrice, "USD");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NEAR(found[0].monthly_saving, 7 * 2.0 * 720 / 7, kTol);  // idle the whole observed span
}

TEST(WasteIdleGpus, AnHourWithoutMetricsBreaksTheRun) {
  std::vector<GpuActivityHour> hours;
  for (int h = 0; h < 7; ++h)
    hours.push_back(h == 3 ? sample("0", h, nullopt) : sample("0", h, 0.0));
  EXPECT_TRUE(idle_gpus(hours, kPrice, "USD").empty());
}

// GPU_UTIL 100 % with SM_ACTIVE 0: nvidia-smi says busy, the SMs do nothing — a hung job.
TEST(WasteIdleGpus, BusyGpuUtilWithIdleSmIsHungNotIdle) {
  std::vector<GpuActivityHour> hours;
  for (int h = 0; h < 6; ++h) hours.push_back(sample("0", h, 0.0, nullopt, 1.0));
  const auto found = idle_gpus(hours, kPrice, "USD");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, WasteKind::kHungGpu);
  EXPECT_NEAR(found[0].monthly_saving, 6 * 2.0 * 720 / 6, kTol);
  EXPECT_NE(found[0].evidence[0].find("6 h with GPU_UTIL >= 0.90"), std::string::npos);
}

TEST(WasteIdleGpus, GpuUtilAloneIsTheLastResort) {
  std::vector<GpuActivityHour> busy, idle;
  for (int h = 0; h < 6; ++h) busy.push_back(sample("0", h, nullopt, nullopt, 1.0));
  for (int h = 0; h < 6; ++h) idle.push_back(sample("0", h, nullopt, nullopt, 0.0));
  EXPECT_TRUE(idle_gpus(busy, kPrice, "USD").empty());
  const auto found = idle_gpus(idle, kPrice, "USD");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, WasteKind::kIdleGpu);
}

TEST(WasteIdleGpus, FallsBackToGrEngineActive) {
  std::vector<GpuActivityHour> idle, hung;
  for (int h = 0; h < 6; ++h) idle.push_back(sample("0", h, nullopt, 0.01, 0.02));
  for (int h = 0; h < 6; ++h) hung.push_back(sample("0", h, nullopt, 0.01, 0.95));
  ASSERT_EQ(idle_gpus(idle, kPrice, "USD").size(), 1u);
  EXPECT_EQ(idle_gpus(idle, kPrice, "USD")[0].kind, WasteKind::kIdleGpu);
  ASSERT_EQ(idle_gpus(hung, kPrice, "USD").size(), 1u);
  EXPECT_EQ(idle_gpus(hung, kPrice, "USD")[0].kind, WasteKind::kHungGpu);
  EXPECT_TRUE(idle_gpus(hung, kPrice, "USD", {.util_busy_above = 0.96})[0].kind ==
              WasteKind::kIdleGpu);
}

TEST(WasteIdleGpus, HostWithoutPriceIsReportedWithZeroSaving) {
  std::vector<GpuActivityHour> hours;
  add_gpu(hours, "0", 24, 0, 12);
  const auto found = idle_gpus(hours, {{"other", 2.0}}, "USD");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].monthly_saving, 0);
  EXPECT_NE(found[0].message.find("no price"), std::string::npos);
}

TEST(WasteIdleGpus, EvidenceIsCappedAtTenLines) {
  std::vector<GpuActivityHour> hours;
  for (int g = 0; g < 12; ++g) add_gpu(hours, std::to_string(g), 8, 0, 8);
  const auto found = idle_gpus(hours, kPrice, "USD");
  ASSERT_EQ(found.size(), 1u);
  ASSERT_EQ(found[0].evidence.size(), 10u);
  EXPECT_EQ(found[0].evidence.back(), "... and 3 more");
}

ResourceDays dev_resource(Day first, Day last, double cost,
                          std::map<std::string, std::string> tags) {
  return {"vm-1", "scratch", "Compute", "USD", std::move(tags), first, last, cost, std::nullopt};
}

TEST(WasteExpiredDev, PastTtlAndStillChargingSavesItsMonthlyCost) {
  const Day as_of = kDay0 + 60;
  const auto found = expired_dev_resources(
      {dev_resource(as_of - 40, as_of - 1, 90, {{"environment", "Dev"}})}, as_of);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, WasteKind::kExpiredDevResource);
  EXPECT_EQ(found[0].subject, "vm-1");
  EXPECT_NEAR(found[0].monthly_saving, 90, kTol);
}

// 20 days of life cost 60: 60 × 30 / 20 = 90 a month.
TEST(WasteExpiredDev, YoungResourceIsScaledToAMonth) {
  const Day as_of = kDay0 + 60;
  const auto found =
      expired_dev_resources({dev_resource(as_of - 20, as_of - 1, 60, {{"env", "test"}})}, as_of);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NEAR(found[0].monthly_saving, 90, kTol);
}

TEST(WasteExpiredDev, TtlAndStillChargingBoundaries) {
  const Day as_of = kDay0 + 60;
  const std::map<std::string, std::string> dev = {{"stage", "sandbox"}};
  EXPECT_TRUE(expired_dev_resources({dev_resource(as_of - 13, as_of, 10, dev)}, as_of).empty());
  EXPECT_EQ(expired_dev_resources({dev_resource(as_of - 14, as_of, 10, dev)}, as_of).size(), 1u);
  EXPECT_TRUE(expired_dev_resources({dev_resource(as_of - 30, as_of - 3, 10, dev)}, as_of).empty());
  EXPECT_EQ(expired_dev_resources({dev_resource(as_of - 30, as_of - 2, 10, dev)}, as_of).size(),
            1u);
  EXPECT_EQ(
      expired_dev_resources({dev_resource(as_of - 13, as_of, 10, dev)}, as_of, {.ttl_days = 7})
          .size(),
      1u);
}

TEST(WasteExpiredDev, OnlyDevValuesOfTheFirstEnvKeyCount) {
  const Day as_of = kDay0 + 60;
  EXPECT_TRUE(
      expired_dev_resources({dev_resource(as_of - 40, as_of, 10, {{"environment", "prod"}})}, as_of)
          .empty());
  EXPECT_TRUE(expired_dev_resources({dev_resource(as_of - 40, as_of, 10, {{"team", "dev"}})}, as_of)
                  .empty());
  EXPECT_TRUE(
      expired_dev_resources(
          {dev_resource(as_of - 40, as_of, 10, {{"environment", "prod"}, {"stage", "dev"}})}, as_of)
          .empty());
  TtlOptions custom;
  custom.dev_values = {"QA"};
  EXPECT_EQ(
      expired_dev_resources({dev_resource(as_of - 40, as_of, 10, {{"env", "qa"}})}, as_of, custom)
          .size(),
      1u);
  EXPECT_TRUE(expired_dev_resources({}, as_of).empty());
}

TEST(WasteUntagged, ShareAboveLimitIsAFindingWithoutSaving) {
  const auto found =
      untagged_spend({{"team", "USD", 120, 1000, 30, {{"bucket-a", 80}, {"Compute", 40}}}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, WasteKind::kUntaggedSpend);
  EXPECT_EQ(found[0].subject, "team");
  EXPECT_EQ(found[0].monthly_saving, 0);
  EXPECT_NE(found[0].message.find("12.0 %"), std::string::npos);
  EXPECT_NE(found[0].message.find("120.00 USD of 1,000.00 USD"), std::string::npos);
  EXPECT_EQ(found[0].evidence,
            (std::vector<std::string>{"bucket-a: 80.00 USD", "Compute: 40.00 USD"}));
}

TEST(WasteUntagged, ShareAtOrBelowLimitAndZeroTaggableAreFine) {
  EXPECT_TRUE(untagged_spend({{"team", "USD", 50, 1000, 30, {}}}).empty());
  EXPECT_TRUE(untagged_spend({{"team", "USD", 49.99, 1000, 30, {}}}).empty());
  EXPECT_TRUE(untagged_spend({{"team", "USD", 0, 0, 30, {}}}).empty());
  EXPECT_EQ(untagged_spend({{"team", "USD", 50.01, 1000, 30, {}}}).size(), 1u);
  EXPECT_TRUE(untagged_spend({{"team", "USD", 120, 1000, 30, {}}}, {.max_share = 0.2}).empty());
}

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
