// Schema 10 on both backends: each source's totals per currency (source_totals), what `aicost
// ledger sources` lists, kept by the load that writes the source and by whatever takes rows from
// it, so that listing the sources reads them and not the source's rollup. Checked against the
// source's charges summed in SQL after loads, a replacement, a rolled-back ingest and the migration
// of a schema 9 ledger, and against sums made here (an OpenShift restatement, which takes some of
// a source's rows: ocp_restate_test).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aicost/store/open.h"
#include "backends.h"

namespace aicost {
namespace {

using ledger::Charge;

constexpr std::int64_t kUnit = 1'000'000'000;
const ledger::Day kSep1 = ledger::days_from_civil(2024, 9, 1);

// `n` charges over `days` days: every third in EUR, the rest USD; billed k/4 units, effective
// k/8 units less one on every fifth.
std::vector<Charge> charges(int n, int days, int seed) {
  std::vector<Charge> out;
  for (int k = 0; k < n; ++k) {
    Charge c;
    c.line = k + 2;
    c.period_start = (static_cast<ledger::UnixSeconds>(kSep1) + (k + seed) % days) * 86400;
    c.period_end = c.period_start + 3600;
    c.currency = (k + seed) % 3 == 0 ? "EUR" : "USD";
    c.provider = "p";
    c.service_name = k % 2 ? "Inference" : "Compute";
    c.resource_id = "res-" + std::to_string(k % 7);
    c.billed = c.list = k * kUnit / 4;
    c.effective = k * kUnit / 8 - (k % 5 == 0 ? kUnit : 0);
    c.tags = {{"team", k % 2 ? "llm" : "ads"}};
    out.push_back(std::move(c));
  }
  return out;
}

// "id|EUR|billed|effective" then USD's, summed here from the rows.
std::vector<std::string> expected(std::int64_t id, const std::vector<Charge>& rows) {
  std::vector<std::string> out;
  for (const char* currency : {"EUR", "USD"}) {
    std::int64_t billed = 0, effective = 0;
    for (const auto& c : rows)
      if (c.currency == currency) billed += c.billed, effective += c.effective;
    out.push_back(std::to_string(id) + "|" + currency + "|" + std::to_string(billed) + "|" +
                  std::to_string(effective));
  }
  return out;
}

class SourceTotalsTest : public testing::BackendTest {
 protected:
  void expect_totals_are_the_charges() {
    const auto want = testing::charged_source_totals(GetParam(), fresh_.db);
    EXPECT_FALSE(want.empty());
    EXPECT_EQ(testing::listed_source_totals(store()), want);
  }
};

TEST_P(SourceTotalsTest, LoadsAReplacementAndARolledBackIngestKeepThem) {
  const auto a = charges(300, 20, 0), b = charges(200, 30, 1), c = charges(100, 5, 2);
  const auto id_a = load("a.csv", a);
  const auto id_b = load("b.csv", b);
  auto both = expected(id_a, a);
  for (const auto& row : expected(id_b, b)) both.push_back(row);
  EXPECT_EQ(testing::listed_source_totals(store()), both);
  expect_totals_are_the_charges();

  const auto id_c = load("c.csv", c, {id_a});  // replaces a: its totals go with it
  auto after = expected(id_b, b);
  for (const auto& row : expected(id_c, c)) after.push_back(row);
  EXPECT_EQ(testing::listed_source_totals(store()), after);
  expect_totals_are_the_charges();

  auto begun = store().begin_source(
      {"/generated/d.csv", std::string(63, 't') + "d.csv", 1, "focus-1.2"}, {id_b});
  ASSERT_TRUE(begun) << begun.error().what();
  ASSERT_TRUE(store().add_charges(charges(50, 3, 4)));
  store().rollback();
  EXPECT_EQ(testing::listed_source_totals(store()), after);
}

TEST_P(SourceTotalsTest, ASourceWithoutChargesListsNoTotals) {
  const auto id = load("a.csv", charges(30, 3, 0));
  load("empty.csv", {});
  auto sources = store().sources();
  ASSERT_TRUE(sources) << sources.error().what();
  ASSERT_EQ(sources->size(), 2u);
  EXPECT_EQ((*sources)[0].id, id);
  EXPECT_EQ((*sources)[0].totals.size(), 2u);
  EXPECT_TRUE((*sources)[1].totals.empty());
}

TEST_P(SourceTotalsTest, ASchemaNineLedgerHasItsTotalsSummedByTheMigration) {
  const auto a = charges(300, 20, 0), b = charges(200, 30, 1);
  const auto id_a = load("a.csv", a), id_b = load("b.csv", b);
  fresh_.store.reset();
  testing::exec(
      GetParam(), fresh_.db,
      std::string(testing::kUndoSchema10) + "DELETE FROM schema_migrations WHERE version >= 10");
  ASSERT_NO_FATAL_FAILURE(reopen());
  EXPECT_EQ(store().schema_version(), 11);
  auto both = expected(id_a, a);
  for (const auto& row : expected(id_b, b)) both.push_back(row);
  EXPECT_EQ(testing::listed_source_totals(store()), both);
  expect_totals_are_the_charges();
}

// A file's total in one currency may pass what an int64 holds where each day's groups do not:
// two days of 6e9 units each, 1.2e10 in all, listed exactly.
TEST_P(SourceTotalsTest, AFilesTotalBeyondInt64IsListedExactly) {
  std::vector<Charge> rows = charges(2, 2, 1);
  for (auto& c : rows) {
    c.currency = "USD";
    c.billed = c.list = c.effective = 6'000'000'000 * kUnit;
  }
  const auto id = load("big.csv", rows);
  EXPECT_EQ(testing::listed_source_totals(store()),
            (std::vector<std::string>{std::to_string(id) +
                                      "|USD|12000000000000000000|12000000000000000000"}));
}

INSTANTIATE_TEST_SUITE_P(Backends, SourceTotalsTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost
