// Aggregates from one pass over the charges (SqliteReads::aggregate_into). One query is read as
// scan_sql gives it (filters in SQL, the daily rollup where it answers). Several are read together
// from the daily rollup where each can be, else from the raw charges: the union of their
// dimensions and days, each row going to the queries whose days and filters (as string ids) it
// meets.
#pragma once

#include <sqlite3.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/ledger/query.h"
#include "group_fold.h"

namespace aicost::store {

// Threads that fold rows into the same groups, a batch at a time, taking turns in a fixed round
// (the threads still reading, in order): the folds see the rows in the same order in every run, so
// floating-point sums come out the same, and the groups are held once, not once per thread.
class FoldTurns {
 public:
  explicit FoldTurns(std::size_t threads) : gone_(threads, false), passes_(threads, 0) {}
  void wait(std::size_t thread);   // until it is `thread`'s turn
  void pass(std::size_t thread);   // to the next thread still reading
  void leave(std::size_t thread);  // `thread` has no more batches (done, or failed)
  // The batches `thread` has folded (after it left).
  std::size_t passes(std::size_t thread) {
    const std::lock_guard lock(m_);
    return passes_[thread];
  }

 private:
  void next(std::size_t thread);  // the turn after `thread`'s (locked)
  std::mutex m_;
  std::condition_variable cv_;
  std::size_t turn_ = 0;
  std::vector<bool> gone_;
  std::vector<std::size_t> passes_;
};

// Adds the function MultiScan::scan reads rows through to connection `db` (once, before any
// scan on it).
core::Status register_scan_function(sqlite3* db);

class MultiScan {
 public:
  // `db` resolves the filters' values to string ids; `queries` must outlive the plan. Several
  // queries must all read the rollup, or all raw rows (a query of GPU rows only among them
  // is filtered as its rows are folded).
  static core::Result<MultiScan> plan(sqlite3* db, std::span<const ledger::AggregateQuery> queries);

  // Rowids of charges, first to last (empty when first > last).
  struct RowRange {
    std::int64_t first = 1, last = 0;
    std::int64_t size() const { return last >= first ? last - first + 1 : 0; }
  };
  // The charges a raw scan reads, as ranges of rowids of about equal size, in order, for scans on
  // several connections at once: at most `parts`, each of `min_rows` at least (one when fewer);
  // none when the scan reads the daily rollup (it is not split).
  core::Result<std::vector<RowRange>> split(sqlite3* db, std::size_t parts,
                                            std::int64_t min_rows) const;

  // The rows into `folds` (one per query, in order, sharing `texts`): all of them, or those in
  // `part` (one of split()'s). Rows are read in batches; with `turns`, several threads scan
  // parts into the same folds and each batch is folded in the turn of `thread` (which leaves the
  // turns when the scan ends, however it ends). `db` has register_scan_function's function.
  core::Status scan(sqlite3* db, std::vector<GroupFold>& folds, TextIds& texts,
                    const RowRange* part = nullptr, FoldTurns* turns = nullptr,
                    std::size_t thread = 0) const;

 private:
  struct Part {
    std::vector<std::size_t> columns;  // the query's dims among all_.dims
    // Filters on one dimension OR together: the column and the ids (or texts) it may hold.
    std::vector<std::pair<std::size_t, std::vector<std::int64_t>>> id_filters;
    std::vector<std::pair<std::size_t, std::vector<std::string>>> text_filters;
  };
  // Where not every source has a charge in all_'s days (a ledger of monthly exports, read for a
  // month): reads only the sources that do, as the range of rows they were loaded into (a
  // source's rows are loaded together, so the range holds little else).
  core::Status prune_sources(sqlite3* db);
  // A query of the GPU rows of some days (one query, gpu_rows_only, a day range): counts them
  // through the partial index `charges_gpu_day` (schema 8). None: the scan reads nothing. Few
  // against the rows a scan would read: the scan reads them through that index; else it reads
  // the rows in order, as without the index (a seek per row costs more than a row read in turn).
  core::Status count_gpu_rows(sqlite3* db);
  // Where the queries fit the resource-day rollup (schema 11) and use_resource_rollup: the scan
  // reads its rows for those sources and the charges of the others (scan_sql), in one scan, not
  // pruned or split (the others' charges found through the index on source_id).
  core::Status choose_resource_rollup(sqlite3* db);
  bool resource_rollup_ = false;
  bool nothing_ = false;  // no row can match
  std::string index_;     // after "FROM charges": " INDEXED BY ...", " NOT INDEXED" or empty
  std::optional<RowRange> pruned_;  // the sources' rows (none: every row)
  std::string sources_in_;          // their ids, a condition on source_id (empty: any)
  std::span<const ledger::AggregateQuery> queries_;
  ledger::AggregateQuery all_;  // every dimension read, the union of the days
  std::vector<Part> parts_;
  std::vector<char> encoded_;  // per all_.dims: a string id (else text)
};

}  // namespace aicost::store
