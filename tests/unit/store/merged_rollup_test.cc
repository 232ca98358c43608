// Schema 9 on both backends: the daily rollup merged across sources (charge_daily_merged) holds
// one row per day, rollup dimensions and tag set whatever the sources, with the sums of every
// charge in it. Checked against the charges themselves (grouped here in SQL, not through either
// rollup) after ingests over the same days, a replaced source, a rolled-back ingest and the
// migration of a schema 8 ledger; reports that read it answer what the rows sum to.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "aicost/store/open.h"
#include "backends.h"
#include "query_sql.h"
#include "schema.h"

namespace aicost {
namespace {

using ledger::Charge;

constexpr std::int64_t kUnit = 1'000'000'000;
const ledger::Day kSep1 = ledger::days_from_civil(2024, 9, 1);

// `n` charges over `days` days from `first`: two services, two teams, two currencies, GPU-hours
// and ConsumedQuantity on some, a negative effective cost on some.
std::vector<Charge> charges(int n, int first, int days, int seed) {
  std::vector<Charge> out;
  for (int k = 0; k < n; ++k) {
    Charge c;
    c.line = k + 2;
    const int day = first + (k * 7 + seed) % days;
    c.period_start = (static_cast<ledger::UnixSeconds>(kSep1) + day) * 86400 + k % 24 * 3600;
    c.period_end = c.period_start + 3600;
    c.currency = (k + seed) % 11 == 0 ? "EUR" : "USD";
    c.provider = "p";
    c.service_name = (k + seed) % 2 ? "Inference" : "Compute";
    c.resource_id = "res-" + std::to_string(k % 40);
    c.consumed_unit = k % 3 ? "Hours" : "";
    if (k % 3) c.consumed_quantity = 0.5 + k % 13;
    c.billed = c.list = (k % 5 + seed) * kUnit / 4;
    c.effective = (k % 4) * kUnit / 8 - (k % 17 == 0 ? kUnit : 0);
    if (k % 4 == 0) c.contracted = (k % 3) * kUnit;
    c.gpu_hours = k % 2 ? 0.25 * (1 + k % 3) : 0;
    c.tags = {{"team", (k + seed) % 3 ? "llm" : "ads"}};
    out.push_back(std::move(c));
  }
  return out;
}

// The charges grouped by the merged rollup's key, with their money and row counts, and the merged
// rollup's own rows, both in key order: equal when the merged rollup is what the charges sum to.
std::string grouped_charges() {
  const std::string key = store::merged_key();
  return "SELECT " + key +
         ", SUM(billed), SUM(effective), SUM(list), SUM(COALESCE(contracted, 0)), COUNT(*) FROM "
         "charges GROUP BY " +
         key + " ORDER BY " + key;
}
std::string merged_rows() {
  const std::string key = store::merged_key();
  return "SELECT " + key +
         ", billed, effective, list, contracted, rows FROM charge_daily_merged ORDER BY " + key;
}

class MergedRollupTest : public testing::BackendTest {
 protected:
  std::vector<std::string> sql(const std::string& statement) {
    return testing::rows_of(GetParam(), fresh_.db, statement);
  }
  // The merged rollup is the charges' sums, one row per key, and no key is missing or extra.
  void expect_merged_is_the_charges() {
    const auto want = sql(grouped_charges());
    EXPECT_FALSE(want.empty());
    EXPECT_EQ(sql(merged_rows()), want);
  }
  // Billed cost and GPU-hours by day and team, through the report path (the merged rollup).
  std::map<std::pair<ledger::Day, std::string>, std::pair<std::int64_t, double>> by_team() {
    ledger::AggregateQuery q;
    q.tags = {{"team", {}}};
    q.by_day = true;
    EXPECT_TRUE(store::from_rollup(q));
    auto r = store().aggregate(q);
    EXPECT_TRUE(r) << r.error().what();
    std::map<std::pair<ledger::Day, std::string>, std::pair<std::int64_t, double>> out;
    if (r)
      for (const auto& row : *r) {
        auto& s = out[{row.day, row.values.at(0)}];
        s.first += row.sums.billed;
        s.second += row.sums.gpu_hours;
      }
    return out;
  }
  static std::map<std::pair<ledger::Day, std::string>, std::pair<std::int64_t, double>> expected(
      const std::vector<std::vector<Charge>>& sources) {
    std::map<std::pair<ledger::Day, std::string>, std::pair<std::int64_t, double>> out;
    for (const auto& rows : sources)
      for (const auto& c : rows) {
        auto& s = out[{ledger::day_of(c.period_start), c.tags.at(0).value}];
        s.first += c.billed;
        s.second += c.gpu_hours;
      }
    return out;
  }
  static void expect_same(
      const std::map<std::pair<ledger::Day, std::string>, std::pair<std::int64_t, double>>& got,
      const std::map<std::pair<ledger::Day, std::string>, std::pair<std::int64_t, double>>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (auto g = got.begin(), w = want.begin(); g != got.end(); ++g, ++w) {
      ASSERT_EQ(g->first, w->first);
      EXPECT_EQ(g->second.first, w->second.first);
      EXPECT_NEAR(g->second.second, w->second.second, 1e-9);  // doubles, summed in another order
    }
  }
};

TEST_P(MergedRollupTest, SourcesOverTheSameDaysMergeIntoOneRowPerGroup) {
  const auto a = charges(600, 0, 20, 0);
  const auto id = load("a.csv", a);
  const auto one_source = sql("SELECT COUNT(*) FROM charge_daily");
  load("b.csv", a);  // the same rows again, another file
  expect_merged_is_the_charges();
  // Two sources' rows in charge_daily, one row per group in the merged rollup.
  EXPECT_EQ(sql("SELECT COUNT(*) FROM charge_daily_merged"), one_source);
  EXPECT_EQ(sql("SELECT COUNT(*) FROM charge_daily WHERE source_id = " + std::to_string(id)),
            one_source);
  expect_same(by_team(), expected({a, a}));
}

TEST_P(MergedRollupTest, AReplacedSourceLeavesWhatTheOtherSourcesSumTo) {
  const auto a = charges(600, 0, 20, 0), b = charges(300, 10, 20, 1), c = charges(200, 5, 5, 2);
  const auto id_a = load("a.csv", a);
  load("b.csv", b);  // days 10-29, over a's 10-19
  load("c.csv", c, {id_a});
  expect_merged_is_the_charges();
  expect_same(by_team(), expected({b, c}));
  // Days only `a` had are gone from the merged rollup.
  EXPECT_EQ(
      sql("SELECT COUNT(*) FROM charge_daily_merged WHERE day < " + std::to_string(kSep1 + 5)),
      std::vector<std::string>{"0"});
}

// The merge is part of the ingest's transaction: an ingest that does not commit (a failure, or a
// process killed: restate_test kills one halfway) changes nothing, the replaced source included.
TEST_P(MergedRollupTest, AnIngestRolledBackLeavesTheMergedRollupAsItWas) {
  const auto a = charges(600, 0, 20, 0);
  const auto id_a = load("a.csv", a);
  load("b.csv", charges(100, 3, 4, 3));
  const auto before = sql(merged_rows());
  auto begun = store().begin_source(
      {"/generated/c.csv", std::string(63, 'm') + "c.csv", 1, "focus-1.2"}, {id_a});
  ASSERT_TRUE(begun) << begun.error().what();
  ASSERT_TRUE(store().add_charges(charges(50, 0, 30, 4)));
  store().rollback();
  EXPECT_EQ(sql(merged_rows()), before);
  expect_merged_is_the_charges();
}

TEST_P(MergedRollupTest, ASchemaEightLedgerHasItsRollupMergedByTheMigration) {
  const auto a = charges(600, 0, 20, 0), b = charges(300, 10, 20, 1);
  load("a.csv", a);
  load("b.csv", b);
  fresh_.store.reset();
  testing::exec(
      GetParam(), fresh_.db,
      std::string(testing::kUndoSchema9) + "DELETE FROM schema_migrations WHERE version >= 9");
  auto s = store::open_store(fresh_.db);
  ASSERT_TRUE(s) << s.error().what();
  fresh_.store = std::move(*s);
  EXPECT_EQ(store().schema_version(), 11);
  expect_merged_is_the_charges();
  expect_same(by_team(), expected({a, b}));
  // And it is kept from there on.
  load("c.csv", charges(100, 0, 30, 2));
  expect_merged_is_the_charges();
}

INSTANTIATE_TEST_SUITE_P(Backends, MergedRollupTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost
