// Streaming RFC 4180 CSV: a file of any size in bounded memory, one record at a time.
//
// Our own splitter rather than libcsv: libcsv's byte-at-a-time state machine measured ~40
// instructions per byte (callgrind, FOCUS rows of ~720 bytes), a third of the ledger's ingest
// budget; this one scans unquoted fields with memchr-like loops (docs/LEDGER.md, "Speed").
// Lenient where real exports are: a quote inside an unquoted field is kept as text, text after a
// closing quote is appended, CR LF and LF both end records, spaces and tabs around unquoted
// fields are trimmed, and a UTF-8 byte-order mark at the start is skipped.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "aicost/core/result.h"

namespace aicost::core {

struct CsvRecord {
  std::vector<std::string_view> fields;  // valid only during the callback
  std::int64_t line = 0;                 // 1-based line where the record starts
  // The record's bytes as read, separators, quotes and line end included (valid only during the
  // callback): every field is made of these bytes, so a check of them (UTF-8, size) covers every
  // field at once.
  std::string_view raw;
};

// Called for every record (the header too). Returning an error stops the read with that error.
using CsvRecordFn = std::function<Status(const CsvRecord&)>;

class CsvStream {
 public:
  CsvStream(std::string origin, CsvRecordFn on_record);

  Status feed(std::string_view bytes);
  // An unterminated quote at the end is a kParse error naming the line where its record starts.
  Status finish();

 private:
  // Parses complete records at the front of buffer_; returns bytes consumed.
  std::size_t parse(bool at_end, Status& status);

  std::string origin_;
  CsvRecordFn on_record_;
  std::string buffer_;  // bytes not yet consumed (a partial record)
  // Per field index: storage for fields with "" escapes. A deque, so growing it never moves the
  // strings that earlier fields of the same record point into (fuzzing found that use-after-free).
  std::deque<std::string> unquoted_;
  CsvRecord record_;
  std::int64_t line_ = 1;  // line of buffer_[0]
  bool started_ = false;
};

}  // namespace aicost::core
