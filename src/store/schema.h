// The ledger schema, shared by both backends: versioned migrations, applied in order, each in a
// transaction; `schema_migrations` records which ran.
#pragma once

#include <string>
#include <vector>

#include "aicost/ledger/query.h"

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

}  // namespace aicost::store
