// A reader Sink that keeps what it is given, for the reader tests.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "aicost/billing/reader.h"

namespace aicost::billing {

struct Collected {
  std::vector<ledger::Charge> charges;
  std::vector<ledger::RowIssue> issues;
  ReadSummary summary;
  Sink sink() {
    Sink s;
    s.charge = [this](ledger::Charge&& c) {
      charges.push_back(std::move(c));
      return core::Status{};
    };
    s.issue = [this](ledger::RowIssue&& i) { issues.push_back(std::move(i)); };
    return s;
  }
  bool has_issue(std::string_view column, std::string_view text) const {
    for (const auto& i : issues)
      if (i.column == column && i.message.find(text) != std::string::npos) return true;
    return false;
  }
  // The error issues, one per line, for failure messages.
  std::string errors() const {
    std::string out;
    for (const auto& i : issues)
      if (i.severity == ledger::RowIssue::Severity::kError)
        out += std::to_string(i.line) + " " + i.column + ": " + i.message + "\n";
    return out;
  }
};

}  // namespace aicost::billing
