// The change journal's table (`changes`, schema 7) on both backends: changes round-trip with
// their scope and guardrails, a schema 6 ledger migrates keeping its charges, and a ledger of a
// newer schema is refused.
#include <gtest/gtest.h>

#include "aicost/billing/ingest.h"
#include "aicost/store/open.h"
#include "backends.h"
#include "ledger_test_support.h"

namespace aicost {
namespace {

using ledger::Dimension;

ledger::Change change(ledger::Day day, std::vector<ledger::Filter> scope, std::string lever) {
  ledger::Change c;
  c.day = day;
  c.scope = std::move(scope);
  c.lever = std::move(lever);
  return c;
}

class ChangesTest : public testing::BackendTest {};

TEST_P(ChangesTest, AChangeComesBackAsRecordedInDayOrder) {
  auto later = change(
      20100, {{{Dimension::kTag, "run"}, "r3"}, {{Dimension::kService, {}}, "Amazon EC2, GPU"}},
      "precision-fp8");
  later.note = "FP8 on the r3 runs; 'quoted' text";
  later.guardrails = {{ledger::GuardrailKind::kMaxUnitCostRise, 0.05},
                      {ledger::GuardrailKind::kMinGpuActivity, 0.4}};
  later.added_at = "2025-01-01T00:00:00Z";
  auto a = store().add_change(later);
  ASSERT_TRUE(a) << a.error().what();
  auto b = store().add_change(change(20000, {}, "commitment"));
  ASSERT_TRUE(b) << b.error().what();
  EXPECT_NE(*a, *b);
  ASSERT_NO_FATAL_FAILURE(reopen());
  auto all = store().changes();
  ASSERT_TRUE(all) << all.error().what();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].id, *b);  // day 20000 first
  EXPECT_TRUE((*all)[0].scope.empty());
  EXPECT_TRUE((*all)[0].guardrails.empty());
  EXPECT_FALSE((*all)[0].added_at.empty());
  const auto& c = (*all)[1];
  EXPECT_EQ(c.id, *a);
  EXPECT_EQ(c.day, 20100);
  EXPECT_EQ(c.scope, later.scope);
  EXPECT_EQ(c.lever, "precision-fp8");
  EXPECT_EQ(c.note, later.note);
  EXPECT_EQ(c.guardrails, later.guardrails);
  EXPECT_EQ(c.added_at, "2025-01-01T00:00:00Z");
}

// A ledger of schema 6 (no `changes`) opens at the latest schema with its charges, and takes
// changes.
TEST_P(ChangesTest, ASchemaSixLedgerMigratesKeepingItsCharges) {
  auto r = billing::ingest_file(store(),
                                testing::samples_dir() + "focus-sample-data/focus_sample.csv", {});
  ASSERT_TRUE(r) << r.error().what();
  const auto totals = testing::ledger_totals(store());
  fresh_.store.reset();
  testing::exec(GetParam(), fresh_.db,
                std::string(testing::kUndoSchema8) +
                    "DROP TABLE changes; DELETE FROM schema_migrations WHERE version >= 7");
  ASSERT_NO_FATAL_FAILURE(reopen());
  EXPECT_EQ(store().schema_version(), 11);
  testing::expect_same_totals(testing::ledger_totals(store()), totals);
  ASSERT_TRUE(store().add_change(change(20000, {}, "commitment")));
  auto all = store().changes();
  ASSERT_TRUE(all);
  EXPECT_EQ(all->size(), 1u);
}

TEST_P(ChangesTest, ALedgerOfANewerSchemaIsRefused) {
  fresh_.store.reset();
  testing::exec(GetParam(), fresh_.db,
                "INSERT INTO schema_migrations VALUES (12, '2030-01-01T00:00:00Z')");
  auto s = store::open_store(fresh_.db);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find(
                "written by a newer aicost (schema 12, this one knows 11); upgrade aicost"),
            std::string::npos)
      << s.error().what();
}

INSTANTIATE_TEST_SUITE_P(Backends, ChangesTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost
