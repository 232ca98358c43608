// `aicost optimize --db LEDGER` as text: the ledger levers ranked by monthly saving, the changes
// with their risk and rollout, the levers that did not apply, and the accepted ones together.
// JSON and CSV keep the plan optimiser's shape (docs/OPTIMIZE.md "Ledger", docs/JSON_OUTPUT.md).
#pragma once

#include <string>

#include "aicost/optimize/ledger_levers.h"
#include "aicost/report/format.h"

namespace aicost::report {

// `ledger` is the --db as shown (passwords redacted by the caller).
std::string render_ledger_optimize(const optimize::LedgerOptimizeResult& result,
                                   const std::string& ledger, ledger::Day as_of, Format format);

}  // namespace aicost::report
