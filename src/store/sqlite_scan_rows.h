// How the rows of a scan reach MultiScan::scan (sqlite_scan.h): each row of its statement is
// handed to an SQL function of ours with its values as arguments, and the function adds them to
// a batch that the scan folds when full. Read that way, a row's values are taken from SQLite's
// registers as they are, without the statement's per-column calls (sqlite3_column_*: a call each,
// with the connection's checks around it; over 4.9M rows of 23 columns, 2.7 s against 1.9 s of
// CPU for the same rows read through the function).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/ledger/query.h"

namespace aicost::store {

// The function's name in SQL: "count(aicost_scan_row(:scan, day, ...))" (query_sql.h scan_sql).
inline constexpr const char* kScanRowFunction = "aicost_scan_row";

// Adds that function to connection `db` (once, when it is opened, before any scan on it).
core::Status register_scan_function(sqlite3* db);

// Rows read and not yet folded: per row its day, cells (the dims read, a text cell's stand-in
// filled in when folded), currency and tag set, and its sums; text cells' bytes and hashes beside.
struct ScanBatch {
  static constexpr std::size_t kRows = 2048;
  std::size_t stride = 0;  // integers per row: cells, currency, tag set
  std::vector<ledger::Day> days;
  std::vector<std::int64_t> cells;
  std::vector<ledger::Sums> sums;
  std::string bytes;                  // text cells, one after another
  std::vector<std::uint32_t> ends;    // where each text cell ends in `bytes`
  std::vector<std::uint64_t> hashes;  // of each text cell
  std::size_t size() const { return days.size(); }
  void clear() {
    days.clear();
    cells.clear();
    sums.clear();
    bytes.clear();
    ends.clear();
    hashes.clear();
  }
};

// What the function fills, bound to a statement as its pointer parameter `:scan`: the batch, and
// the fold of a full one. The function's arguments after it: day, one per dimension read (a string
// id where `encoded`, else text), currency, tag set, billed, effective, list, contracted,
// gpu_hours, rows, consumed_quantity. A failure inside it (out of memory) is kept in `failure`,
// for the caller to rethrow once SQLite has returned: an exception must not unwind through
// SQLite's frames.
struct RowTaker {
  ScanBatch* batch;
  const std::vector<char>* encoded;
  const std::function<void()>* fold;
  std::exception_ptr failure;

  void bind(sqlite3_stmt* s, int param) { sqlite3_bind_pointer(s, param, this, kType, nullptr); }
  static constexpr const char* kType = "aicost::store::RowTaker";
};

}  // namespace aicost::store
