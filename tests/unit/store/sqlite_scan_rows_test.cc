// SQLite's raw scans read their rows through an SQL function of ours
// (src/store/sqlite_scan_rows.h): every value as the row holds it (NULLs as zero, the resource id
// as text), across full batches and the last one, with the statement's text parameters bound after
// the function's pointer; and the function refuses any call that is not a scan's.
#include "sqlite_scan_rows.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <map>
#include <string>
#include <vector>

#include "aicost/store/open.h"
#include "temp_dir.h"

namespace aicost {
namespace {

// A call from SQL that is not a scan's (no RowTaker bound, or none at all) is an error, not a
// read of memory that is not there.
TEST(ScanRowFunction, RefusesACallThatIsNotAScans) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  ASSERT_TRUE(store::register_scan_function(db));
  for (const char* sql : {"SELECT aicost_scan_row(1, 2, 3)", "SELECT aicost_scan_row()",
                          "SELECT aicost_scan_row(NULL)"}) {
    char* msg = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &msg), SQLITE_ERROR) << sql;
    EXPECT_NE(std::string(msg ? msg : "").find("not called by a scan"), std::string::npos) << sql;
    sqlite3_free(msg);
  }
  sqlite3_close(db);
}

// 5,000 charges of 7 resources over 40 days (three batches of 2,048 rows: two folded inside the
// scan, one after it), a third without a contracted cost or a consumed quantity: each resource's
// sums are the charges' own, added up here.
TEST(ScanRowFunction, ARawScanSumsEveryValueTheRowsHold) {
  testing::TempDir dir;
  const std::string path = dir.file("ledger.db");
  auto store = store::open_store(path, {.mode = store::OpenMode::kCreate});
  ASSERT_TRUE(store) << store.error().what();
  const ledger::Day june = ledger::days_from_civil(2025, 6, 1);
  ASSERT_TRUE(
      (*store)->begin_source({"/tmp/scan-rows.csv", std::string(64, 'a'), 10, "focus-1.2"}, {}));
  std::vector<ledger::Charge> rows;
  struct Want {
    ledger::Sums sums;
    std::string name;
  };
  std::map<std::string, Want> want;  // by resource, over days 10..29
  for (int i = 0; i < 5000; ++i) {
    ledger::Charge c;
    c.line = i + 2;
    const int day = i % 40;
    c.period_start = static_cast<ledger::UnixSeconds>(june + day) * 86400;
    c.period_end = c.period_start + 86400;
    c.currency = "USD";
    c.resource_id = "arn:x/bucket-" + std::to_string(i % 7);
    c.resource_name = "name-" + std::to_string(i % 7);
    c.billed = i;
    c.effective = 2 * i;
    c.list = 3 * i;
    if (i % 3 != 0) c.contracted = 4 * i;
    if (i % 3 != 0) c.consumed_quantity = 0.5 * i;
    c.gpu_hours = 0.25 * (i % 5);
    if (day >= 10 && day < 30) {
      auto& w = want[c.resource_id];
      w.name = c.resource_name;
      w.sums.billed += c.billed;
      w.sums.effective += c.effective;
      w.sums.list += c.list;
      w.sums.contracted += c.contracted.value_or(0);
      w.sums.consumed_quantity += c.consumed_quantity.value_or(0);
      w.sums.gpu_hours += c.gpu_hours;
      w.sums.rows += 1;
    }
    rows.push_back(c);
  }
  ASSERT_TRUE((*store)->add_charges(rows));
  ASSERT_TRUE((*store)->commit_source("focus-1.2", 0));
  // By resource (read raw, as text) and name; the second query filters on three resource ids,
  // one unknown (text parameters bound after the function's).
  ledger::AggregateQuery all;
  all.dims = {ledger::Dimension::kResource, ledger::Dimension::kResourceName};
  all.from = june + 10;
  all.to = june + 30;
  ledger::AggregateQuery some = all;
  for (const char* r : {"arn:x/bucket-2", "arn:x/bucket-5", "arn:x/no-such-bucket"})
    some.filters.push_back({{ledger::Dimension::kResource, {}}, r});
  for (const auto& q : {all, some}) {
    auto got = (*store)->aggregate(q);
    ASSERT_TRUE(got) << got.error().what();
    ASSERT_EQ(got->size(), q.filters.empty() ? 7u : 2u);
    for (const auto& r : *got) {
      const auto it = want.find(r.values[0]);
      ASSERT_NE(it, want.end()) << r.values[0];
      const auto& w = it->second.sums;
      EXPECT_EQ(r.values[1], it->second.name);
      EXPECT_EQ(r.currency, "USD");
      EXPECT_EQ(r.sums.billed, w.billed) << r.values[0];
      EXPECT_EQ(r.sums.effective, w.effective);
      EXPECT_EQ(r.sums.list, w.list);
      EXPECT_EQ(r.sums.contracted, w.contracted);
      EXPECT_EQ(r.sums.rows, w.rows);
      // Halves and quarters of integers below 2^53: every partial sum is exact, in any order.
      EXPECT_EQ(r.sums.consumed_quantity, w.consumed_quantity);
      EXPECT_EQ(r.sums.gpu_hours, w.gpu_hours);
      EXPECT_EQ(r.sums.first_day, june + 10);
      EXPECT_EQ(r.sums.last_day, june + 29);
    }
  }
}

}  // namespace
}  // namespace aicost
