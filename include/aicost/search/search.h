// The search: enumerate valid training layouts over a SearchSpace, estimate each with the same
// step and cost models as `aicost estimate`, and keep the best under the constraints.
// Deterministic: the result does not depend on the number of threads (ties are broken by the
// candidate's key, a total order over its choices). Pruning skips whole sub-spaces only with
// order-independent bounds (divisibility, a memory lower bound), so it never removes a feasible
// candidate; it skips pricing a candidate only where the price cannot change the counts, the
// best-k list or the fronts (search.cc, Searcher::place). Thread-safe to call concurrently on
// different inputs.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "aicost/costing/cost_model.h"
#include "aicost/perf/estimate.h"
#include "aicost/search/space.h"

namespace aicost::search {

// One evaluated configuration: indices into the space plus its headline numbers.
struct Candidate {
  int gpu_option = 0;    // index into SearchSpace::gpus
  int price_option = 0;  // index into GpuOption::prices
  int gpus = 0;
  int global_batch = 0;
  workload::Parallelism parallel;
  double step_time_s = 0;
  double wall_days = 0;  // failures included
  double gpu_hours = 0;  // failures included
  double cost_usd = 0;   // total of every category
  double mfu = 0;
  double memory_gib = 0;
  // Over capacity (less the headroom) but within the memory model's error
  // (TrainingJob::memory_margin): kept in the results and marked "tight".
  bool memory_tight = false;
  // Total order used for ties and for determinism.
  std::array<int, 14> key() const;
};

struct SearchOptions {
  Objective objective = Objective::kCheapest;
  int top = 10;
  int threads = 0;  // 0 = all hardware threads
  // Exact pruning (tests turn it off to compare): a memory lower bound per layout, the deadline
  // on the failure-free compute time, and a cost lower bound against the best-k list and fronts.
  bool prune = true;
  std::atomic<uint64_t>* progress = nullptr;  // layouts done, updated as the search runs
  // When set and true, workers stop after the layout at hand and the result says `cancelled`
  // (its lists then hold what was found so far). Read from every worker; set from any thread.
  const std::atomic<bool>* cancel = nullptr;
  // When no plan meets the constraints, search again without each one in turn to say how far it
  // would have to move (SearchResult::closest). Off by default: callers that only rank (the
  // optimiser's levers) do not pay for the extra searches.
  bool explain_infeasible = false;
};

// One constraint a search could not meet, and what the best plan without it reaches: the fastest
// plan for a deadline, the cheapest for a budget, the best MFU for an MFU floor, each meeting the
// other constraints. `plan` is empty when dropping this constraint alone still leaves no plan.
struct Relaxation {
  Rejection constraint =
      Rejection::kMissesDeadline;  // kMissesDeadline, kOverBudget or kBelowMfuFloor
  double limit = 0;                // as given: days, USD, or MFU as a fraction
  double reached = 0;              // the plan's wall days, cost in USD or MFU; 0 without a plan
  std::optional<Candidate> plan;
};

struct SearchResult {
  std::vector<Candidate> top;  // best first under the objective, distinct in their outputs
  // Parallel to `top`: the other layouts with exactly the same outputs as that plan (same GPU,
  // count, price and batch, and the same step time, days, GPU-hours, cost, MFU and memory), by
  // key. They take no place of their own in the list.
  std::vector<std::vector<Candidate>> top_aliases;
  std::vector<Candidate> pareto_cost_time;  // no other candidate is both cheaper and faster
  std::vector<Candidate> pareto_cost_gpus;  // ... both cheaper and on fewer GPUs
  double enumerated = 0;                    // size of the option product (may exceed 2^53: double)
  uint64_t evaluated = 0;                   // candidates that fit, run through the step model
  // Of those, the ones the cost model priced; with pruning, a candidate that misses the deadline
  // on its compute time alone, or whose cost lower bound cannot rank, is classified unpriced.
  uint64_t priced = 0;
  uint64_t feasible = 0;
  std::array<double, kRejectionCount> rejected{};
  uint64_t layouts = 0;    // (gpu, TP, PP, CP, DP, EP) combinations, for progress
  bool cancelled = false;  // SearchOptions::cancel stopped it before the end
  // No plan met the constraints and SearchOptions::explain_infeasible: one entry per constraint
  // given (deadline, budget, MFU floor, in that order).
  std::vector<Relaxation> closest;
};

// `base` supplies the model, tokens, sequence and everything the space does not vary;
// `costs` the non-compute cost inputs (their compute pricing is replaced per candidate).
SearchResult run_search(const workload::TrainingJob& base, const costing::CostInputs& costs,
                        const SearchSpace& space, const Constraints& constraints,
                        const SearchOptions& options);

// Number of (gpu, TP, PP, CP, DP, EP) layouts the search will visit (for a progress bar).
uint64_t count_layouts(const workload::TrainingJob& base, const SearchSpace& space);

// Rebuilds the full TrainingJob and CostInputs of a candidate (for reports and --emit-plan).
workload::TrainingJob job_of(const workload::TrainingJob& base, const SearchSpace& space,
                             const Candidate& c);
costing::CostInputs costs_of(const costing::CostInputs& costs, const SearchSpace& space,
                             const Candidate& c);

}  // namespace aicost::search
