// Cell parsing shared by the billing readers: nulls, amounts, quantities, currencies and tag
// objects, each unreadable cell reported to the IssueLog (date-times: datetime.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "aicost/core/csv.h"
#include "aicost/ledger/charge.h"
#include "datetime.h"
#include "issue_log.h"

namespace aicost::billing {

using core::CsvRecord;
using core::CsvStream;

// FOCUS null: empty, or the literal NULL/null that real exports write.
bool is_null(std::string_view v);

// A cell quoted for a message: its first 40 bytes, never cut inside a UTF-8 character.
std::string quote_cell(std::string_view v);

// A JSON object of scalars ({"team": "ml", "x": true}); values other than strings become their
// JSON text. `braceless` is set when the text only parsed once wrapped in {} (Azure). Nested
// values are skipped and named in `skipped`.
struct ParsedTags {
  std::vector<ledger::Tag> tags;
  bool braceless = false;
  std::vector<std::string> skipped;
  bool repaired = false;  // a key or value held a NUL (JSON \u0000), replaced by U+FFFD
};
std::optional<ParsedTags> parse_tag_object(std::string_view v);

// Cell `i` of a record, or "" when i < 0 or the record is short.
inline std::string_view cell(const CsvRecord& r, int i) {
  return i >= 0 && static_cast<std::size_t>(i) < r.fields.size()
             ? r.fields[static_cast<std::size_t>(i)]
             : std::string_view{};
}

// An amount cell. Rounding below 1e-9 is noted in the log; what a null or unreadable value means
// is the dialect's call.
struct AmountCell {
  std::optional<std::int64_t> value;
  bool null = false;
  bool bad = false;           // present but not a decimal number, or out of range
  bool out_of_range = false;  // a decimal number beyond what one amount holds (core/amount.h)
  std::string_view cell;      // the cell, trimmed (a view into the record)
  // Why a bad cell is bad: "'1,5' is not a decimal number" or "'9.3e9' is out of range (max
  // ±9223372036.854775807)".
  std::string why_not() const;
};
AmountCell amount_cell(const CsvRecord& r, int i, std::string_view column, IssueLog& log,
                       std::int64_t& rounded);
std::optional<double> quantity_cell(const CsvRecord& r, int i, std::string_view column,
                                    IssueLog& log);

// Small helpers shared by the dialects.

// A text cell; "" for a null.
std::string text_cell(const CsvRecord& r, int i);

// The date-time in column i, or an error issue (the caller rejects the row) when it is null or
// not a date-time. `form` says how it was written.
std::optional<ledger::UnixSeconds> required_time(const CsvRecord& r, int i, std::string_view column,
                                                 IssueLog& log, DateForm* form = nullptr);

// The cost in column i, or an error issue (the caller rejects the row) when it is null or
// unreadable.
std::optional<std::int64_t> required_cost(const CsvRecord& r, int i, std::string_view column,
                                          IssueLog& log, std::int64_t& rounded);

// The cost in column i; `fallback` (named in the issue) when the column is absent, null or
// unreadable.
std::int64_t cost_or(const CsvRecord& r, int i, std::string_view column, std::int64_t fallback,
                     std::string_view fallback_name, IssueLog& log, std::int64_t& rounded);

// The ISO 4217 code in column i, upper-cased ("usd" is USD); XXX (no currency) when the column
// is absent or the cell null. A code ISO 4217 does not list is kept with a warning.
std::string currency_cell(const CsvRecord& r, int i, std::string_view column, IssueLog& log);

// A tag for every non-null cell of those columns.
void add_tag_cells(const CsvRecord& r, const std::vector<std::pair<int, std::string>>& tag_cols,
                   std::vector<ledger::Tag>& tags);

// Reads a Tags cell holding a JSON object (FOCUS, Azure); braces the export left out and nested
// values (skipped) are noted; a cell that is no object leaves the row untagged, with a warning.
// Exports repeat the same few tag texts on millions of rows, so parses are cached by text.
class TagReader {
 public:
  void read(const CsvRecord& r, int i, std::string_view column, std::vector<ledger::Tag>& tags,
            IssueLog& log);

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::optional<ParsedTags>, Hash, std::equal_to<>> cache_;
  std::size_t cached_bytes_ = 0;  // of the texts in cache_
};

// 00:00 UTC on the first day of the month holding t (billing periods when the export has none).
ledger::UnixSeconds month_start(ledger::UnixSeconds t);

}  // namespace aicost::billing
