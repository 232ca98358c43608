// Schema 11 on both backends: the resource-day rollup (charge_resource_daily). A source whose
// charges fold (billed hourly: 24 charges per resource and day) writes it and is marked; one that
// does not (each resource a charge or two a day) writes nothing. A query by resource reads it for
// the marked sources and the charges for the others, and answers what the charges alone do: the
// waste scan's two queries (resources over a window, storage by day) compared with the same
// ledger read raw (its sources unmarked) and with sums made here; a ledger of mostly raw sources is
// read raw. A replaced source, a rolled-back ingest and the migration of a schema 10 ledger (its
// sources raw-only) keep it exact.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "aicost/ledger/rollup.h"
#include "aicost/store/open.h"
#include "backends.h"

namespace aicost {
namespace {

using ledger::Charge;
using ledger::Dimension;

constexpr std::int64_t kUnit = 1'000'000'000;
const ledger::Day kSep1 = ledger::days_from_civil(2024, 9, 1);

// Resource r of source `seed`: its service, category, currency and tags vary with r.
Charge resource_charge(int seed, int r) {
  Charge c;
  c.provider = "aws";
  c.resource_id = "arn:res-" + std::to_string(seed) + "-" + std::to_string(r);
  c.resource_name = "name-" + std::to_string(r % 4);
  c.service_name = r % 3 == 0 ? "Amazon S3" : "Amazon EC2";
  c.service_category = r % 3 == 0 ? "Storage" : "Compute";
  c.resource_type = r % 3 == 0 ? "bucket" : "p5.48xlarge";
  c.region_id = r % 2 ? "us-east-1" : "eu-west-1";
  c.charge_category = "Usage";
  c.currency = r % 4 == 1 ? "EUR" : "USD";
  if (r % 5 != 4) c.tags.push_back({"team", r % 2 ? "llm" : "ads"});
  if (r % 3 == 1) c.tags.push_back({"env", "dev"});
  return c;
}

// Each of `resources` resources billed every hour of `days` days from Sep 1 + `first`: billed
// (r + 1 + h % 3) / 100 units, effective a tenth less, contracted on odd hours; 0.5 GPU-hours and
// 2 consumed units an hour off storage (binary fractions: their sums are exact in any order).
std::vector<Charge> hourly(int seed, int resources, int first, int days) {
  std::vector<Charge> out;
  for (int r = 0; r < resources; ++r)
    for (int d = first; d < first + days; ++d)
      for (int h = 0; h < 24; ++h) {
        Charge c = resource_charge(seed, r);
        c.line = static_cast<std::int64_t>(out.size()) + 2;
        c.period_start = (static_cast<ledger::UnixSeconds>(kSep1) + d) * 86400 + h * 3600;
        c.period_end = c.period_start + 3600;
        c.billed = c.list = (r + 1 + h % 3) * kUnit / 100;
        c.effective = c.billed - c.billed / 10;
        if (h % 2) c.contracted = c.billed + kUnit / 1000;
        if (c.service_category == "Compute") c.gpu_hours = 0.5;
        c.consumed_quantity = 2.0;
        out.push_back(std::move(c));
      }
  return out;
}

// `n` charges, resource k % 40 at hour 7 × k of the days: about one per resource and day.
std::vector<Charge> sparse(int seed, int n) {
  std::vector<Charge> out;
  for (int k = 0; k < n; ++k) {
    Charge c = resource_charge(seed, k % 40);
    c.line = k + 2;
    c.period_start = static_cast<ledger::UnixSeconds>(kSep1) * 86400 + (7 * k % (30 * 24)) * 3600;
    c.period_end = c.period_start + 3600;
    c.billed = c.list = c.effective = (k + 1) * kUnit / 7;
    if (c.service_category == "Compute") c.gpu_hours = 1.0;
    out.push_back(std::move(c));
  }
  return out;
}

// The waste scan's two queries (governance/waste_scan.cc): every resource's totals over days 2..20
// by its dimensions and three tag keys; storage resources by day.
std::vector<ledger::AggregateQuery> waste_queries() {
  ledger::AggregateQuery q;
  q.dims = {Dimension::kResource,        Dimension::kResourceName,   Dimension::kService,
            Dimension::kServiceCategory, Dimension::kResourceType,   Dimension::kRegion,
            Dimension::kConsumedUnit,    Dimension::kChargeCategory, Dimension::kCommitment,
            Dimension::kCommitmentStatus};
  for (const char* k : {"env", "team", "owner"}) q.tags.push_back({k, {}});
  q.from = kSep1 + 2;
  q.to = kSep1 + 20;
  ledger::AggregateQuery d;
  d.dims = {Dimension::kResource, Dimension::kResourceName};
  d.by_day = true;
  d.from = kSep1;
  d.to = kSep1 + 25;
  ledger::Filter f;
  f.key.dim = Dimension::kServiceCategory;
  f.value = "Storage";
  d.filters.push_back(f);
  return {q, d};
}

// A row as text: day, values, currency, every sum, first and last day.
std::string text(const ledger::AggregateRow& r) {
  std::string out = std::to_string(r.day);
  for (const auto& v : r.values) out += "|" + v;
  const auto& s = r.sums;
  out += "|" + r.currency + "|" + std::to_string(static_cast<std::int64_t>(s.billed)) + "|" +
         std::to_string(static_cast<std::int64_t>(s.effective)) + "|" +
         std::to_string(static_cast<std::int64_t>(s.list)) + "|" +
         std::to_string(static_cast<std::int64_t>(s.contracted)) + "|" +
         std::to_string(s.gpu_hours) + "|" + std::to_string(s.rows) + "|" +
         std::to_string(s.consumed_quantity) + "|" + std::to_string(s.first_day) + "|" +
         std::to_string(s.last_day);
  return out;
}

class ResourceRollupTest : public testing::BackendTest {
 protected:
  // "id|resource_rollup|its rows in charge_resource_daily|the charges they sum", by id.
  std::vector<std::string> marks() {
    return testing::rows_of(
        GetParam(), fresh_.db,
        "SELECT s.id, s.resource_rollup, COUNT(r.day), COALESCE(SUM(r.rows), 0) FROM sources s "
        "LEFT JOIN charge_resource_daily r ON r.source_id = s.id GROUP BY s.id, s.resource_rollup "
        "ORDER BY s.id");
  }
  // The waste scan's queries as aggregate_into answers them together, and each alone.
  std::vector<std::vector<std::string>> answers() {
    const auto queries = waste_queries();
    std::vector<std::vector<std::string>> out(queries.size() * 2);
    auto s = store().aggregate_into(queries, [&](std::size_t i, ledger::AggregateRow& row) {
      out[i].push_back(text(row));
      return core::Status{};
    });
    EXPECT_TRUE(s) << s.error().what();
    for (std::size_t i = 0; i < queries.size(); ++i) {
      auto rows = store().aggregate(queries[i]);
      EXPECT_TRUE(rows) << rows.error().what();
      if (rows)
        for (const auto& r : *rows) out[queries.size() + i].push_back(text(r));
    }
    return out;
  }
  // The same ledger read from its charges alone: every source unmarked for the read.
  std::vector<std::vector<std::string>> raw_answers() {
    const auto marked =
        testing::rows_of(GetParam(), fresh_.db, "SELECT id FROM sources WHERE resource_rollup = 1");
    testing::exec(GetParam(), fresh_.db, "UPDATE sources SET resource_rollup = 0");
    auto out = answers();
    for (const auto& id : marked)
      testing::exec(GetParam(), fresh_.db,
                    "UPDATE sources SET resource_rollup = 1 WHERE id = " + id);
    return out;
  }
};

TEST_P(ResourceRollupTest, AnHourlySourceWritesItAndASparseOneDoesNot) {
  const auto a = load("hourly.csv", hourly(1, 6, 0, 5));  // 720 charges in 30 groups
  const auto b = load("sparse.csv", sparse(2, 200));      // about one charge a group
  EXPECT_EQ(marks(), (std::vector<std::string>{std::to_string(a) + "|1|30|720",
                                               std::to_string(b) + "|0|0|0"}));
}

TEST_P(ResourceRollupTest, TheWasteScansQueriesReadTheSameAsFromTheCharges) {
  load("hourly-a.csv", hourly(1, 9, 0, 12));
  load("sparse.csv", sparse(2, 500));
  load("hourly-b.csv", hourly(3, 7, 5, 20));
  const auto got = answers(), raw = raw_answers();
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got, raw);
  EXPECT_EQ(got[0], got[2]);  // together and alone
  EXPECT_EQ(got[1], got[3]);
  EXPECT_FALSE(got[0].empty());
  EXPECT_FALSE(got[1].empty());
  // Summed here: resource 0 of hourly-a (storage, USD, tagged team=ads) over its days in the
  // window, 2..11, is 10 days x 8 x (1 + 2 + 3) / 100 units billed, 240 charges.
  const std::string res0 =
      "arn:res-1-0|name-0|Amazon S3|Storage|bucket|eu-west-1||Usage||||ads||USD";
  bool found = false;
  for (const auto& row : got[0])
    if (row.rfind("0|" + res0 + "|", 0) == 0) {
      found = true;
      EXPECT_NE(row.find("|USD|" + std::to_string(10 * 8 * 6 * kUnit / 100) + "|"),
                std::string::npos)
          << row;
      EXPECT_NE(row.find("|240|"), std::string::npos) << row;
    }
  EXPECT_TRUE(found);
  // The answers come from the rollup: a cent more in its rows shows.
  testing::exec(GetParam(), fresh_.db,
                "UPDATE charge_resource_daily SET billed = billed + 10000000");
  EXPECT_NE(answers(), raw);
}

TEST_P(ResourceRollupTest, AReplacedSourceAndARolledBackIngestLeaveItExact) {
  const auto a = load("a.csv", hourly(1, 4, 0, 6));
  const auto b = load("b.csv", hourly(2, 3, 2, 6));
  const auto c = load("c.csv", hourly(4, 5, 1, 3), {a});  // replaces a: its rows go
  EXPECT_EQ(marks(), (std::vector<std::string>{std::to_string(b) + "|1|18|432",
                                               std::to_string(c) + "|1|15|360"}));
  auto begun = store().begin_source(
      {"/generated/d.csv", std::string(60, 'r') + "d.csv", 1, "focus-1.2"}, {b});
  ASSERT_TRUE(begun) << begun.error().what();
  ASSERT_TRUE(store().add_charges(hourly(5, 2, 0, 2)));
  store().rollback();
  EXPECT_EQ(marks(), (std::vector<std::string>{std::to_string(b) + "|1|18|432",
                                               std::to_string(c) + "|1|15|360"}));
  EXPECT_EQ(answers(), raw_answers());
}

TEST_P(ResourceRollupTest, ASchemaTenLedgerMigratesWithItsSourcesRawOnly) {
  load("a.csv", hourly(1, 4, 0, 6));
  const auto before = raw_answers();
  fresh_.store.reset();
  testing::exec(
      GetParam(), fresh_.db,
      std::string(testing::kUndoSchema11) + "DELETE FROM schema_migrations WHERE version >= 11");
  ASSERT_NO_FATAL_FAILURE(reopen());
  EXPECT_EQ(store().schema_version(), 11);
  EXPECT_EQ(testing::rows_of(GetParam(), fresh_.db,
                             "SELECT resource_rollup, (SELECT COUNT(*) FROM charge_resource_daily) "
                             "FROM sources"),
            (std::vector<std::string>{"0|0"}));
  EXPECT_EQ(answers(), before);
  const auto b = load("b.csv", hourly(2, 3, 2, 6));  // a load after the migration has it
  EXPECT_EQ(marks().back(), std::to_string(b) + "|1|18|432");
  EXPECT_EQ(answers(), raw_answers());
}

// A UNION ALL of the rollup and the other sources' charges costs SQLite more per row than its plain
// scan: where the marked sources hold half the rows or less, everything is read raw (a cent more
// in the rollup's rows does not show), and once they hold most, the rollup is read.
TEST_P(ResourceRollupTest, ALedgerOfMostlyRawSourcesIsReadRaw) {
  load("sparse.csv", sparse(2, 800));
  load("hourly.csv", hourly(1, 2, 0, 10));  // 480 charges
  const auto raw = raw_answers();
  testing::exec(GetParam(), fresh_.db,
                "UPDATE charge_resource_daily SET billed = billed + 10000000");
  EXPECT_EQ(answers(), raw);
  load("hourly-b.csv", hourly(3, 2, 0, 10));  // 960 of 1,760 charges marked
  const auto more = raw_answers();
  EXPECT_NE(answers(), more);
}

INSTANTIATE_TEST_SUITE_P(Backends, ResourceRollupTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost
