// SQLite scans of the raw charges read by several threads at once (StoreOptions::scan_threads),
// each over its own range of rows on its own connection: they must answer what one thread does.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "aicost/billing/ingest.h"
#include "aicost/store/open.h"
#include "ledger_test_support.h"
#include "temp_dir.h"

namespace aicost {
namespace {

namespace fs = std::filesystem;

class SqliteThreads : public ::testing::Test {
 protected:
  const ledger::Day june = ledger::days_from_civil(2025, 6, 1);

  void SetUp() override {
    path_ = dir_.file("ledger.db");
    auto store = store::open_store(path_.string(), {.mode = store::OpenMode::kCreate});
    ASSERT_TRUE(store) << store.error().what();
    auto r = billing::ingest_file(
        **store, testing::samples_dir() + "focus-sample-data/focus_sample.csv", {});
    ASSERT_TRUE(r) << r.error().what();
    // Three monthly sources after it: windows inside them read only some sources' rows.
    for (int month = 0; month < 3; ++month) {
      ledger::SourceFile f{"/tmp/threads-month-" + std::to_string(month) + ".csv",
                           std::string(64, static_cast<char>('a' + month)), 10, "focus-1.2"};
      ASSERT_TRUE((*store)->begin_source(f, {}));
      std::vector<ledger::Charge> rows;
      for (int day = 0; day < 30; ++day)
        for (int resource = 0; resource < 7; ++resource) {
          ledger::Charge c;
          c.line = static_cast<std::int64_t>(rows.size() + 2);
          c.period_start = static_cast<ledger::UnixSeconds>(june + 30 * month + day) * 86400;
          c.period_end = c.period_start + 86400;
          c.currency = "USD";
          c.resource_id = "bucket-" + std::to_string(resource);
          c.service_category = "Storage";
          c.billed = c.effective = c.list = (month + 1) * 1000 + day * 10 + resource;
          c.consumed_quantity = 0.1 * (day + resource);
          rows.push_back(c);
        }
      ASSERT_TRUE((*store)->add_charges(rows));
      ASSERT_TRUE((*store)->commit_source("focus-1.2", 0));
    }
  }

  // `threads` 0: scans on the store's own connection (the ledger is under the rows that make a
  // scan large); else scans of any size on connections of their own, split over `threads`.
  std::unique_ptr<ledger::Store> open(unsigned threads) {
    store::StoreOptions o;
    o.scan_threads = threads;
    if (threads > 0) o.rows_per_scan_thread = 1;
    auto s = store::open_store(path_.string(), o);
    EXPECT_TRUE(s) << s.error().what();
    return s ? std::move(*s) : nullptr;
  }

  // The queries of one read: a resource's totals with tags over every day, storage by day over
  // a window, and a window of the monthly sources by resource and day.
  std::vector<ledger::AggregateQuery> queries(ledger::Day from, ledger::Day to) const {
    ledger::AggregateQuery totals;
    totals.dims = {ledger::Dimension::kResource, ledger::Dimension::kService,
                   ledger::Dimension::kChargeCategory};
    totals.tags = {{"environment", {"env"}}};
    totals.from = from;
    totals.to = to;
    ledger::AggregateQuery storage;
    storage.dims = {ledger::Dimension::kResource, ledger::Dimension::kResourceName};
    storage.by_day = true;
    storage.from = from;
    storage.to = to;
    storage.filters.push_back({{ledger::Dimension::kServiceCategory, {}}, "Storage"});
    return {totals, storage};
  }

  static void expect_same(const std::vector<ledger::AggregateRow>& want,
                          const std::vector<ledger::AggregateRow>& got) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t r = 0; r < want.size(); ++r) {
      SCOPED_TRACE("row " + std::to_string(r));
      EXPECT_EQ(got[r].day, want[r].day);
      EXPECT_EQ(got[r].values, want[r].values);
      EXPECT_EQ(got[r].currency, want[r].currency);
      EXPECT_EQ(got[r].sums.billed, want[r].sums.billed);
      EXPECT_EQ(got[r].sums.effective, want[r].sums.effective);
      EXPECT_EQ(got[r].sums.rows, want[r].sums.rows);
      EXPECT_EQ(got[r].sums.first_day, want[r].sums.first_day);
      EXPECT_EQ(got[r].sums.last_day, want[r].sums.last_day);
      // Floating-point sums in another order: equal but for the last bits.
      EXPECT_NEAR(got[r].sums.gpu_hours, want[r].sums.gpu_hours,
                  1e-9 * (1 + std::abs(want[r].sums.gpu_hours)));
      EXPECT_NEAR(got[r].sums.consumed_quantity, want[r].sums.consumed_quantity,
                  1e-9 * (1 + std::abs(want[r].sums.consumed_quantity)));
    }
  }

  // Every query alone and the queries together, on `threads` threads against one thread.
  void expect_threads_agree(ledger::Store& one, ledger::Store& many, ledger::Day from,
                            ledger::Day to) {
    SCOPED_TRACE("days " + std::to_string(from - june) + ".." + std::to_string(to - june));
    const auto qs = queries(from, to);
    auto want = one.aggregate_each(qs), got = many.aggregate_each(qs);
    ASSERT_TRUE(want && got);
    std::size_t rows = 0;
    for (std::size_t i = 0; i < qs.size(); ++i) {
      expect_same((*want)[i], (*got)[i]);
      auto alone = many.aggregate(qs[i]);
      ASSERT_TRUE(alone);
      expect_same((*want)[i], *alone);
      rows += alone->size();
    }
    EXPECT_GT(rows, 0u);
  }

  testing::TempDir dir_{"aicost-threads"};
  fs::path path_;
};

TEST_F(SqliteThreads, ThreadsReadWhatOneThreadReads) {
  auto one = open(0), many = open(3);
  ASSERT_TRUE(one && many);
  {
    // One thread on a connection of its own reads what the store's own connection does too.
    auto own = open(1);
    ASSERT_TRUE(own);
    expect_threads_agree(*one, *own, june, june + 90);
  }
  // Every day of the sample, then windows of the monthly sources: inside one, across two, all.
  expect_threads_agree(*one, *many, ledger::days_from_civil(2000, 1, 1),
                       ledger::days_from_civil(2100, 1, 1));
  expect_threads_agree(*one, *many, june + 65, june + 75);
  expect_threads_agree(*one, *many, june + 25, june + 35);
  expect_threads_agree(*one, *many, june, june + 90);
  // No days bound: the whole table, split by rows.
  ledger::AggregateQuery raw;
  raw.dims = {ledger::Dimension::kResource};
  raw.by_day = true;
  auto want = one->aggregate(raw), got = many->aggregate(raw);
  ASSERT_TRUE(want && got);
  expect_same(*want, *got);
}

// A window's raw read keeps to the sources with a charge in it (MultiScan::prune_sources, which
// stops reading the rollup once every source is met): each bucket's billed sum over the window,
// counted from how the rows were made, on one thread and on three; the last window holds every
// source.
TEST_F(SqliteThreads, AWindowReadsItsSourcesRowsWhetherSomeOrAllArePruned) {
  auto one = open(0), many = open(3);
  ASSERT_TRUE(one && many);
  for (const auto& [from, to] : {std::pair{65, 75}, std::pair{25, 65}, std::pair{-20000, 40000}}) {
    SCOPED_TRACE("days " + std::to_string(from) + ".." + std::to_string(to));
    for (ledger::Store* store : {one.get(), many.get()}) {
      auto got = store->aggregate_each(queries(june + from, june + to));
      ASSERT_TRUE(got) << got.error().what();
      std::size_t buckets = 0;
      for (const auto& row : (*got)[0]) {
        if (row.values[0].rfind("bucket-", 0) != 0) continue;
        const int resource = std::stoi(row.values[0].substr(7));
        core::WideNanos want = 0;
        for (int d = std::max(from, 0); d < std::min(to, 90); ++d)
          want += (d / 30 + 1) * 1000 + d % 30 * 10 + resource;
        EXPECT_EQ(row.sums.billed, want) << row.values[0];
        ++buckets;
      }
      EXPECT_EQ(buckets, 7u);
    }
  }
}

TEST_F(SqliteThreads, ARangeNoOtherConnectionCanOpenIsReadOnTheStoresOwn) {
  auto one = open(0), many = open(4);
  ASSERT_TRUE(one && many);
  const auto qs = queries(june, june + 90);
  auto want = one->aggregate_each(qs);
  ASSERT_TRUE(want);
  // The file moved away under open stores: their connections still read it, no new one opens.
  fs::rename(path_, fs::path(path_.string() + ".moved"));
  auto got = many->aggregate_each(qs);
  fs::rename(fs::path(path_.string() + ".moved"), path_);
  ASSERT_TRUE(got) << got.error().what();
  for (std::size_t i = 0; i < qs.size(); ++i) expect_same((*want)[i], (*got)[i]);
}

}  // namespace
}  // namespace aicost
