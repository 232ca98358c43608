// The ledger schema, shared by both backends: versioned migrations, applied in order, each in a
// transaction; `schema_migrations` records which ran.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aicost/ledger/query.h"
#include "aicost/ledger/telemetry.h"

namespace aicost::store {

enum class Dialect { kSqlite, kPostgres };

struct Migration {
  int version;
  std::string sql;  // one or more statements separated by ';'
};

std::vector<Migration> migrations(Dialect d);
inline int latest_schema_version() { return 1; }

// The column a dimension lives in (same name in `charges` and `charge_daily`).
const char* dimension_column(ledger::Dimension d);

// The SELECT behind Store::aggregate. Columns out: [day,] one per dims, currency, [tagset_id,]
// billed, effective, list, contracted, gpu_hours, rows. Only fixed column names are spliced in;
// every value is a parameter (`?` for SQLite, `$n` for PostgreSQL), listed in `params`.
struct AggregateSql {
  std::string sql;
  std::vector<std::string> params;
};
AggregateSql aggregate_sql(const ledger::AggregateQuery& q, Dialect d);
// Columns out: host, day, metric, mean value, samples.
AggregateSql gpu_activity_sql(std::optional<ledger::Day> from, std::optional<ledger::Day> to, Dialect d);

}  // namespace aicost::store
