// Several aggregates over the raw charges from one pass (SqliteReads::aggregate_each): the plan
// (the union of the queries' dimensions and days, their filters as string ids) and a scan of a
// range of rows into one fold per query. Each row goes to the queries whose days and filters it
// meets.
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
  // `db` resolves the filters' values to string ids; `queries` must outlive the plan.
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
  std::span<const ledger::AggregateQuery> queries_;
  ledger::AggregateQuery all_;  // every dimension read, the union of the days
  std::vector<Part> parts_;
  std::vector<char> encoded_;   // per all_.dims: a string id (else text)
};

}  // namespace aicost::store
