// What `aicost search` prints: the accounting of the search, the top plans under the objective,
// and the Pareto fronts of cost against time and against GPU count.
#pragma once

#include <string>
#include <vector>

#include "aicost/costing/cost_model.h"
#include "aicost/perf/interval.h"
#include "aicost/report/format.h"
#include "aicost/search/search.h"

namespace aicost::report {

struct SearchView {
  std::string plan_name;
  const search::SearchSpace* space = nullptr;
  const search::SearchResult* result = nullptr;
  search::Objective objective = search::Objective::kCheapest;
  const search::Constraints* constraints = nullptr;
  // The full cost estimate of each top plan (same order as result->top), for its categories.
  std::vector<costing::CostEstimate> top_costs;
  std::vector<std::string> notes;
  // The 80 % interval of each GPU option (parallel to space->gpus; empty: none shown). A plan
  // whose interval on the objective overlaps the winner's is marked: the ranking between them is
  // within the model's error (docs/SEARCH.md).
  std::vector<perf::Interval> gpu_intervals;
};

// kTable/kMarkdown: sections for people; kJson: documented in docs/SEARCH.md; kCsv: one row per
// listed plan with a `set` column (top | pareto_cost_time | pareto_cost_gpus). No timings, so
// the output is the same on every run.
std::string render_search(const SearchView& view, Format format);

}  // namespace aicost::report
