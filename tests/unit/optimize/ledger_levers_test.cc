// The ledger levers' closed forms (docs/OPTIMIZE.md "Ledger"): the commitment is the quantile where
// the share of periods that use a level falls to the committed / on-demand price ratio, the idle
// schedule is the weekly pattern planted in the telemetry, and rightsizing keeps the capacity
// buffer. The example ledgers on both store backends: ledger_levers_example_test.cc.
#include "aicost/optimize/ledger_levers.h"

#include <gtest/gtest.h>

#include <set>

#include "optimize_support.h"

namespace aicost::optimize {
namespace {

// ---- Commitment sizing: closed forms -----------------------------------------------------------

// usage {2,2,2,3,3,4,5,8} (shuffled), ratio 0.6: the share of periods using >= 3 is 5/8 = 0.625 >
// 0.6, >= 4 is 3/8 < 0.6, so c* = 3; its cost is 3 × 0.6 + (1 + 2 + 5) / 8 = 2.8 on-demand units
// per period, against mean(u) = 29 / 8 = 3.625 without a commitment.
TEST(BestCommitment, IsTheQuantileWhereTheShareOfUseMeetsThePriceRatio) {
  const std::vector<double> u = {2, 8, 2, 3, 5, 2, 4, 3};
  const auto f = best_commitment(u, 0.6);
  EXPECT_DOUBLE_EQ(f.level, 3);
  EXPECT_NEAR(f.cost, 2.8, 1e-12);
  EXPECT_NEAR(f.on_demand_cost, 3.625, 1e-12);
  // covered: min(u, 3) = 2, 3, 2, 3, 3, 2, 3, 3 = 21 of the 24 committed and of the 29 used.
  EXPECT_NEAR(f.utilisation, 21.0 / 24.0, 1e-12);
  EXPECT_NEAR(f.coverage, 21.0 / 29.0, 1e-12);
  // A dearer commitment (ratio 0.7 > 5/8) stops one step lower.
  EXPECT_DOUBLE_EQ(best_commitment(u, 0.7).level, 2);
  // Cheaper than every usage share above it: commit to the peak... unless it is never worth it.
  EXPECT_DOUBLE_EQ(best_commitment(u, 0.1).level, 8);
  EXPECT_DOUBLE_EQ(best_commitment(u, 1.0).level, 0);
}

TEST(FitCommitment, UtilisationCountsTheUnusedPartOfTheLevel) {
  // Level 4 on {3, 5}: covered (3 + 4) / 2 = 3.5, utilisation 3.5 / 4.
  const std::vector<double> u = {3, 5};
  const auto f = fit_commitment(u, 0.5, 4);
  EXPECT_NEAR(f.covered, 3.5, 1e-12);
  EXPECT_NEAR(f.utilisation, 0.875, 1e-12);
  EXPECT_NEAR(f.cost, 4 * 0.5 + 0.5, 1e-12);
}

// ---- Idle schedule -----------------------------------------------------------------------------

constexpr ledger::UnixSeconds kMonday = 1745193600;  // 2025-04-21T00:00:00Z, a Monday

// Four weeks of one host busy weekdays 08:00-20:00, idle otherwise, plus `night` busy hours.
std::vector<HostHour> office_hours(const std::set<ledger::UnixSeconds>& night = {}) {
  std::vector<HostHour> out;
  for (int h = 0; h < 4 * 168; ++h) {
    const ledger::UnixSeconds t = kMonday + 3600LL * h;
    const int day = (h / 24) % 7, hour = h % 24;
    const bool busy = (day < 5 && hour >= 8 && hour < 20) || night.count(t);
    out.push_back({t, busy ? 0.4 : 0.01});
  }
  return out;
}

const std::vector<StopWindow> kNightsAndWeekends = {
    {20, 12}, {44, 12}, {68, 12}, {92, 12}, {116, 60}};

TEST(IdleSchedule, StopsNightsAndWeekends) {
  const auto s = idle_schedule(office_hours());
  EXPECT_EQ(s.stops, kNightsAndWeekends);
  EXPECT_EQ(s.stopped_hours_per_week, 168 - 5 * 12);
  EXPECT_TRUE(s.active_in_stop.empty());
  EXPECT_EQ(schedule_text(s.stops), "Mon-Thu 20:00 for 12 h, Fri 20:00 for 60 h (UTC)");
}

TEST(IdleSchedule, ANightJobIsARiskNotAReasonToRun) {
  // One Wednesday night, 22:00-02:00 in the second week: those hours idle in 3 of 4 weeks (75 % >=
  // the 70 % rule), so they stay stopped and the job's 4 hours are the risk.
  const ledger::UnixSeconds wed22 = kMonday + 3600LL * (168 + 2 * 24 + 22);
  const auto s = idle_schedule(office_hours({wed22, wed22 + 3600, wed22 + 7200, wed22 + 10800}));
  EXPECT_EQ(s.stops, kNightsAndWeekends);
  EXPECT_EQ(s.active_in_stop,
            (std::vector<ledger::UnixSeconds>{wed22, wed22 + 3600, wed22 + 7200, wed22 + 10800}));
  // Busy two weeks of four (50 % idle < 70 %): those hours run, leaving 2 h before them (shorter
  // than a stop is worth) and 6 h after.
  std::set<ledger::UnixSeconds> twice;
  for (int w : {1, 2})
    for (int k = 0; k < 4; ++k) twice.insert(kMonday + 3600LL * (w * 168 + 2 * 24 + 22 + k));
  const auto split = idle_schedule(office_hours(twice));
  EXPECT_EQ(split.stops,
            (std::vector<StopWindow>{{20, 12}, {44, 12}, {74, 6}, {92, 12}, {116, 60}}));
}

TEST(IdleSchedule, ABusyHostHasNoStop) {
  std::vector<HostHour> busy;
  for (int h = 0; h < 2 * 168; ++h) busy.push_back({kMonday + 3600LL * h, 0.5});
  EXPECT_TRUE(idle_schedule(busy).stops.empty());
  EXPECT_EQ(schedule_text({}), "no stop");
}

// ---- Rightsize: closed forms on the built-in catalog -------------------------------------------

// A p5.48xlarge (8 x H100 80GiB, 55.04 USD/h) with `work` H100s of work at its busiest hour and
// `gib` GiB used on each of its 8 GPUs.
std::optional<RightsizeFit> rightsize_p5(double work, double gib) {
  const auto& cat = testing::builtin_catalog();
  GpuUse u;
  u.gpus = 8;
  u.peak_work = work;
  u.peak_memory = core::gib(8 * gib);
  u.peak_gpu_memory = core::gib(gib);
  return rightsize(u, cat, **cat.instance("aws/p5.48xlarge"));
}

TEST(Rightsize, FewerGpusWhenTheWorkFitsOneWithTheCapacityBuffer) {
  // 0.89 H100 of work <= 1 GPU x (1 - 0.10) and 8 x 5 GiB x 1.1 = 44 GiB <= 80 GiB: one p5.4xlarge
  // (6.88 USD/h), at 6.88 / 55.04 of the price, loaded to 89 %.
  const auto f = rightsize_p5(0.89, 5);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->instance->id, "aws/p5.4xlarge");
  EXPECT_NEAR(f->price_ratio, 6.88 / 55.04, 1e-12);
  EXPECT_NEAR(f->load, 0.89, 1e-12);
  EXPECT_DOUBLE_EQ(f->speed, 1);
}

TEST(Rightsize, APeakAboveTheBufferGoesToTheCheapestOtherGpuThatCarriesIt) {
  // 0.91 > 0.9: no single H100. An A100 is min(312 / 989.4 BF16, 1.555 / 3.35 TB/s) = 0.3153 of an
  // H100, so p4d's 8 carry 2.52 H100s; 8 x 5 GiB fits its 40 GB GPUs: p4d.24xlarge at 21.957642
  // USD/h.
  const auto f = rightsize_p5(0.91, 5);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->instance->id, "aws/p4d.24xlarge");
  EXPECT_NEAR(f->speed, 312.0 / 989.4, 1e-3);
  EXPECT_NEAR(f->price_ratio, 21.957642 / 55.04, 1e-12);
  // 37 GiB on a GPU (x 1.1 = 40.7 GiB > 40 GiB) leaves the 40 GB A100 out: p4de's 80 GiB ones.
  const auto big = rightsize_p5(0.91, 37);
  ASSERT_TRUE(big);
  EXPECT_EQ(big->instance->id, "aws/p4de.24xlarge");
}

TEST(Rightsize, MemoryThatFillsTheGpusKeepsTheInstance) {
  // 75 GiB x 1.1 = 82.5 GiB on a GPU: more than any cheaper instance's GPUs hold (80 GiB on the
  // p5.4xlarge and p4de, 48 GiB on L40S, 24 GiB on L4); 73 GiB does not fit either (80.3 GiB).
  EXPECT_FALSE(rightsize_p5(0.5, 75));
  EXPECT_FALSE(rightsize_p5(0.5, 73));
  // 72 GiB x 1.1 = 79.2 GiB fits an 80 GiB GPU: 8 of them (576 GiB x 1.1) on p4de.24xlarge.
  const auto f = rightsize_p5(0.5, 72);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->instance->id, "aws/p4de.24xlarge");
}

}  // namespace
}  // namespace aicost::optimize
