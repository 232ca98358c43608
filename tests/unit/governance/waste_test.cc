// Waste detectors on constructed inputs whose findings and savings follow in closed form; each
// detector's threshold is checked just below and at its boundary.
// Idle GPUs, expired dev resources and untagged spend here; storage, logs, commitments, fleets and
// the findings' order in waste_storage_test.cc.
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

}  // namespace
}  // namespace aicost::governance
