// Private to report: money in the ledger's renderers (ledger_report.cc,
// ledger_sources_report.cc), exact digits for programs and cents for people.
#pragma once

#include <string>

#include "aicost/core/amount.h"
#include "aicost/report/format.h"
#include "grouping.h"

namespace aicost::report {

inline std::string people(core::WideNanos n) { return group_thousands(core::format_amount(n, 2)); }
inline std::string exact(core::WideNanos n) { return core::format_amount_exact(n); }
// Money for the format: exact digits for programs, cents for people.
inline std::string money(core::WideNanos n, Format f) {
  return f == Format::kTable || f == Format::kMarkdown ? people(n) : exact(n);
}

}  // namespace aicost::report
