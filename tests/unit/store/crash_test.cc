// An ingest killed with SIGKILL halfway leaves the ledger as it was; the rerun gives the totals of
// a clean run. Runs against every backend.
#include <gtest/gtest.h>

#include <cstdlib>

#include "aicost/billing/ingest.h"
#include "aicost/ledger/report.h"
#include "aicost/store/open.h"
#include "backends.h"
#include "kill_support.h"
#include "ledger_test_support.h"

namespace aicost {
namespace {

const std::string kFocusSample = testing::samples_dir() + "focus-sample-data/focus_sample.csv";
const std::string kExample =
    testing::samples_dir() + "focus-spec-examples/commitment_discount_usage_scenario_3.csv";

using testing::expect_same_totals;
using testing::ledger_totals;

class CrashTest : public testing::BackendTest {};

TEST_P(CrashTest, KilledIngestLeavesTheLedgerAsItWasAndRerunMatchesACleanRun) {
  auto& fresh = fresh_;
  billing::IngestOptions opts;
  opts.batch = 100;  // many store round trips, so the kill lands mid-transaction
  ASSERT_TRUE(billing::ingest_file(*fresh.store, kExample, opts));
  const auto before = ledger_totals(*fresh.store);
  const std::string db = fresh.db;
  fresh.store.reset();

  ASSERT_NO_FATAL_FAILURE(testing::ingest_killed_after(db, kFocusSample, opts));

  auto reopened = store::open_store(db);
  ASSERT_TRUE(reopened) << reopened.error().what();
  expect_same_totals(ledger_totals(**reopened), before);
  auto sources = (*reopened)->sources();
  ASSERT_TRUE(sources);
  EXPECT_EQ(sources->size(), 1u);

  auto rerun = billing::ingest_file(**reopened, kFocusSample, opts);
  ASSERT_TRUE(rerun) << rerun.error().what();
  EXPECT_EQ(rerun->outcome, billing::IngestResult::Outcome::kLoaded);
  EXPECT_EQ(rerun->record.rows, 1000);

  auto clean = testing::fresh_store(GetParam());
  ASSERT_TRUE(clean.store);
  ASSERT_TRUE(billing::ingest_file(*clean.store, kExample, opts));
  ASSERT_TRUE(billing::ingest_file(*clean.store, kFocusSample, opts));
  expect_same_totals(ledger_totals(**reopened), ledger_totals(*clean.store));
}

INSTANTIATE_TEST_SUITE_P(Backends, CrashTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost
