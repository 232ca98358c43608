// What came closest when a search finds no plan (SearchResult::closest).
#pragma once

#include <vector>

#include "aicost/search/search.h"

namespace aicost::search {

// For each constraint given, the best plan on that constraint's own measure that meets the others:
// a search with that constraint dropped and the objective that optimises it. Deterministic, as
// run_search is.
std::vector<Relaxation> closest_plans(const workload::TrainingJob& base,
                                      const costing::CostInputs& costs, const SearchSpace& space,
                                      const Constraints& constraints, const SearchOptions& options);

}  // namespace aicost::search
