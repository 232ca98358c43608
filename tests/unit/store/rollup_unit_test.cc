// Schema 8 on both backends: the daily rollup keeps the consumed unit and the sum of
// ConsumedQuantity, so a query by consumed unit reads the rollup and answers what the charges sum
// to (computed here from the rows themselves); a ledger of schema 7 has its rollup rebuilt by the
// migration, with the same answers; a query of the GPU rows of some days gives the same rows
// whether there are none, a few (SQLite reads them through `charges_gpu_day`) or many (in order).
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "aicost/store/open.h"
#include "backends.h"
#include "query_sql.h"

namespace aicost {
namespace {

using ledger::Charge;
using ledger::Dimension;

constexpr std::int64_t kUnit = 1'000'000'000;
const ledger::Day kSep1 = ledger::days_from_civil(2024, 9, 1);

// 1,200 charges over 30 days: three consumed units (one with no quantity), two teams, two
// currencies. Days 0-9: every row has GPU-hours; days 10-29: only one row, on day 20.
std::vector<Charge> charges() {
  static const char* kUnits[] = {"1M tokens", "Hours", ""};
  std::vector<Charge> out;
  for (int n = 0; n < 1200; ++n) {
    Charge c;
    c.line = n + 2;
    const int day = n * 7 % 30;
    c.period_start = (static_cast<ledger::UnixSeconds>(kSep1) + day) * 86400 + n % 24 * 3600;
    c.period_end = c.period_start + 3600;
    c.currency = n % 11 == 0 ? "EUR" : "USD";
    c.provider = "p";
    c.service_name = n % 2 ? "Inference" : "Compute";
    c.resource_id = "res-" + std::to_string(n % 40);
    c.resource_name = "host-" + std::to_string(n % 40);
    c.consumed_unit = kUnits[n % 3];
    if (n % 3 != 2) c.consumed_quantity = 0.5 + n % 13;
    c.billed = c.list = (n % 5) * kUnit / 4;
    c.effective = (n % 4) * kUnit / 8 - (n % 17 == 0 ? kUnit : 0);
    if (day < 10 || n == 20 * 13) c.gpu_hours = 0.25 * (1 + n % 3);
    c.tags = {{"team", n % 2 ? "llm" : "ads"}};
    out.push_back(std::move(c));
  }
  return out;
}

// Sums keyed by (day, unit, team, currency) or (resource, name, day, currency), as a query's rows.
using Key = std::tuple<ledger::Day, std::string, std::string, std::string>;
std::map<Key, ledger::Sums> by_key(const std::vector<ledger::AggregateRow>& rows) {
  std::map<Key, ledger::Sums> out;
  for (const auto& r : rows) {
    auto& s = out[{r.day, r.values.at(0), r.values.at(1), r.currency}];
    s.billed += r.sums.billed;
    s.effective += r.sums.effective;
    s.gpu_hours += r.sums.gpu_hours;
    s.consumed_quantity += r.sums.consumed_quantity;
    s.rows += r.sums.rows;
  }
  return out;
}

void expect_same(const std::map<Key, ledger::Sums>& got, const std::map<Key, ledger::Sums>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (auto g = got.begin(), w = want.begin(); g != got.end(); ++g, ++w) {
    ASSERT_EQ(g->first, w->first);
    EXPECT_EQ(g->second.billed, w->second.billed);
    EXPECT_EQ(g->second.effective, w->second.effective);
    EXPECT_EQ(g->second.rows, w->second.rows);
    // Doubles summed in another order: equal to rounding.
    EXPECT_NEAR(g->second.gpu_hours, w->second.gpu_hours, 1e-9);
    EXPECT_NEAR(g->second.consumed_quantity, w->second.consumed_quantity, 1e-9);
  }
}

// The answer of the journal's by-unit query computed from the rows: by day, unit, team, currency.
std::map<Key, ledger::Sums> expected_by_unit(const std::vector<Charge>& rows) {
  std::map<Key, ledger::Sums> out;
  for (const auto& c : rows) {
    auto& s =
        out[{ledger::day_of(c.period_start), c.consumed_unit, c.tags.at(0).value, c.currency}];
    s.billed += c.billed;
    s.effective += c.effective;
    s.gpu_hours += c.gpu_hours;
    s.consumed_quantity += c.consumed_quantity.value_or(0);
    s.rows += 1;
  }
  return out;
}

// The GPU rows of days [from, to) from the rows: by resource, name, day, currency.
std::map<Key, ledger::Sums> expected_gpu(const std::vector<Charge>& rows, ledger::Day from,
                                         ledger::Day to) {
  std::map<Key, ledger::Sums> out;
  for (const auto& c : rows) {
    const auto day = ledger::day_of(c.period_start);
    if (c.gpu_hours <= 0 || day < from || day >= to) continue;
    auto& s = out[{day, c.resource_id, c.resource_name, c.currency}];
    s.billed += c.billed;
    s.effective += c.effective;
    s.gpu_hours += c.gpu_hours;
    s.consumed_quantity += c.consumed_quantity.value_or(0);
    s.rows += 1;
  }
  return out;
}

ledger::AggregateQuery by_unit_query() {
  ledger::AggregateQuery q;
  q.dims = {Dimension::kConsumedUnit};
  q.tags = {{"team", {}}};
  q.by_day = true;
  return q;
}

class RollupUnitTest : public testing::BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    rows_ = charges();
    ASSERT_TRUE(store().begin_source(
        {"/generated/rollup-unit.csv", std::string(64, '8'), 0, "focus-1.2"}, {}));
    ASSERT_TRUE(store().add_charges(rows_));
    ASSERT_TRUE(store().commit_source("focus-1.2", 0));
  }
  std::map<Key, ledger::Sums> by_unit() {
    auto r = store().aggregate(by_unit_query());
    EXPECT_TRUE(r) << r.error().what();
    return r ? by_key(*r) : std::map<Key, ledger::Sums>{};
  }
  std::vector<Charge> rows_;
};

TEST_P(RollupUnitTest, AQueryByConsumedUnitReadsTheRollupAndSumsWhatTheChargesSumTo) {
  EXPECT_TRUE(store::from_rollup(by_unit_query()));
  expect_same(by_unit(), expected_by_unit(rows_));
  // The same query read from the charges (a filter the rollup cannot answer, that every row meets).
  auto raw = by_unit_query();
  raw.filters = {{{Dimension::kCommitment, {}}, ""}};
  ASSERT_FALSE(store::from_rollup(raw));
  auto r = store().aggregate(raw);
  ASSERT_TRUE(r) << r.error().what();
  expect_same(by_key(*r), expected_by_unit(rows_));
}

// A ledger of schema 7 (its rollup without the unit) opens at 8 with the rollup rebuilt.
TEST_P(RollupUnitTest, ASchemaSevenLedgerHasItsRollupRebuiltByTheMigration) {
  fresh_.store.reset();
  testing::exec(GetParam(), fresh_.db,
                std::string(testing::kUndoSchema8) +
                    "DELETE FROM charge_daily; DELETE FROM schema_migrations WHERE version >= 8");
  ASSERT_NO_FATAL_FAILURE(reopen());
  EXPECT_EQ(store().schema_version(), 11);
  expect_same(by_unit(), expected_by_unit(rows_));
  const auto totals = testing::ledger_totals(store());
  ASSERT_EQ(totals.size(), 2u);
  std::int64_t rows = 0;
  for (const auto& [currency, s] : totals) rows += s.rows;
  EXPECT_EQ(rows, 1200);
}

TEST_P(RollupUnitTest, TheGpuRowsOfSomeDaysAreTheSameWhetherNoneFewOrMany) {
  // Days 0-9: a third of all rows (SQLite reads the charges in order); 15-25: one row (through
  // the index); 25-30: none.
  for (auto [from, to] :
       {std::pair{0, 10}, std::pair{15, 25}, std::pair{25, 30}, std::pair{0, 30}}) {
    ledger::AggregateQuery q;
    q.dims = {Dimension::kResource, Dimension::kResourceName};
    q.by_day = true;
    q.gpu_rows_only = true;
    q.from = kSep1 + from;
    q.to = kSep1 + to;
    auto r = store().aggregate(q);
    ASSERT_TRUE(r) << r.error().what();
    const auto want = expected_gpu(rows_, *q.from, *q.to);
    EXPECT_EQ(want.empty(), from == 25) << from;
    EXPECT_EQ(want.size() == 1, from == 15) << from;
    expect_same(by_key(*r), want);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, RollupUnitTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost
