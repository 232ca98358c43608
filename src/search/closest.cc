#include "closest.h"

namespace aicost::search {

namespace {

// The best plan without constraint `drop` (and ranked on its measure), or none.
Relaxation without(Rejection drop, double limit, Objective objective, Constraints relaxed,
                   const workload::TrainingJob& base, const costing::CostInputs& costs,
                   const SearchSpace& space, const SearchOptions& options) {
  SearchOptions o = options;
  o.objective = objective;
  o.top = 1;
  o.progress = nullptr;          // the bar showed the search the user asked for
  o.explain_infeasible = false;  // one level: the relaxed searches do not explain themselves
  const SearchResult r = run_search(base, costs, space, relaxed, o);
  Relaxation x;
  x.constraint = drop;
  x.limit = limit;
  if (!r.top.empty()) {
    x.plan = r.top.front();
    x.reached = drop == Rejection::kMissesDeadline ? x.plan->wall_days
                : drop == Rejection::kOverBudget   ? x.plan->cost_usd
                                                   : x.plan->mfu;
  }
  return x;
}

}  // namespace

std::vector<Relaxation> closest_plans(const workload::TrainingJob& base,
                                      const costing::CostInputs& costs, const SearchSpace& space,
                                      const Constraints& constraints,
                                      const SearchOptions& options) {
  std::vector<Relaxation> out;
  if (constraints.deadline_days) {
    Constraints c = constraints;
    c.deadline_days.reset();
    out.push_back(without(Rejection::kMissesDeadline, *constraints.deadline_days,
                          Objective::kFastest, c, base, costs, space, options));
  }
  if (constraints.budget_usd) {
    Constraints c = constraints;
    c.budget_usd.reset();
    out.push_back(without(Rejection::kOverBudget, *constraints.budget_usd, Objective::kCheapest, c,
                          base, costs, space, options));
  }
  if (constraints.min_mfu) {
    Constraints c = constraints;
    c.min_mfu.reset();
    out.push_back(without(Rejection::kBelowMfuFloor, *constraints.min_mfu, Objective::kBestMfu, c,
                          base, costs, space, options));
  }
  return out;
}

}  // namespace aicost::search
