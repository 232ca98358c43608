// The ledger levers (docs/OPTIMIZE.md "Ledger"): the commitment is the quantile where the share of
// periods that use a level falls to the committed / on-demand price ratio, the idle schedule is the
// weekly pattern planted in the telemetry; and on the example ledger (examples/optimize-ledger), on
// both store backends, both equal what this test derives from the CSV and the prom file itself.
#include "aicost/optimize/ledger_levers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include "aicost/billing/ingest.h"
#include "aicost/core/text.h"
#include "aicost/governance/waste_scan.h"
#include "optimize_support.h"
#include "store/backends.h"

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

// ---- The example ledger, both backends ---------------------------------------------------------

const std::string kDir = std::string(AICOST_SOURCE_DIR) + "/examples/optimize-ledger/";
const ledger::Day kAsOf = ledger::days_from_civil(2025, 5, 19);

// A CSV line split into fields (RFC 4180 quotes; the example has no newline inside a field).
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"')
      out.back() += '"', ++i;
    else if (c == '"')
      quoted = !quoted;
    else if (c == ',' && !quoted)
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

// Instances running per day of the 60 days before 2025-05-19, per "sku region", counted from the
// CSV's instance rows (Unused reservation rows are not instances).
std::map<std::string, std::vector<double>> instances_per_day() {
  std::ifstream in(kDir + "focus-gpu-fleet-2025-03-05.csv");
  std::string line;
  std::getline(in, line);
  const auto header = split_csv(line);
  auto col = [&](const char* name) {
    return std::find(header.begin(), header.end(), name) - header.begin();
  };
  const auto start = col("ChargePeriodStart"), sku = col("SkuId"), region = col("RegionId"),
             type = col("ResourceType");
  std::map<std::string, std::vector<double>> out;
  const ledger::Day from = kAsOf - 60;
  while (std::getline(in, line)) {
    const auto f = split_csv(line);
    if (f[type] != "Instance") continue;
    int y = 0, m = 0, d = 0;
    std::sscanf(f[start].c_str(), "%d-%d-%d", &y, &m, &d);
    const ledger::Day day = ledger::days_from_civil(y, m, d);
    if (day < from || day >= kAsOf) continue;
    auto& v = out[f[sku] + " " + f[region]];
    v.resize(60);
    v[day - from] += 1;
  }
  return out;
}

// c* by the quantile rule: the largest count c whose share of days with usage >= c exceeds ratio.
double quantile_optimum(const std::vector<double>& u, double ratio) {
  double best = 0;
  for (int c = 1; c <= 64; ++c) {
    const double share =
        std::count_if(u.begin(), u.end(), [c](double x) { return x >= c; }) / double(u.size());
    if (share > ratio) best = c;
  }
  return best;
}

double catalog_ratio(const std::string& id) {
  const auto* inst = *testing::builtin_catalog().instance(id);
  return core::per_hour(*inst->price(catalog::PricingMode::kReserved1y)) /
         core::per_hour(*inst->price(catalog::PricingMode::kOnDemand));
}

class ExampleFleet : public aicost::testing::BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    for (const char* f : {"focus-gpu-fleet-2025-03-05.csv", "dcgm-dev-pool-2025-04-05.prom"}) {
      auto r = billing::ingest_file(store(), kDir + f, {});
      ASSERT_TRUE(r) << r.error().what();
    }
    LedgerOptions o;
    o.as_of = kAsOf;
    auto r = optimize_ledger(store(), testing::builtin_catalog(), o);
    ASSERT_TRUE(r) << r.error().what();
    res_ = std::move(*r);
  }
  const LeverResult& find(const std::string& id, const std::string& subject) {
    for (const auto& l : res_.levers)
      if (l.id == id && l.subject == subject) return l;
    ADD_FAILURE() << "no lever " << id << " " << subject;
    static const LeverResult none;
    return none;
  }
  LedgerOptimizeResult res_;
};

TEST_P(ExampleFleet, CommitmentIsTheHandComputedOptimum) {
  const auto usage = instances_per_day();
  const auto& p4d = usage.at("p4d.24xlarge us-east-1");
  const double ratio = catalog_ratio("aws/p4d.24xlarge");
  const double c = quantile_optimum(p4d, ratio);
  EXPECT_EQ(c, 7);  // the example's README states it
  const auto& l = find("commitment", "p4d.24xlarge us-east-1");
  EXPECT_EQ(l.status, LeverStatus::kAccepted);
  ASSERT_EQ(l.change.size(), 1u);
  EXPECT_EQ(*l.change[0].value, core::sprintf("%.4g instances, 1 year", c));
  // Saving: on demand (mean usage) minus committed (c × ratio + the usage above c), at the bill's
  // on-demand price (the catalog's, which the example bills at), 730 h a month.
  double mean = 0, over = 0;
  for (double u : p4d) mean += u / p4d.size(), over += std::max(u - c, 0.0) / p4d.size();
  const double price = 21.957642;
  EXPECT_NEAR(*l.saving_usd, (mean - (c * ratio + over)) * price * 730, 0.01);
  EXPECT_EQ(l.risk.level, RiskLevel::kMedium);  // a year paid; it still pays at 30 % less usage
}

TEST_P(ExampleFleet, ExistingReservationIsAboveTheOptimumAndItsUnusedCostIsReported) {
  const auto usage = instances_per_day();
  const auto& g6 = usage.at("g6.48xlarge us-west-2");
  const double c = quantile_optimum(g6, catalog_ratio("aws/g6.48xlarge"));
  EXPECT_EQ(c, 3);
  const auto& l = find("commitment", "g6.48xlarge us-west-2");
  EXPECT_EQ(l.status, LeverStatus::kNoSaving);
  EXPECT_NE(l.why.find("held (4 instances) is at or above the optimum (3)"), std::string::npos)
      << l.why;
  // Utilisation of the 4 reserved: mean(min(u, 4)) / 4; unused hours at the reserved rate, a month.
  double used = 0;
  for (double u : g6) used += std::min(u, 4.0);
  const double unused_month = (4 * 60 - used) * 24 * 8.69111 * 730 / (24 * 60);
  const std::string expected =
      core::sprintf("utilisation %.1f %%, unused %s USD a month", 100 * used / (4 * 60),
                    core::group_digits(unused_month).c_str());
  bool found = false;
  for (const auto& n : l.notes) found |= n.find(expected) != std::string::npos;
  EXPECT_TRUE(found) << "no note with '" << expected << "'";
}

TEST_P(ExampleFleet, IdleScheduleFindsThePlantedNightsAndWeekends) {
  for (const char* host : {"i-dev0", "i-dev1", "i-dev2"}) {
    const auto& l = find("idle-schedule", host);
    EXPECT_EQ(l.status, LeverStatus::kAccepted) << host;
    ASSERT_EQ(l.change.size(), 1u);
    EXPECT_EQ(*l.change[0].value, "stop Mon-Thu 20:00 for 12 h, Fri 20:00 for 60 h (UTC)") << host;
    // 108 stopped hours a week at g6.xlarge's 0.8048 USD/h, 730 / 168 weeks a month.
    EXPECT_NEAR(*l.saving_usd, 108 * 0.8048 * 730 / 168, 0.01) << host;
  }
  // The night job on i-dev1 (2025-05-07 22:00 to 02:00) is the risk, and only there.
  EXPECT_EQ(find("idle-schedule", "i-dev1").risk.level, RiskLevel::kMedium);
  EXPECT_NE(find("idle-schedule", "i-dev1").risk.why.find("4 hours inside the stop"),
            std::string::npos);
  EXPECT_NE(find("idle-schedule", "i-dev1").risk.why.find("2025-05-07 22:00"), std::string::npos);
  EXPECT_EQ(find("idle-schedule", "i-dev0").risk.level, RiskLevel::kLow);
  // The pool's hosts are not also sized for a commitment (one resource, one lever).
  EXPECT_EQ(find("commitment", "g6.xlarge us-west-2").status, LeverStatus::kNotApplicable);
}

TEST_P(ExampleFleet, WasteFindingsOnResourcesAnotherLeverSavesOnCountOnce) {
  // `ledger check` finds the dev pool past its 14-day TTL and the reservation a sixth unused; the
  // idle schedules and the commitment lever already act on them: listed, with no second saving.
  for (const char* host : {"i-dev0", "i-dev1", "i-dev2"}) {
    const auto& l = find("waste-expired-dev-resource",
                         std::string("arn:aws:ec2:us-west-2:111122223333:instance/") + host);
    EXPECT_EQ(l.status, LeverStatus::kNoSaving);
    EXPECT_EQ(
        l.why.rfind(std::string("counted in idle-schedule ") + host + " (one resource, one saving)",
                    0),
        0u)
        << l.why;
  }
  const auto& ri = find("waste-unused-commitment",
                        "arn:aws:ec2:us-west-2:111122223333:reserved-instances/ri-g6-4x");
  EXPECT_EQ(ri.status, LeverStatus::kNoSaving);
  EXPECT_EQ(ri.why.rfind("counted in commitment g6.48xlarge us-west-2", 0), 0u) << ri.why;
  // The accepted levers' savings add up to the combined saving.
  double sum = 0;
  for (const auto& l : res_.levers)
    if (l.status == LeverStatus::kAccepted) sum += *l.saving_usd;
  EXPECT_NEAR(res_.combined.saving_usd, sum, 1e-6);
}

TEST_P(ExampleFleet, RightsizeMovesThePlantedEvalServerToOneGpu) {
  // Planted (make_example.py): i-eval0's 8 H100s each run SM_ACTIVE <= 0.10 with <= 6 GiB used, so
  // its busiest hour is <= 0.8 H100 of work (<= 0.9, one GPU less the 10 % buffer) and <= 48 GiB (x
  // 1.1 <= 80 GiB): one p5.4xlarge. Billed 24 h a day at 55.04 USD/h, the saving a month of 730 h
  // is (55.04 - 6.88) x 730.
  const auto& l = find("rightsize", "i-eval0");
  EXPECT_EQ(l.status, LeverStatus::kAccepted);
  ASSERT_EQ(l.change.size(), 1u);
  EXPECT_EQ(*l.change[0].value, "p5.4xlarge: 1 x NVIDIA H100 SXM5 80GB instead of 8")
      << *l.change[0].value;
  EXPECT_NEAR(*l.saving_usd, (55.04 - 6.88) * 730, 0.01);
  EXPECT_EQ(l.risk.level, RiskLevel::kMedium);
  // One resource, one lever: the host is out of the p5.48xlarge commitment, and no other host is
  // rightsized (the dev pool is stopped by its schedule).
  EXPECT_EQ(find("commitment", "p5.48xlarge us-east-1").status, LeverStatus::kNotApplicable);
  EXPECT_NE(find("commitment", "p5.48xlarge us-east-1").why.find("rightsize moves"),
            std::string::npos);
  for (const auto& x : res_.levers)
    EXPECT_FALSE(x.id == "rightsize" && x.subject != "i-eval0") << x.subject;
  // It is tagged environment=dev and past its TTL: `ledger check`'s finding counts in the
  // rightsize.
  const auto& ttl =
      find("waste-expired-dev-resource", "arn:aws:ec2:us-east-1:111122223333:instance/i-eval0");
  EXPECT_EQ(ttl.status, LeverStatus::kNoSaving);
  EXPECT_EQ(ttl.why, "counted in rightsize i-eval0 (one resource, one saving)");
}

TEST_P(ExampleFleet, RightsizeKeepsTheCapacityBufferOfTheGuardrails) {
  // A 50 % buffer leaves one H100 0.5 of work, below the planted peak (at least the hours' mean,
  // 8 x 0.08 = 0.64): the next cheapest that carries it is a p4d.24xlarge (8 A100s of 0.3153 H100
  // each, x 0.5 = 1.26 >= 0.8).
  LedgerOptions o;
  o.as_of = kAsOf;
  o.guardrails.capacity_buffer = 0.5;
  auto r = optimize_ledger(store(), testing::builtin_catalog(), o);
  ASSERT_TRUE(r) << r.error().what();
  int found = 0;
  for (const auto& l : r->levers) {
    if (l.id != "rightsize") continue;
    ++found;
    EXPECT_NEAR(*l.saving_usd, (55.04 - 21.957642) * 730, 0.01);
  }
  EXPECT_EQ(found, 1);
}

TEST_P(ExampleFleet, RedLinesRejectLeversRiskierThanAllowed) {
  // max_risk low: the commitment (medium, a year paid) and i-dev1's schedule (medium, a night job
  // inside the stop) are rejected with the line they cross; the other schedules stay accepted.
  LedgerOptions o;
  o.as_of = kAsOf;
  o.guardrails.max_risk = RiskLevel::kLow;
  auto r = optimize_ledger(store(), testing::builtin_catalog(), o);
  ASSERT_TRUE(r) << r.error().what();
  std::map<std::string, LeverResult> by;
  for (const auto& l : r->levers) by[l.id + " " + l.subject] = l;
  EXPECT_EQ(by["commitment p4d.24xlarge us-east-1"].status, LeverStatus::kRejected);
  EXPECT_EQ(by["commitment p4d.24xlarge us-east-1"].red_line.why,
            "risk medium above the allowed low");
  EXPECT_EQ(by["idle-schedule i-dev1"].status, LeverStatus::kRejected);
  EXPECT_EQ(by["idle-schedule i-dev0"].status, LeverStatus::kAccepted);
  EXPECT_NEAR(r->combined.saving_usd,
              *by["idle-schedule i-dev0"].saving_usd + *by["idle-schedule i-dev2"].saving_usd,
              1e-6);
}

INSTANTIATE_TEST_SUITE_P(Backends, ExampleFleet, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

// On the governance example (examples/governance), every waste finding `ledger check` prices and
// no other finding covers is a lever with that saving, from a 30-day month to one of 730 h.
class ExampleLab : public aicost::testing::BackendTest {};

TEST_P(ExampleLab, WasteFindingsBecomeLeversWithTheirSaving) {
  const std::string dir = std::string(AICOST_SOURCE_DIR) + "/examples/governance/";
  for (const char* f : {"focus-ai-lab-2025-05-06.csv", "dcgm-ai-lab-2025-06-26.prom"}) {
    auto r = billing::ingest_file(store(), dir + f, {});
    ASSERT_TRUE(r) << r.error().what();
  }
  const ledger::Day as_of = ledger::days_from_civil(2025, 6, 28);
  auto findings = governance::find_waste(store(), {}, as_of, {});
  ASSERT_TRUE(findings) << findings.error().what();
  LedgerOptions o;
  o.as_of = as_of;
  auto res = optimize_ledger(store(), testing::builtin_catalog(), o);
  ASSERT_TRUE(res) << res.error().what();
  int priced = 0;
  for (const auto& f : *findings) {
    if (f.monthly_saving <= 0 || !f.covered_by.empty()) continue;
    std::string id = std::string("waste-") + governance::waste_kind_name(f.kind);
    std::replace(id.begin(), id.end(), '_', '-');
    const auto it = std::find_if(res->levers.begin(), res->levers.end(), [&](const LeverResult& l) {
      return l.id == id && l.subject == f.subject;
    });
    ASSERT_NE(it, res->levers.end()) << id << " " << f.subject;
    EXPECT_NEAR(*it->saving_usd, f.monthly_saving * 730 / 720, 1e-6) << id << " " << f.subject;
    ++priced;
  }
  EXPECT_GE(
      priced,
      5);  // idle GPUs, expired dev boxes, storage growth, logs, duplicates, commitment, fleet
}

INSTANTIATE_TEST_SUITE_P(Backends, ExampleLab, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost::optimize
