// Plan against actual for a run budget with a plan (`aicost estimate -o json`): cost by category
// against the plan's, GPU-hours against the plan's, and the run's GPUs' measured activity against
// the efficiency floor the budget sets.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/governance/budget.h"
#include "aicost/ledger/store.h"

namespace aicost::governance {

// The plan's cost category a FOCUS ServiceCategory falls in: "compute" (Compute, AI and Machine
// Learning), "storage", "network" (Networking), "database" (Databases), "monitoring" (Management
// and Governance), "security"; "other" for the rest.
std::string plan_category(const std::string& service_category);

struct CategoryVariance {
  std::string category;
  double planned = 0;          // the plan's whole-run cost of the category, currency units
  double planned_to_date = 0;  // planned × the share of the run's planned days elapsed
  double actual = 0;           // spent so far
  double variance() const { return actual - planned_to_date; }
};

struct PlanVsActual {
  std::string budget, plan_source, currency;
  double planned_days = 0, elapsed_days = 0;
  double planned_cost = 0, actual_cost = 0;
  double planned_gpu_hours = 0, actual_gpu_hours = 0;
  double planned_mfu = 0;
  std::optional<double>
      activity;  // mean SM_ACTIVE (else GR_ENGINE_ACTIVE) over the run's GPU-hours
  std::optional<double> efficiency_floor;  // the budget's floor on that activity
  std::vector<CategoryVariance>
      categories;  // the plan's categories, then any it lacks; none 0 in both
  std::vector<std::string> warnings;
};

// For `b` (a run budget with a plan) as of `as_of`. `aliases` as for reports.
core::Result<PlanVsActual> plan_vs_actual(
    ledger::Store& store, const Budget& b, ledger::Day as_of,
    const std::map<std::string, std::vector<std::string>>& aliases);

}  // namespace aicost::governance
