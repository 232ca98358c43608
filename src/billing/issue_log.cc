#include "issue_log.h"

#include <algorithm>

namespace aicost::billing {

void IssueLog::error(std::int64_t line, std::string_view column, std::string message) {
  ++errors_;
  pending_.push_back(
      {line, std::string(column), ledger::RowIssue::Severity::kError, std::move(message)});
}

void IssueLog::warn(std::int64_t line, std::string_view column, std::string message) {
  pending_.push_back(
      {line, std::string(column), ledger::RowIssue::Severity::kWarning, std::move(message)});
}

void IssueLog::flush(const Sink& sink) {
  for (auto& [key, r] : repeated_) {
    std::string msg = r.message;
    if (r.count > 1) msg += " (" + std::to_string(r.count) + " rows, the first here)";
    pending_.push_back(
        {r.first_line, r.column, ledger::RowIssue::Severity::kWarning, std::move(msg)});
  }
  repeated_.clear();
  std::stable_sort(
      pending_.begin(), pending_.end(),
      [](const ledger::RowIssue& a, const ledger::RowIssue& b) { return a.line < b.line; });
  if (sink.issue)
    for (auto& i : pending_) sink.issue(std::move(i));
  pending_.clear();
}

}  // namespace aicost::billing
