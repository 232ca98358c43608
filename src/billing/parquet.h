// Parquet exports (FOCUS and AWS CUR 2.0 are often delivered so), read with DuckDB's C library and
// handed to the same readers as CSV, as records of text (docs/LEDGER.md, "Parquet").
#pragma once

#include <string>
#include <string_view>

#include "aicost/core/csv.h"
#include "aicost/core/result.h"

namespace aicost::billing {

// Whether a file's first bytes are a Parquet file's (the magic "PAR1").
bool is_parquet(std::string_view head);

// Streams the Parquet file open as `fd` (read through /proc/self/fd, so what is read is the file
// that was opened and hashed; `path` names it in messages) to `on_record`: first a header record
// of the column names (line 0: the file's schema), then one record per row, whose line is the
// 1-based row number in the file. Every cell is the text a CSV export of the same data holds:
//   - DECIMAL: its exact decimal text ("0.000000040000"), so amounts stay exact;
//   - DOUBLE and FLOAT: the shortest text that reads back as the same binary value ("0.1",
//   "1e-07"),
//     as DuckDB, pandas or Spark write it to CSV; the readers then take that decimal text exactly;
//   - TIMESTAMP (any unit) and TIMESTAMP WITH TIME ZONE: ISO 8601 in UTC, "2024-09-01T00:00:00Z"
//     (with ".ffffffZ" when there are fractions of a second); DATE: "2024-09-01T00:00:00Z";
//   - MAP, STRUCT and LIST (FOCUS Tags as a map): their JSON text;
//   - binary columns written without a string annotation: their bytes (the readers check UTF-8);
//   - NULL: an empty cell (a FOCUS null); everything else: DuckDB's text of it.
// Memory is bounded: rows come one chunk (2,048 rows) at a time from a streaming query on one
// thread with a 256 MB memory limit. A file DuckDB cannot read (no Parquet footer, a corrupt
// page) is a kParse error naming the file; an error of `on_record` stops the read and is returned.
core::Status read_parquet_records(int fd, const std::string& path,
                                  const core::CsvRecordFn& on_record);

}  // namespace aicost::billing
