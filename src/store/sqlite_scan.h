// Aggregates from one pass over the charges (SqliteReads::aggregate and aggregate_each). One query
// is read as scan_sql gives it (filters in SQL, the daily rollup where it answers). Several are
// read together from the raw charges: the union of their dimensions and days, each row going to
// the queries whose days and filters (as string ids) it meets.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/ledger/query.h"
#include "group_fold.h"

namespace aicost::store {

class MultiScan {
 public:
  // `db` resolves the filters' values to string ids; `queries` must outlive the plan. Several
  // queries must all read raw rows over bounded days (!from_rollup, from and to set).
  static core::Result<MultiScan> plan(sqlite3* db, std::span<const ledger::AggregateQuery> queries);

  // The rows into `folds` (one per query, in order, sharing `texts`).
  core::Status scan(sqlite3* db, std::vector<GroupFold>& folds, TextIds& texts) const;

 private:
  struct Part {
    std::vector<std::size_t> columns;  // the query's dims among all_.dims
    // Filters on one dimension OR together: the column and the ids (or texts) it may hold.
    std::vector<std::pair<std::size_t, std::vector<std::int64_t>>> id_filters;
    std::vector<std::pair<std::size_t, std::vector<std::string>>> text_filters;
  };
  // Where not every source has a charge in all_'s days (a ledger of monthly exports, read for a
  // month): the SQL that reads only the sources that do, as the range of rows they were loaded
  // into (a source's rows are loaded together, so the range holds little else). Empty: every row.
  core::Status prune_sources(sqlite3* db);
  std::string source_sql_;
  std::span<const ledger::AggregateQuery> queries_;
  ledger::AggregateQuery all_;  // every dimension read, the union of the days
  std::vector<Part> parts_;
  std::vector<char> encoded_;   // per all_.dims: a string id (else text)
};

}  // namespace aicost::store
