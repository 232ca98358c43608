// PostgreSQL's `charges` partitioned by month (schema 6, src/store/schema.cc): a ledger of schema
// 5 migrates in place keeping every row, an ingest makes the partition of a new month, and a
// query over a range of days reads only its months.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aicost/store/open.h"
#include "backends.h"

namespace aicost {
namespace {

using ledger::Charge;
using ledger::Dimension;

constexpr ledger::UnixSeconds kDay = 86400;
// 2024-06-01 (day 19875); the charges fall on June 10, July 10 and August 10.
constexpr ledger::Day kJune = 19875;
const std::vector<ledger::Day> kDays = {kJune + 9, kJune + 30 + 9, kJune + 61 + 9};

Charge charge(ledger::Day day, const std::string& service, std::int64_t billed) {
  Charge c;
  c.period_start = day * kDay;
  c.period_end = c.period_start + 3600;
  c.currency = "USD";
  c.billed = c.effective = c.list = billed;
  c.provider = "p";
  c.service_name = service;
  c.resource_id = "r-" + service;
  c.tags = {{"team", service}};
  return c;
}

// The rows of one statement of the ledger's own SQL, each row its cells joined by '|'.
std::vector<std::string> rows_of(const std::string& db, const std::string& sql) {
  PGconn* conn = PQconnectdb(db.c_str());
  PGresult* r = PQexec(conn, sql.c_str());
  std::vector<std::string> out;
  EXPECT_TRUE(PQresultStatus(r) == PGRES_TUPLES_OK || PQresultStatus(r) == PGRES_COMMAND_OK)
      << PQerrorMessage(conn);
  for (int i = 0; i < PQntuples(r); ++i) {
    std::string row;
    for (int c = 0; c < PQnfields(r); ++c) row += (c ? "|" : "") + std::string(PQgetvalue(r, i, c));
    out.push_back(row);
  }
  PQclear(r);
  PQfinish(conn);
  return out;
}

// Billed cost by service and day from the raw charges (a resource dimension keeps the query off
// the daily rollup), over [from, to) when given.
std::map<std::string, core::WideNanos> by_resource(ledger::Store& s,
                                                   std::optional<ledger::Day> from = {},
                                                   std::optional<ledger::Day> to = {}) {
  ledger::AggregateQuery q;
  q.dims = {Dimension::kResource};
  q.by_day = true;
  q.from = from;
  q.to = to;
  auto rows = s.aggregate(q);
  EXPECT_TRUE(rows) << rows.error().what();
  std::map<std::string, core::WideNanos> out;
  if (rows)
    for (const auto& r : *rows) out[r.values.at(0) + "@" + std::to_string(r.day)] += r.sums.billed;
  return out;
}

const char* const kPartitions =
    "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = "
    "'charges'::regclass ORDER BY 1";

class PartitionTest : public testing::BackendTest {};

TEST_P(PartitionTest, ASchemaFiveLedgerIsPartitionedByMonthKeepingEveryRow) {
  if (GetParam() != "postgresql")
    GTEST_SKIP() << "SQLite keeps one charges table (docs/LEDGER.md, Scale)";
  ASSERT_NE(0, load("three-months", {charge(kDays[0], "a", 1), charge(kDays[1], "b", 20),
                                     charge(kDays[2], "c", 300), charge(kDays[2], "a", 4000)}));
  const auto totals = testing::ledger_totals(store());
  const auto raw = by_resource(store());
  const auto rows =
      rows_of(fresh_.db,
              "SELECT source_id, line, day, billed, tagset_id, resource_id, service_name_sid "
              "FROM charges ORDER BY day, billed");
  fresh_.store.reset();
  ASSERT_EQ(rows_of(fresh_.db, std::string(testing::kUndoSchema8) + testing::kUnpartitionCharges +
                                   "DELETE FROM schema_migrations WHERE version > 5")
                .size(),
            0u);
  ASSERT_EQ(rows_of(fresh_.db, "SELECT relkind FROM pg_class WHERE oid = 'charges'::regclass"),
            std::vector<std::string>{"r"});  // a plain table: the ledger is at schema 5

  auto reopened = store::open_store(fresh_.db);
  ASSERT_TRUE(reopened) << reopened.error().what();
  fresh_.store = std::move(*reopened);
  EXPECT_EQ(store().schema_version(), 11);
  EXPECT_EQ(rows_of(fresh_.db, "SELECT relkind FROM pg_class WHERE oid = 'charges'::regclass"),
            std::vector<std::string>{"p"});
  EXPECT_EQ(rows_of(fresh_.db, kPartitions),
            (std::vector<std::string>{"charges_2024_06", "charges_2024_07", "charges_2024_08"}));
  // Every row as it was, each in its month's partition, and the totals and report the same.
  EXPECT_EQ(
      rows_of(fresh_.db,
              "SELECT source_id, line, day, billed, tagset_id, resource_id, service_name_sid FROM "
              "charges ORDER BY day, billed"),
      rows);
  EXPECT_EQ(rows_of(fresh_.db, "SELECT COUNT(*) FROM charges_2024_08"),
            std::vector<std::string>{"2"});
  EXPECT_EQ(rows_of(fresh_.db, "SELECT COUNT(*) FROM charges_text"), std::vector<std::string>{"4"});
  testing::expect_same_totals(testing::ledger_totals(store()), totals);
  EXPECT_EQ(by_resource(store()), raw);
}

TEST_P(PartitionTest, AnIngestMakesANewMonthsPartitionAndARangeReadsOnlyItsMonths) {
  if (GetParam() != "postgresql")
    GTEST_SKIP() << "SQLite keeps one charges table (docs/LEDGER.md, Scale)";
  ASSERT_NE(0, load("june", {charge(kDays[0], "a", 1)}));
  EXPECT_EQ(rows_of(fresh_.db, kPartitions), std::vector<std::string>{"charges_2024_06"});
  // A rolled-back ingest leaves no partition behind.
  ledger::SourceFile f{"/tmp/rolled-back", std::string(64, 'r'), 1, "focus-1.2"};
  ASSERT_TRUE(store().begin_source(f, {}));
  const std::vector<Charge> september = {charge(kJune + 92, "s", 7)};
  ASSERT_TRUE(store().add_charges(september));
  store().rollback();
  EXPECT_EQ(rows_of(fresh_.db, kPartitions), std::vector<std::string>{"charges_2024_06"});
  ASSERT_NE(0, load("july-august", {charge(kDays[1], "b", 20), charge(kDays[2], "c", 300)}));
  EXPECT_EQ(rows_of(fresh_.db, kPartitions),
            (std::vector<std::string>{"charges_2024_06", "charges_2024_07", "charges_2024_08"}));
  // July alone: the answer of July's rows, and a plan that scans July's partition only.
  EXPECT_EQ(by_resource(store(), kJune + 30, kJune + 61),
            (std::map<std::string, core::WideNanos>{{"r-b@" + std::to_string(kDays[1]), 20}}));
  std::string plan;
  for (const auto& line : rows_of(
           fresh_.db, "EXPLAIN SELECT SUM(billed) FROM charges WHERE day >= " +
                          std::to_string(kJune + 30) + " AND day < " + std::to_string(kJune + 61)))
    plan += line + "\n";
  EXPECT_NE(plan.find("charges_2024_07"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("charges_2024_06"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("charges_2024_08"), std::string::npos) << plan;
}

// kill -9 of a process in the middle of migration 6: its rows already copied into the partitions,
// the migration waits for a lock on `strings` (the view it makes last reads it), which this test
// holds. The server rolls the migration back: the ledger is still schema 5, one table with every
// row, and the next open migrates it.
TEST_P(PartitionTest, AMigrationKilledMidwayLeavesTheSchemaFiveLedger) {
  if (GetParam() != "postgresql") GTEST_SKIP() << "SQLite's migration 6 changes nothing";
  ASSERT_NE(0, load("three-months", {charge(kDays[0], "a", 1), charge(kDays[1], "b", 20),
                                     charge(kDays[2], "c", 300)}));
  const auto totals = testing::ledger_totals(store());
  fresh_.store.reset();
  ASSERT_EQ(rows_of(fresh_.db, std::string(testing::kUndoSchema8) + testing::kUnpartitionCharges +
                                   "DELETE FROM schema_migrations WHERE version > 5")
                .size(),
            0u);
  PGconn* holder = PQconnectdb(fresh_.db.c_str());
  PQclear(PQexec(holder, "BEGIN; LOCK TABLE strings IN ACCESS EXCLUSIVE MODE"));
  const pid_t child = ::fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    (void)store::open_store(fresh_.db);  // migrates, and waits for `strings`
    ::_exit(4);
  }
  // Until the migration waits for the lock (its INSERT of the rows done).
  bool waiting = false;
  for (int i = 0; i < 600 && !waiting; ++i) {
    waiting =
        !rows_of(fresh_.db,
                 "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE "
                 "'%aicost_charges_month%'")
             .empty();
    if (!waiting) ::usleep(50'000);
  }
  EXPECT_TRUE(waiting) << "the migration never waited for the lock on strings";
  ::kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status));
  // What others see meanwhile: schema 5, one table, every row.
  EXPECT_EQ(rows_of(fresh_.db, "SELECT MAX(version) FROM schema_migrations"),
            std::vector<std::string>{"5"});
  EXPECT_EQ(rows_of(fresh_.db, "SELECT relkind FROM pg_class WHERE oid = 'charges'::regclass"),
            std::vector<std::string>{"r"});
  PQclear(PQexec(holder, "COMMIT"));
  PQfinish(holder);
  // The server ends the dead client's transaction once the statement can go on and its answer
  // cannot be sent; until then the migration lock keeps the next open waiting.
  auto reopened = store::open_store(fresh_.db);
  ASSERT_TRUE(reopened) << reopened.error().what();
  fresh_.store = std::move(*reopened);
  EXPECT_EQ(store().schema_version(), 11);
  EXPECT_EQ(rows_of(fresh_.db, "SELECT COUNT(*) FROM schema_migrations WHERE version = 6"),
            std::vector<std::string>{"1"});
  EXPECT_EQ(rows_of(fresh_.db, kPartitions),
            (std::vector<std::string>{"charges_2024_06", "charges_2024_07", "charges_2024_08"}));
  EXPECT_EQ(rows_of(fresh_.db, "SELECT COUNT(*) FROM charges"), std::vector<std::string>{"3"});
  testing::expect_same_totals(testing::ledger_totals(store()), totals);
}

INSTANTIATE_TEST_SUITE_P(Backends, PartitionTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost
