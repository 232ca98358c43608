// Budget files (YAML): budgets with scopes, periods, amounts and alert levels; the anomaly and
// forecast settings of `aicost ledger check`. docs/GOVERNANCE.md describes the format.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/governance/budget.h"
#include "aicost/governance/check.h"

namespace aicost::config {

struct BudgetFile {
  std::vector<governance::Budget> budgets;  // resolve_hierarchy'd: parents first, scopes inherited
  governance::CheckOptions options;         // as_of left 0: the caller sets it
};

core::Result<BudgetFile> load_budgets(const std::string& path);

// A plan's estimate as `aicost estimate -o json` writes it, as a run budget reads it.
core::Result<governance::PlanLine> load_plan_line(const std::string& path);

}  // namespace aicost::config
