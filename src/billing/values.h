// Cell parsing shared by the billing readers: nulls, datetimes, amounts, tag objects, and the
// issue log that turns what cannot be read into RowIssues (repeated ones summarised).
#pragma once

#include <concepts>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "aicost/billing/reader.h"
#include "aicost/core/csv.h"
#include "aicost/ledger/charge.h"

namespace aicost::billing {

using core::CsvRecord;
using core::CsvStream;

// FOCUS null: empty, or the literal NULL/null that real exports write.
bool is_null(std::string_view v);

enum class DateForm {
  kIso,       // 2024-09-01T00:00:00Z (FOCUS)
  kNoZone,    // 2024-09-01 00:00:00 or 2024-09-01T00:00:00 (read as UTC)
  kOffset,    // 2024-09-01T02:00:00+02:00 (converted to UTC)
  kDateOnly,  // 2024-09-01
  kUsDate,    // 9/1/2024, 09/01/2024 (Azure) or 4/1/25, read as month/day/year (20YY)
};
// The years a date may have: a year outside is out of range, not a format error.
inline constexpr int kMinYear = 1900, kMaxYear = 2200;
// Seconds since the epoch, and which form the text used. nullopt for text that is no date-time,
// and for a well-formed one outside kMinYear..kMaxYear (`out_of_range` is then set).
std::optional<ledger::UnixSeconds> parse_datetime(std::string_view v, DateForm* form = nullptr,
                                                  bool* out_of_range = nullptr);
// Whether a time in seconds since the epoch falls in kMinYear..kMaxYear.
bool time_in_range(double seconds);
// "out of range (max 2200-12-31T23:59:59Z)", or the min when `above` is false.
std::string time_out_of_range(bool above);
// Why a cell is not a date-time, for messages: "'x' is not a date-time" or "'2262-01-01' is out
// of range (max 2200-12-31T23:59:59Z)".
std::string not_a_datetime(std::string_view v, bool out_of_range, std::string_view what = "a date-time");

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

class IssueLog {
 public:
  // The row is not loaded.
  void error(std::int64_t line, std::string_view column, std::string message);
  // Loaded, with a caveat about this cell.
  void warn(std::int64_t line, std::string_view column, std::string message);
  // The same caveat on many rows: one issue at the end, with the first line and the count.
  // `make_message` runs only the first time (this sits on the per-row path).
  template <std::invocable MakeMessage>
  void warn_repeated(std::int64_t line, std::string_view column, std::string_view kind,
                     MakeMessage&& make_message) {
    key_.assign(column);
    key_.push_back('\x1f');
    key_.append(kind);
    if (auto it = repeated_.find(key_); it != repeated_.end()) {
      ++it->second.count;
      return;
    }
    repeated_.emplace(key_, Repeated{line, 1, std::string(column), std::string(make_message())});
  }
  void warn_repeated(std::int64_t line, std::string_view column, std::string_view kind,
                     std::string message) {
    warn_repeated(line, column, kind, [&] { return std::move(message); });
  }
  // A file-level note (line 1: the header; Parquet: line 0, the schema).
  void note(std::string_view column, std::string message) { warn(header_line_, column, std::move(message)); }
  void set_header_line(std::int64_t line) { header_line_ = line; }
  // Information on the header that is no fault of the file (severity kNote: `ledger validate`
  // shows it and still passes the file).
  void info(std::string_view column, std::string message) {
    pending_.push_back({header_line_, std::string(column), ledger::RowIssue::Severity::kNote, std::move(message)});
  }
  void flush(const Sink& sink);
  std::int64_t errors() const { return errors_; }

 private:
  struct Repeated {
    std::int64_t first_line = 0;
    std::int64_t count = 0;
    std::string column, message;
  };
  std::vector<ledger::RowIssue> pending_;
  std::map<std::string, Repeated> repeated_;  // by "column\x1fkind"
  std::string key_;                           // scratch
  std::int64_t errors_ = 0;
  std::int64_t header_line_ = 1;
};

// One CSV export dialect: the header sets up column positions, then each record maps to a Charge.
class CsvDialect {
 public:
  virtual ~CsvDialect() = default;
  // kParse/kInvalidInput when the file cannot be this format (a required column is missing).
  virtual core::Status header(const std::vector<std::string_view>& names, IssueLog& log) = 0;
  // false: the row is rejected (an error issue says why).
  virtual bool row(const CsvRecord& rec, ledger::Charge& out, IssueLog& log,
                   std::int64_t& rounded) = 0;
  // The further charges of the record row() read, one per call (an OpenShift pod's hour is a CPU
  // row and a memory row); false when there are no more. They share the first's tags.
  virtual bool next(ledger::Charge& /*out*/) { return false; }
  virtual std::string version() const = 0;
  // Where a row's tags come from, for the issue when they exceed the caps (guard.h).
  virtual std::string_view tags_column() const { return "Tags"; }
};

std::unique_ptr<CsvDialect> make_focus_dialect();
std::unique_ptr<CsvDialect> make_aws_cur_dialect();
std::unique_ptr<CsvDialect> make_azure_dialect();
std::unique_ptr<CsvDialect> make_gcp_dialect();
std::unique_ptr<CsvDialect> make_oci_dialect();
std::unique_ptr<CsvDialect> make_opencost_dialect();  // opencost.cc
std::unique_ptr<CsvDialect> make_ocp_dialect();       // ocp.cc

// Header lookup for dialects: exact name first, then case-insensitive.
class Columns {
 public:
  explicit Columns(const std::vector<std::string_view>& names);
  // Index of the first of `names` present; -1 if none. The column counts as read.
  int find(std::initializer_list<std::string_view> names) const;
  // Whether a column of that name is present, without reading it.
  bool has(std::string_view name) const;
  // Marks column i read (dialects that read columns by prefix, such as tags).
  void mark_read(int i) const;
  const std::vector<std::string>& names() const { return names_; }
  // Columns whose names are equal (ignoring case and surrounding spaces): an error naming both
  // positions when the dialect reads one of them (which one holds the cost?), else a warning.
  // Call at the end of header().
  core::Status check_duplicates(IssueLog& log) const;

 private:
  int index_of(std::string_view name) const;
  std::vector<std::string> names_;
  mutable std::vector<bool> read_;
};

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

// Columns named <prefix><key> (AWS resourceTags/user:team, OCI tags/ns.key): index and key;
// they count as read.
std::vector<std::pair<int, std::string>> tag_columns(const Columns& cols, std::string_view prefix);
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
