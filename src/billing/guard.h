// What every reader does to a record before a dialect sees it, and to a row's tags after: the
// byte policy and the caps on absurd rows (docs/LEDGER.md, "Bad input").
//
// Bytes: a cell (or header name, or telemetry line) that is not well-formed UTF-8, or holds a NUL,
// is repaired: each bad sequence becomes U+FFFD (core::utf8_repair) and the row loads with its
// money. One warning per column names the first line, the byte and the count of rows, so
// `ledger validate` flags the file and nothing invalid ever reaches a store. The file's SHA-256
// stays that of its original bytes (it is taken before any of this).
//
// Caps, each far above what a cloud allows, so only a broken or hostile file meets them; a row
// over one is rejected with an error naming the cap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "aicost/ledger/charge.h"
#include "cells.h"

namespace aicost::billing {

// One cell: 1 MiB. The longest real cells are Tags objects: 50 tags of a 128-character key and a
// 256-character value (AWS's limits) is about 20 KB.
inline constexpr std::size_t kMaxCellBytes = std::size_t{1} << 20;
// Tags on one row: 1,000. AWS allows 50 user tags per resource, Azure 50, GCP 64 labels.
inline constexpr std::size_t kMaxTagsPerRow = 1000;
// A tag key: 2,048 bytes. AWS allows 128 characters, GCP 63, Azure 512 (at most 2,048 bytes of
// UTF-8).
inline constexpr std::size_t kMaxTagKeyBytes = 2048;
// A tag value: 8,192 bytes. AWS and Azure allow 256 characters (at most 1,024 bytes), GCP 63.
inline constexpr std::size_t kMaxTagValueBytes = 8192;

// Checks and repairs the cells of CSV records. Clean records (nearly all) are passed through as
// they are: the record's bytes are scanned once, eight ASCII bytes at a time, and nothing is
// copied.
class CellGuard {
 public:
  // The header: names repaired (warned by position); the names are kept for the rows' warnings.
  const CsvRecord& header(const CsvRecord& r, IssueLog& log);
  // A row: `r` itself when every cell is clean; else a record whose bad cells are repaired
  // copies (valid until the next call). nullptr when a cell exceeds kMaxCellBytes: the row is
  // rejected with an error issue.
  const CsvRecord* row(const CsvRecord& r, IssueLog& log);

 private:
  const CsvRecord& repair(const CsvRecord& r, IssueLog& log, bool header);
  std::string_view column_name(std::size_t i) const;

  std::vector<std::string> names_;  // the header's names, repaired
  CsvRecord repaired_;
  std::deque<std::string> storage_;  // the repaired cells; a deque, so views into it stay valid
  std::string scratch_;
};

// The warning for a repaired text: what the first bad byte was and where (1-based byte column
// within `text`), with the repaired excerpt. Shared by the CSV and Prometheus readers.
std::string repair_message(std::string_view text, std::string_view repaired);

// false (and an error issue naming the cap) when a row's tags exceed kMaxTagsPerRow or a key or
// value exceeds its cap. `column` names where the tags came from (Tags, labels, resourceTags/).
bool tags_within_caps(const std::vector<ledger::Tag>& tags, std::int64_t line,
                      std::string_view column, IssueLog& log);

}  // namespace aicost::billing
