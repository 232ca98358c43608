// Plan file -> estimate, shared by `estimate` and `diff`.
#pragma once

#include <string>

#include "aicost/catalog/catalog.h"
#include "aicost/config/plan.h"
#include "aicost/costing/cost_model.h"
#include "aicost/costing/interval.h"
#include "aicost/perf/estimate.h"
#include "aicost/report/estimate_report.h"

namespace aicost::app {

struct PlanRun {
  config::Plan plan;
  perf::TrainingEstimate perf;
  costing::CostEstimate cost;
  std::vector<std::string> warnings;
  costing::EstimateInterval interval;
  report::EstimateView view() const {
    report::EstimateView v{plan.name, &plan.job, &perf, &cost, warnings, &plan.cost};
    v.interval = &interval;
    return v;
  }
};

// Loads and estimates a plan. A plan that does not fit in memory is a kInfeasible error listing
// what would fit, unless `allow_oom` (then a warning).
core::Result<PlanRun> run_plan(const std::string& path, const catalog::Catalog& cat,
                               bool allow_oom);

}  // namespace aicost::app
