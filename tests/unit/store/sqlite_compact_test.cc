// `aicost ledger compact` on SQLite: a ledger made in 4 KiB pages (before 64 KiB were the
// default) is rewritten in 64 KiB ones with every row kept.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "aicost/billing/ingest.h"
#include "aicost/store/open.h"
#include "backends.h"
#include "ledger_test_support.h"

namespace aicost {
namespace {

namespace fs = std::filesystem;

std::int64_t page_size(const fs::path& db) {
  sqlite3* c = nullptr;
  std::int64_t size = 0;
  if (sqlite3_open_v2(db.c_str(), &c, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* q = nullptr;
    if (sqlite3_prepare_v2(c, "PRAGMA page_size", -1, &q, nullptr) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW)
      size = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
  }
  sqlite3_close(c);
  return size;
}

TEST(SqliteCompact, A4KiBLedgerIsRewrittenIn64KiBPagesWithEveryRow) {
  const testing::TempDir dir("aicost-compact");
  const fs::path db = dir.file("ledger.db");
  {
    // The file made as an older aicost made it: 4 KiB pages, fixed by its first table.
    sqlite3* c = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &c), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(c, "PRAGMA page_size=4096; CREATE TABLE t (a); DROP TABLE t;", nullptr,
                           nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(c);
  }
  auto store = store::open_store(db.string(), {.mode = store::OpenMode::kCreate});
  ASSERT_TRUE(store) << store.error().what();
  auto r = billing::ingest_file(**store,
                                testing::samples_dir() + "focus-sample-data/focus_sample.csv", {});
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(page_size(db), 4096);
  const auto before = testing::ledger_totals(**store);

  auto c = (*store)->compact();
  ASSERT_TRUE(c) << c.error().what();
  EXPECT_EQ(page_size(db), 65536);
  EXPECT_EQ(c->how, "VACUUM, pages of 4 KiB -> 64 KiB");
  EXPECT_EQ(c->bytes_after, static_cast<std::int64_t>(fs::file_size(db)));
  testing::expect_same_totals(testing::ledger_totals(**store), before);
  store->reset();
  fs::remove(db);
}

}  // namespace
}  // namespace aicost
