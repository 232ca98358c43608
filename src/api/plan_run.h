// Plan -> estimate, shared by estimate, diff and reliability.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "aicost/api/api.h"
#include "aicost/config/plan.h"
#include "aicost/config/serving_plan.h"
#include "aicost/costing/cost_model.h"
#include "aicost/costing/interval.h"
#include "aicost/perf/estimate.h"
#include "aicost/report/estimate_report.h"
#include "aicost/report/serving_report.h"
#include "aicost/serving/fleet.h"

namespace aicost::api {

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

// Loads and estimates a training plan. A plan that does not fit in memory is a kInfeasible error
// listing what would fit, unless `allow_oom` (then a warning).
core::Result<PlanRun> run_plan(const PlanSource& src, const catalog::Catalog& cat, bool allow_oom);

// Keeps what `progress` returns alive for a scope; nothing when it is empty.
inline std::shared_ptr<void> start_progress(const Progress& progress, const char* label,
                                            const std::atomic<uint64_t>& done, uint64_t total) {
  return progress ? progress(label, done, total) : nullptr;
}

// A serving plan and its fleet; `view` points into both, so a ServingRun stays where it is made.
struct ServingRun {
  config::ServingPlan plan;
  serving::Fleet fleet;
  report::ServingView view;  // without the SLA-cost matrix, policies and `unreachable`
};

// Parses and sizes a serving plan (`conservative`: on the pessimistic end of each interval).
core::Result<std::unique_ptr<ServingRun>> run_serving_plan(const PlanSource& src,
                                                           const catalog::Catalog& cat,
                                                           bool conservative);

// The serving half of `estimate` and `search`.
core::Result<Output> estimate_serving(const PlanSource& src, const catalog::Catalog& cat,
                                      report::Format fmt, const std::string& replicas_csv,
                                      bool conservative, bool charts = false);

}  // namespace aicost::api
