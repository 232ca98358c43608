// find_waste on both stores folds resource by resource as the store hands out its groups
// (waste_resources.h): its findings are those of every resource materialised first, as the
// detectors were fed before (waste_scan_reference.cc), on a ledger with the cases that order
// matters for: resources in two currencies, ids with several names, a resource without an id whose
// name is another's id, storage days just outside the resource window, ties in cost, GPUs on dev
// boxes.
#include "aicost/governance/waste_scan.h"

#include <gtest/gtest.h>

#include <set>

#include "store/backends.h"
#include "waste_scan_reference.h"

namespace aicost::governance {
namespace {

using reference::materialised_waste;

constexpr std::int64_t kUnit = 1'000'000'000;
const ledger::Day kAsOf = ledger::days_from_civil(2024, 10, 1);

// The ledger.

class WasteScan : public aicost::testing::BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_TRUE(
        store().begin_source({"/generated/waste.csv", std::string(64, '8'), 0, "focus-1.2"}, {}));
    std::vector<ledger::Charge> rows;
    const ledger::Day aug30 = ledger::days_from_civil(2024, 8, 30);
    auto charge = [&](const std::string& id, const std::string& name, int day,
                      double cost) -> ledger::Charge& {
      ledger::Charge& c = rows.emplace_back();
      c.line = static_cast<std::int64_t>(rows.size() + 1);
      c.period_start = (static_cast<ledger::UnixSeconds>(aug30) + day) * 86400;
      c.period_end = c.period_start + 86400;
      c.currency = "USD";
      c.resource_id = id;
      c.resource_name = name;
      c.charge_category = "Usage";
      c.billed = c.effective = c.list = static_cast<std::int64_t>(cost * kUnit);
      return c;
    };
    struct Kind {
      const char *service, *category, *unit;
    };
    static const Kind kKinds[] = {{"Amazon EC2", "Compute", "Hours"},
                                  {"Amazon S3", "Storage", "GB-Month"},
                                  {"CloudWatch Logs", "Management and Governance", "GB-Month"},
                                  {"Amazon SageMaker", "AI and Machine Learning", "Hours"}};
    for (int k = 0; k < 160; ++k) {
      const Kind& kind = kKinds[k % 4];
      const bool daily = k % 4 == 1 || k % 4 == 2;
      const std::string id = "res-" + std::to_string(k);
      for (int day = 0; day < 32; ++day) {
        // Storage and logs bill every day (Aug 30 and 31 only in the storage window); others on
        // a few days, dev resources early and late (past their TTL, still charging).
        if (!daily && (day * 7 + k) % 9 != 0 && !(k % 5 == 0 && (day == 3 || day == 31))) continue;
        const std::string name = k % 12 == 0  ? (day % 2 ? "alt-" : "name-") + std::to_string(k)
                                 : k % 6 == 0 ? "name-" + id
                                              : "";
        // Growing storage (a tenth of its cost a day for odd k), logs that only grow, ties
        // elsewhere.
        const double cost = k % 4 == 1   ? (k % 2 ? 2 + 0.2 * day : 3)
                            : k % 4 == 2 ? 0.03 * (1 + 0.1 * day)
                                         : 1 + k % 3;
        ledger::Charge& c = charge(id, name, day, cost);
        c.service_name = kind.service;
        c.service_category = kind.category;
        c.consumed_unit = kind.unit;
        if (k % 4 == 2) c.consumed_quantity = 1 + 0.1 * day;
        if (k % 25 == 7 && day % 2) c.currency = "EUR";
        if (k % 10 == 3) {
          c.commitment_discount_id = "cd-" + std::to_string(k % 2);
          c.commitment_discount_status = day % 3 ? "Used" : "Unused";
        }
        if (k % 13 == 4) c.charge_category = "Credit";
        if (k % 3) c.tags.push_back({"team", k % 2 ? "ads" : "search"});
        if (k % 5 == 0) c.tags.push_back({"env", "dev"});
        if (k % 4 == 1 && k % 3 == 1) c.tags.push_back({"dataset", "ds-" + std::to_string(k % 7)});
      }
    }
    // Without an id: one named as another resource's id (the same resource), one alone.
    for (int day = 2; day < 32; day += 5) {
      ledger::Charge& c = charge("", "res-5", day, 4);
      c.service_name = "Amazon S3";
      c.service_category = "Storage";
      c.consumed_unit = "GB-Month";
      // And a copy with an id that costs the same: the two copies' order is the store's.
      for (const char* id : {"", "bucket-copy"}) {
        ledger::Charge& copy = charge(id, *id ? "" : "lonely-bucket", day, 26.5);
        copy.service_name = "Amazon S3";
        copy.service_category = "Storage";
        copy.tags.push_back({"dataset", "ds-lonely"});
      }
    }
    // GPU hosts: a fleet of four serving replicas, and a dev box.
    for (int k = 0; k < 5; ++k)
      for (int day = 1; day < 32; day += 3) {
        ledger::Charge& c = charge("arn:aws:ec2:us-east-1:1:instance/i-gpu" + std::to_string(k),
                                   "host-" + std::to_string(k), day, 30 + k);
        c.service_name = "Amazon EC2";
        c.service_category = "Compute";
        c.gpu_hours = 8;
        if (k < 4)
          c.tags.push_back({"service", "inference"});
        else
          c.tags.push_back({"env", "dev"});
      }
    ASSERT_TRUE(store().add_charges(rows));
    ASSERT_TRUE(store().commit_source("focus-1.2", 0));
    // A week of hourly SM_ACTIVE: host-1 and the dev box idle, the others lightly busy.
    ASSERT_TRUE(store().begin_source(
        {"/generated/dcgm.prom", std::string(64, '9'), 0, "dcgm-prometheus"}, {}));
    std::vector<ledger::GpuSample> samples;
    for (int k = 0; k < 5; ++k)
      for (int hour = 0; hour < 7 * 24; ++hour) {
        ledger::GpuSample s;
        s.line = static_cast<std::int64_t>(samples.size() + 1);
        s.time = (static_cast<ledger::UnixSeconds>(kAsOf) - 7) * 86400 + hour * 3600;
        s.metric = ledger::GpuMetric::kSmActive;
        s.value = k == 1 || k == 4 ? 0.01 : 0.2 + 0.01 * (hour % 5);
        s.host = "host-" + std::to_string(k);
        s.gpu = "0";
        samples.push_back(s);
      }
    ASSERT_TRUE(store().add_samples(samples));
    ASSERT_TRUE(store().commit_source("dcgm-prometheus", 0));
  }
};

TEST_P(WasteScan, ResourceByResourceFindsWhatEveryResourceAtOnceFinds) {
  WasteOptions o;
  o.ttl.ttl_days = 14;
  auto got = find_waste(store(), o, kAsOf, {});
  ASSERT_TRUE(got) << got.error().what();
  const auto want = materialised_waste(store(), o, kAsOf);
  std::set<std::string> kinds;
  for (const auto& f : want) kinds.insert(waste_kind_name(f.kind));
  // The ledger reaches every detector that reads resources.
  EXPECT_EQ(kinds, (std::set<std::string>{"idle_gpu", "expired_dev_resource", "untagged_spend",
                                          "storage_growth", "log_retention", "duplicate_storage",
                                          "unused_commitment", "low_utilisation_fleet"}));
  ASSERT_EQ(got->size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("finding " + std::to_string(i) + ": " + want[i].message);
    EXPECT_EQ((*got)[i].kind, want[i].kind);
    EXPECT_EQ((*got)[i].subject, want[i].subject);
    EXPECT_EQ((*got)[i].currency, want[i].currency);
    EXPECT_EQ((*got)[i].monthly_saving, want[i].monthly_saving);  // the same sums in the same order
    EXPECT_EQ((*got)[i].message, want[i].message);
    EXPECT_EQ((*got)[i].evidence, want[i].evidence);
    EXPECT_EQ((*got)[i].covered_by, want[i].covered_by);
  }
}

// `aicost optimize --db` hands the scan the 28 days of telemetry its levers read (with FB_USED):
// the scan keeps the rows of its week's look-back and of the activity metrics, and finds what its
// own read finds. Here the weeks before the look-back differ (host-1 busy, host-0 idle), every
// host has FB_USED rows (read as activity, host-1 would look hung), and host-2's last week comes
// from two sources (summed in the same order by both reads).
TEST_P(WasteScan, TelemetryReadBeforeFindsWhatItsOwnReadFinds) {
  for (int source = 0; source < 2; ++source) {
    ASSERT_TRUE(store().begin_source(
        {"/generated/dcgm-" + std::to_string(source) + ".prom",
         std::string(64, static_cast<char>('a' + source)), 0, "dcgm-prometheus"},
        {}));
    std::vector<ledger::GpuSample> samples;
    for (int k = 0; k < 5; ++k)
      for (int hour = 0; hour < 28 * 24; ++hour) {
        ledger::GpuSample s;
        s.line = static_cast<std::int64_t>(samples.size() + 1);
        s.time = (static_cast<ledger::UnixSeconds>(kAsOf) - 28) * 86400 + hour * 3600 + 60 * source;
        s.host = "host-" + std::to_string(k);
        s.gpu = "0";
        if (source == 0) {
          s.metric = ledger::GpuMetric::kFbUsed;
          s.value = 40e9;
        } else if (hour < 21 * 24) {
          s.metric = ledger::GpuMetric::kSmActive;
          s.value = k == 1 ? 0.9 : k == 0 ? 0.0 : 0.3;
        } else {
          if (k != 2) continue;
          s.metric = ledger::GpuMetric::kSmActive;
          s.value = 0.1 + 0.001 * (hour % 7);
        }
        samples.push_back(s);
      }
    ASSERT_TRUE(store().add_samples(samples));
    ASSERT_TRUE(store().commit_source("dcgm-prometheus", 0));
  }
  WasteOptions o;
  o.ttl.ttl_days = 14;
  const auto hours = store().gpu_hours(kAsOf - 28, kAsOf, true);
  ASSERT_TRUE(hours) << hours.error().what();
  ASSERT_TRUE(std::any_of(hours->begin(), hours->end(), [](const ledger::GpuHour& h) {
    return h.metric == ledger::GpuMetric::kFbUsed;
  }));
  auto shared = find_waste(store(), o, kAsOf, {}, &*hours);
  ASSERT_TRUE(shared) << shared.error().what();
  auto own = find_waste(store(), o, kAsOf, {});
  ASSERT_TRUE(own) << own.error().what();
  // The telemetry reaches findings: the dev box's idle GPU and the fleet's activity.
  for (const auto kind : {WasteKind::kIdleGpu, WasteKind::kLowUtilisationFleet})
    EXPECT_TRUE(std::any_of(own->begin(), own->end(), [kind](const WasteFinding& f) {
      return f.kind == kind;
    })) << waste_kind_name(kind);
  ASSERT_EQ(shared->size(), own->size());
  for (std::size_t i = 0; i < own->size(); ++i) {
    SCOPED_TRACE("finding " + std::to_string(i) + ": " + (*own)[i].message);
    EXPECT_EQ((*shared)[i].kind, (*own)[i].kind);
    EXPECT_EQ((*shared)[i].subject, (*own)[i].subject);
    EXPECT_EQ((*shared)[i].monthly_saving, (*own)[i].monthly_saving);
    EXPECT_EQ((*shared)[i].message, (*own)[i].message);
    EXPECT_EQ((*shared)[i].evidence, (*own)[i].evidence);
    EXPECT_EQ((*shared)[i].covered_by, (*own)[i].covered_by);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, WasteScan, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost::governance
