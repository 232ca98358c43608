// A reader Sink that keeps what it is given, for the reader tests.
#pragma once

#include <gtest/gtest.h>

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

// The value of tag `key` of a charge; nullptr when it has none.
inline const std::string* tag_of(const ledger::Charge& c, std::string_view key) {
  for (const auto& t : c.tags)
    if (t.key == key) return &t.value;
  return nullptr;
}

// Reads `text` as `format` into a Collected, summary too; a read refused whole fails the test.
inline Collected collect(const std::string& text, Format format) {
  Collected c;
  auto r = read_text(text, "t.csv", format, c.sink());
  EXPECT_TRUE(r) << (r ? "" : r.error().what());
  if (r) c.summary = *r;
  return c;
}

// The message of a read refused whole ("" when it was read).
inline std::string refusal(const std::string& text, Format format,
                           const std::string& origin = "t.csv") {
  Collected c;
  auto r = read_text(text, origin, format, c.sink());
  return r ? std::string() : r.error().what();
}

}  // namespace aicost::billing
