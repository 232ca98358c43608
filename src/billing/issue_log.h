// The issue log of a read: what cannot be read becomes RowIssues, repeated ones summarised.
#pragma once

#include <concepts>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aicost/billing/reader.h"
#include "aicost/ledger/charge.h"

namespace aicost::billing {

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
  void note(std::string_view column, std::string message) {
    warn(header_line_, column, std::move(message));
  }
  void set_header_line(std::int64_t line) { header_line_ = line; }
  // Information on the header that is no fault of the file (severity kNote: `ledger validate`
  // shows it and still passes the file).
  void info(std::string_view column, std::string message) {
    pending_.push_back(
        {header_line_, std::string(column), ledger::RowIssue::Severity::kNote, std::move(message)});
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

}  // namespace aicost::billing
