// The SQLite ledger in WAL mode: readers read the last commit while a writer writes. A ledger made
// with a rollback journal switches on its next open; a scan split over several connections reads
// one state of the ledger even when a writer commits between their read transactions.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "aicost/store/open.h"
#include "ledger_test_support.h"
#include "sqlite_reads.h"  // before_range_scans_hook
#include "temp_dir.h"

namespace aicost {
namespace {

const ledger::Day kJune = ledger::days_from_civil(2025, 6, 1);

std::string pragma(const std::string& db, const std::string& name) {
  sqlite3* c = nullptr;
  std::string out;
  if (sqlite3_open_v2(db.c_str(), &c, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* q = nullptr;
    if (sqlite3_prepare_v2(c, ("PRAGMA " + name).c_str(), -1, &q, nullptr) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW)
      out = reinterpret_cast<const char*>(sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
  }
  sqlite3_close(c);
  return out;
}

TEST(SqliteWal, ANewLedgerIsInWalWith64KiBPages) {
  testing::TempDir dir("aicost-wal");
  const auto db = dir.file("ledger.db");
  auto s = store::open_store(db, {.mode = store::OpenMode::kCreate});
  ASSERT_TRUE(s) << s.error().what();
  EXPECT_EQ(pragma(db, "journal_mode"), "wal");
  EXPECT_EQ(pragma(db, "page_size"), "65536");
}

TEST(SqliteWal, ALedgerWithARollbackJournalSwitchesOnItsNextOpen) {
  testing::TempDir dir("aicost-wal");
  const auto db = dir.file("ledger.db");
  ASSERT_TRUE(store::open_store(db, {.mode = store::OpenMode::kCreate}));
  {
    // As an older aicost left it.
    sqlite3* c = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &c), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(c, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(c);
  }
  ASSERT_EQ(pragma(db, "journal_mode"), "delete");
  auto s = store::open_store(db);
  ASSERT_TRUE(s) << s.error().what();
  EXPECT_EQ(pragma(db, "journal_mode"), "wal");
}

// Three sources of 30 days x 7 resources; the middle one is replaced by the writer below.
class SqliteSplitScan : public ::testing::Test {
 protected:
  void SetUp() override {
    auto w = store::open_store(db_, {.mode = store::OpenMode::kCreate});
    ASSERT_TRUE(w) << w.error().what();
    writer_ = std::move(*w);
    for (int month = 0; month < 3; ++month) load(month, 1, {});
    // Split over 3 connections, whatever the size.
    auto r = store::open_store(db_, {.scan_threads = 3, .rows_per_scan_thread = 1});
    ASSERT_TRUE(r) << r.error().what();
    reader_ = std::move(*r);
  }
  void TearDown() override { store::before_range_scans_hook() = nullptr; }

  // Source `month` (replacing `replace`), its charges costing `factor` times the first load's.
  void load(int month, int factor, const std::vector<std::int64_t>& replace) {
    ledger::SourceFile f{"/data/month-" + std::to_string(month) + ".csv",
                         std::string(63, static_cast<char>('a' + month)) + std::to_string(factor),
                         10, "focus-1.2"};
    ASSERT_TRUE(writer_->begin_source(f, replace));
    std::vector<ledger::Charge> rows;
    for (int day = 0; day < 30; ++day)
      for (int resource = 0; resource < 7; ++resource) {
        ledger::Charge c;
        c.line = static_cast<std::int64_t>(rows.size() + 2);
        c.period_start = static_cast<ledger::UnixSeconds>(kJune + day) * 86400;
        c.period_end = c.period_start + 86400;
        c.currency = "USD";
        c.resource_id = "bucket-" + std::to_string(resource);
        c.billed = c.effective = c.list = factor * ((month + 1) * 1000 + day * 10 + resource);
        rows.push_back(c);
      }
    ASSERT_TRUE(writer_->add_charges(rows));
    auto r = writer_->commit_source("focus-1.2", 0);
    ASSERT_TRUE(r) << r.error().what();
    ids_[month] = r->id;
  }

  // By resource: no rollup answers it, so every raw row is read, split by rowid.
  std::vector<ledger::AggregateRow> by_resource() {
    ledger::AggregateQuery q;
    q.dims = {ledger::Dimension::kResource};
    auto rows = reader_->aggregate(q);
    EXPECT_TRUE(rows) << rows.error().what();
    return rows ? *rows : std::vector<ledger::AggregateRow>{};
  }

  static void expect_same(const std::vector<ledger::AggregateRow>& want,
                          const std::vector<ledger::AggregateRow>& got) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i].values, want[i].values);
      EXPECT_EQ(got[i].sums.effective, want[i].sums.effective) << got[i].values[0];
      EXPECT_EQ(got[i].sums.rows, want[i].sums.rows) << got[i].values[0];
    }
  }

  testing::TempDir dir_{"aicost-split-scan"};
  std::string db_ = dir_.file("ledger.db");
  std::unique_ptr<ledger::Store> writer_, reader_;
  std::int64_t ids_[3] = {};
};

// A --replace committed after the reader cut its ranges and before its range connections began:
// their snapshots lack the replaced source's rows and hold the new ones past the ranges. The
// reader answers as the ledger was when it began, then as it is.
TEST_F(SqliteSplitScan, AReplaceCommittedBetweenTheRangesIsNotSeenHalfway) {
  const auto want = by_resource();
  ASSERT_EQ(want.size(), 7u);
  store::before_range_scans_hook() = [this] {
    store::before_range_scans_hook() = nullptr;
    load(1, 3, {ids_[1]});
  };
  expect_same(want, by_resource());
  // Then the new state: month 1 at three times its cost, sum over days of 2000 + 10 day + r.
  const auto after = by_resource();
  ASSERT_EQ(after.size(), 7u);
  for (int r = 0; r < 7; ++r) {
    ASSERT_EQ(after[r].values, std::vector<std::string>{"bucket-" + std::to_string(r)});
    EXPECT_EQ(after[r].sums.effective - want[r].sums.effective,
              2 * (30 * 2000 + 10 * 435 + 30 * r));
  }
}

// A compact (VACUUM) between them renumbers the rows and adds one to the schema cookie: every range
// connection then reads the new numbering, or the store's connection reads the range. (Ranges
// read partly before and partly after it would cut other rows: the cookie tells them apart.)
TEST_F(SqliteSplitScan, ACompactBetweenTheRangesLeavesTheAnswerAsItWas) {
  load(1, 3, {ids_[1]});  // leaves a gap of rowids that a VACUUM closes
  const auto want = by_resource();
  store::before_range_scans_hook() = [this] {
    store::before_range_scans_hook() = nullptr;
    auto c = writer_->compact();
    ASSERT_TRUE(c) << c.error().what();
  };
  expect_same(want, by_resource());
  expect_same(want, by_resource());
}

}  // namespace
}  // namespace aicost
