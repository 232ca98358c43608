// The read side of `aicost ledger report` and `aicost ledger check` as library calls: the CLI and
// `aicost serve` (src/dashboard) build the same request from the same words and read the ledger
// through the same calls, so the dashboard's /api JSON is the CLI's `-o json`.
//
// Nothing here opens a ledger, sends, records or prints: the caller passes an open ledger::Store.
// Thread safety: no shared state; a Store is used by one call at a time.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "aicost/config/budgets.h"
#include "aicost/core/result.h"
#include "aicost/governance/check.h"
#include "aicost/ledger/report.h"
#include "aicost/ledger/store.h"

namespace aicost::api {

// `aicost ledger report`'s options as typed (empty: not given).
struct LedgerReportQuery {
  std::string by;                    // comma-separated dimensions or tag:KEY
  std::string from, to;              // YYYY-MM-DD or YYYY-MM (the 1st); `to` is left out
  std::string granularity = "total";
  std::size_t top = 0;
  std::vector<std::string> filters;  // DIMENSION=VALUE
  std::vector<std::string> aliases;  // KEY=OTHER[,OTHER...]
  bool useful = false;
};
// The request those words make; an error names the option (--by, --from, ...) that is wrong.
core::Result<ledger::ReportRequest> report_request(const LedgerReportQuery& q);

// A --as-of day, YYYY-MM-DD; "" is today (UTC). `option` names it in errors.
core::Result<ledger::Day> as_of_day(const std::string& text, const char* option = "--as-of");

// `aicost ledger check`'s reading of the ledger, without sending or recording anything.
struct LedgerCheckQuery {
  std::string budgets;   // the budget file (YAML)
  std::string as_of;     // as for as_of_day
  bool strict = false;
  int stale_after_days = 3;
};
// The budget file with the check's options set from `q` (as_of, strict, stale_after_days).
core::Result<config::BudgetFile> check_budgets(const LedgerCheckQuery& q);
// Reads what was sent before (Store::sent_alerts) and runs governance::run_check over `budgets`.
core::Result<governance::CheckResult> ledger_check(ledger::Store& store, const config::BudgetFile& budgets);

}  // namespace aicost::api
