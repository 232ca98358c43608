// The SQLite store's read side: every query of the Store interface that an ingest does not need
// (reports, telemetry, tag sets, sources). SqliteStore delegates to it.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "aicost/core/cores.h"
#include "aicost/core/result.h"
#include "aicost/ledger/store.h"
#include "aicost/store/open.h"
#include "group_fold.h"
#include "sqlite_scan.h"
#include "sqlite_stmt.h"

namespace aicost::store {

// Tests only: called on the thread of a scan split over connections, after the store's read
// transaction has cut the ranges and before the range connections open (where a writer may
// commit; sqlite_reads.cc checks that each range reads what the store's transaction sees).
inline std::function<void()>& before_range_scans_hook() {
  static std::function<void()> hook;
  return hook;
}

class SqliteReads {
 public:
  // `db` is the store's connection, which outlives this; `path` names it in errors; `options` say
  // how many threads a scan of the raw charges may use; `tagsets` reads every tag set
  // (Store::tagsets).
  using Tagsets = std::function<core::Result<std::map<std::int64_t, std::vector<ledger::Tag>>>()>;
  SqliteReads(sqlite3* db, std::string path, const StoreOptions& options, Tagsets tagsets)
      : db_(db), path_(std::move(path)), options_(options), tagsets_(std::move(tagsets)) {}

  core::Result<std::vector<ledger::AggregateRow>> aggregate(const ledger::AggregateQuery& q);
  // Whether aggregate_into can answer `queries` from one scan: one query, or several that all read
  // the daily rollup or all the raw charges (GPU rows only among them).
  static bool scans_together(std::span<const ledger::AggregateQuery> queries);
  // Store::aggregate_into: the queries answered by one MultiScan (sqlite_scan.h) where
  // scans_together(queries), else one after another. Sums of money are exact; GPU-hours and
  // quantities are summed in floating point, in an order that depends on how many threads read
  // (their last bits may differ from one thread's), the same in every run with as many.
  core::Status aggregate_into(std::span<const ledger::AggregateQuery> queries,
                              const ledger::Store::AggregateSink& sink, std::size_t interleave,
                              std::size_t interleave_from);
  // aggregate_into's rows, collected.
  core::Result<std::vector<std::vector<ledger::AggregateRow>>> aggregate_each(
      std::span<const ledger::AggregateQuery> queries);

 private:
  core::Status exec(const std::string& sql);
  core::Error error(const std::string& what) const;
  // The texts of string ids (GroupFold::Lookup).
  core::Status lookup(const std::vector<std::int64_t>& ids, std::vector<std::string>& texts);
  unsigned threads() const {
    return options_.scan_threads ? options_.scan_threads : core::usable_cores();
  }

  // `plan`'s rows into `folds` (sharing `texts`), read by as many threads as options_ allow when
  // `shared` (the connection is in a read transaction that other connections can share).
  core::Status scan(const MultiScan& plan, std::vector<GroupFold>& folds, TextIds& texts,
                    bool shared);

  sqlite3* db_;
  std::string path_;
  StoreOptions options_;
  Tagsets tagsets_;
};

}  // namespace aicost::store
