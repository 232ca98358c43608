// The ledger levers on the example ledgers (docs/OPTIMIZE.md "Ledger"): on
// examples/optimize-ledger, on both store backends, they equal what this test derives from the CSV
// and the prom file itself; on examples/governance, every priced waste finding is a lever. The
// closed forms: ledger_levers_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include "aicost/billing/ingest.h"
#include "aicost/core/text.h"
#include "aicost/governance/waste_scan.h"
#include "aicost/optimize/ledger_levers.h"
#include "optimize_support.h"
#include "store/backends.h"

namespace aicost::optimize {
namespace {

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
