// Output formats of every report: `-o table|json|csv|markdown|html` (docs/JSON_OUTPUT.md for json,
// docs/REPORTS.md for html).
#pragma once

#include <optional>
#include <string_view>

namespace aicost::report {

enum class Format {
  kTable,     // for people: plain ASCII, padded columns; may change between releases
  kJson,      // for programs: stable, documented in docs/JSON_OUTPUT.md
  kCsv,       // for spreadsheets: RFC 4180 quoting, stable columns
  kMarkdown,  // GitHub-flavoured pipe tables, for pasting into issues and docs
  kHtml,      // one self-contained page: Vega-Lite charts and the table, for people (report/html.h)
};

// "table", "json", "csv", "markdown" or "md", "html" (case-insensitive); nullopt for anything else.
std::optional<Format> format_from_string(std::string_view name);

// "table", "json", "csv", "markdown", "html".
const char* to_string(Format f);

}  // namespace aicost::report
