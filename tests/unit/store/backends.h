// One store test suite, two backends: SQLite (a temporary file) and PostgreSQL (the server that
// `make test` starts, named by $AICOST_TEST_PG_URL; each test gets its own schema).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "aicost/ledger/query.h"
#include "aicost/ledger/store.h"
#include "temp_dir.h"

namespace aicost::testing {

struct FreshStore {
  std::shared_ptr<TempDir> dir;  // SQLite: the ledger's folder, removed after the store closes
  std::unique_ptr<ledger::Store> store;
  std::string db;           // what --db would say, to reopen it
  std::string skip_reason;  // set when the backend is unavailable here
};

// An empty store. PostgreSQL without $AICOST_TEST_PG_URL is skipped, unless
// $AICOST_TEST_PG_REQUIRED=1 (set by `make test`), where it fails.
FreshStore fresh_store(const std::string& backend);
FreshStore fresh_postgres_store();  // pg_backend.cc

// A --db where no ledger is yet: a PostgreSQL URL of a new schema with no tables (dropped when the
// test process exits). skip_reason as FreshStore's.
struct FreshDb {
  std::string db, skip_reason;
};
FreshDb fresh_postgres_db();  // pg_backend.cc

// Runs `sql` (several statements) on the ledger at `db` (FreshStore::db), either backend
// ("sqlite" or "postgresql"); a failing statement fails the test with the database's message.
void exec(const std::string& backend, const std::string& db, const std::string& sql);
// The rows of one statement on the ledger at `db`, either backend, each row its cells joined by
// '|' (NULL as ""); a failing statement fails the test.
std::vector<std::string> rows_of(const std::string& backend, const std::string& db,
                                 const std::string& sql);
// Each source's totals per currency as `store.sources()` lists them ("id|currency|billed|
// effective" in nano-units, by id then currency), and the same summed here in SQL from the
// source's charges (not through any rollup or source_totals): equal when source_totals is right.
std::vector<std::string> listed_source_totals(ledger::Store& store);
std::vector<std::string> charged_source_totals(const std::string& backend, const std::string& db);

// A test run once per backend (parameter "sqlite" or "postgresql"): SetUp gives it a fresh store,
// or skips it where the backend is unavailable (fails instead when PostgreSQL is required).
class BackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override;
  // The open store. Throws when there is none (an earlier open failed): gtest reports the
  // exception as a failure and the fixture still removes its temporary folder, where a null
  // dereference would end the process and leave the folder behind.
  ledger::Store& store();
  // Closes the store and opens fresh_.db again (migrating it); fails the test when it cannot.
  void reopen();
  // Loads `rows` as one source, a generated FOCUS 1.2 file named `name`, replacing the sources
  // `replace`; returns its id (0, the test failed, when it does not load).
  std::int64_t load(const std::string& name, const std::vector<ledger::Charge>& rows,
                    const std::vector<std::int64_t>& replace = {});
  FreshStore fresh_;
};

// Schemas 11, 10, 9 and 8 undone by hand (either backend; before kUnpartitionCharges): no
// resource-day rollup, no sources' totals, no merged rollup, the rollup without the consumed unit
// and its quantity, no index of the GPU rows. charge_daily's rows stay: those of a schema 7 ledger
// are the same groups summed over the units. schema_migrations is the test's to trim.
inline constexpr const char* kUndoSchema11 =
    "DROP TABLE charge_resource_daily; ALTER TABLE sources DROP COLUMN resource_rollup; ";
inline constexpr const char* kUndoSchema10 =
    "DROP TABLE charge_resource_daily; ALTER TABLE sources DROP COLUMN resource_rollup; "
    "DROP TABLE source_totals;";
inline constexpr const char* kUndoSchema9 =
    "DROP TABLE charge_resource_daily; ALTER TABLE sources DROP COLUMN resource_rollup; "
    "DROP TABLE source_totals; DROP TABLE charge_daily_merged;";
inline constexpr const char* kUndoSchema8 =
    "DROP TABLE charge_resource_daily; ALTER TABLE sources DROP COLUMN resource_rollup; "
    "DROP TABLE source_totals; DROP TABLE charge_daily_merged; DROP INDEX charges_gpu_day; "
    "ALTER TABLE charge_daily DROP "
    "COLUMN consumed_unit_sid; "
    "ALTER TABLE charge_daily DROP COLUMN consumed_quantity;";

// PostgreSQL's schema 6 undone by hand (`charges` one table again, as aicost 5 left it), for tests
// that make an older ledger; schema_migrations is the test's to trim.
inline constexpr const char* kUnpartitionCharges = R"SQL(
  CREATE TABLE charges_plain (LIKE charges INCLUDING DEFAULTS);
  INSERT INTO charges_plain SELECT * FROM charges;
  DROP VIEW charges_text; DROP TABLE charges;
  ALTER TABLE charges_plain RENAME TO charges;
  ALTER TABLE charges ADD FOREIGN KEY (source_id) REFERENCES sources (id);
  CREATE INDEX charges_source ON charges (source_id);
  DROP FUNCTION aicost_charges_month(integer);)SQL";

// Totals per currency over everything in `store`, read through the report path.
std::map<std::string, ledger::Sums> ledger_totals(ledger::Store& store);
// The same currencies, each with the same billed, effective and list cost and rows.
void expect_same_totals(const std::map<std::string, ledger::Sums>& a,
                        const std::map<std::string, ledger::Sums>& b);

}  // namespace aicost::testing
