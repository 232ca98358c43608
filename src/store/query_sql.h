// The SELECTs behind the Store's queries, one text for both backends: only fixed column names are
// spliced in, every value is a parameter (`?` for SQLite, `$n` for PostgreSQL).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aicost/ledger/query.h"
#include "schema.h"

namespace aicost::store {

// The grouped SELECT behind Store::aggregate. Columns out: [day,] one per dims, currency,
// [tagset_id (when q.reads_tags()),]
// billed, effective, list, contracted, gpu_hours, rows, consumed_quantity,
// first day, last day; dimension values as text. Only fixed
// column names are spliced in; every value is a parameter (`?` for SQLite, `$n` for PostgreSQL),
// listed in `params`.
struct AggregateSql {
  std::string sql;
  std::vector<std::string> params;
};
// `resource_rollup`: some source has the resource-day rollup (schema 11); a query that
// fits_resource_rollup then reads it for those sources and the charges for the others.
AggregateSql aggregate_sql(const ledger::AggregateQuery& q, Dialect d,
                           bool resource_rollup = false);
// The rows behind `q` as they are, not grouped, ids not text (but resource_id), for a store that
// groups them itself (SQLite: its GROUP BY sorts, and the grouped SQL joins `strings` per row;
// a hash map over the ids is several times faster): the rows of the daily rollup merged across
// sources (charge_daily_merged) where it can answer `q`, else the charges. Columns out: day, one
// per dims (an id; resource_id as text), currency_sid, tagset_id, billed, effective, list,
// contracted, gpu_hours, rows, consumed_quantity (with `resource_rollup`, as aggregate_sql: the
// resource-day rollup's rows and the other sources' charges). `also`: more conditions the rows must
// meet (fixed SQL); `index`: SQLite's " INDEXED BY name" or " NOT INDEXED" after the charges (fixed
// SQL; not for the rollup). With a `row_function` (SQLite), those columns are its arguments after
// the parameter `:scan` (numbered before the others), and the one column out is count(...) of its
// results (MultiScan::scan: a row's values reach the function without a call per column).
AggregateSql scan_sql(const ledger::AggregateQuery& q, Dialect d,
                      const std::vector<std::string>& also = {}, const std::string& index = {},
                      const std::string& row_function = {}, bool resource_rollup = false);
// Whether the daily rollup answers `q` (else it reads the raw charges).
bool from_rollup(const ledger::AggregateQuery& q);
// Whether the resource-day rollup can (charge_resource_daily, schema 11): `q` reads resource
// dimensions (ledger::kResourceRollupDims) that the daily rollup lacks, all of its dimensions and
// filters are in that rollup, and not GPU rows only. Tags are read from the tag set either way.
bool fits_resource_rollup(const ledger::AggregateQuery& q);
// The rows of the sources with the resource-day rollup and of all sources (sources.rows): one row.
inline constexpr const char* kResourceRollupShare =
    "SELECT COALESCE(SUM(CASE WHEN resource_rollup = 1 THEN rows ELSE 0 END), 0), "
    "COALESCE(SUM(rows), 0) FROM sources";
// Whether a query that fits reads the resource-day rollup, from kResourceRollupShare's row: where
// the sources that have it hold most of the rows. The charges of the others are read through a
// UNION ALL, which costs SQLite more per row than its plain scan (a 10M ledger whose 100 sources
// were all raw but one: its check 3.3-4.3 s of CPU against 2.4-2.9 s read raw), so a ledger of
// mostly raw sources reads them all raw.
inline bool use_resource_rollup(std::int64_t rollup_rows, std::int64_t all_rows) {
  return rollup_rows > 0 && rollup_rows * 2 > all_rows;
}
// From gpu_hourly. Columns out: host, day, metric, mean value, samples.
AggregateSql gpu_activity_sql(std::optional<ledger::Day> from, std::optional<ledger::Day> to,
                              Dialect d);
// Columns out: host, gpu, hour, metric, sum, samples (activity metrics, and FB_USED when
// `with_memory`), one row per source and in no order: LedgerBase::gpu_hours sorts and sums them
// as ledger::merge_gpu_hours would (faster than SQLite's sorter).
AggregateSql gpu_hours_sql(std::optional<ledger::Day> from, std::optional<ledger::Day> to,
                           Dialect d, bool with_memory = false);

}  // namespace aicost::store
