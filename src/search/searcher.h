// Private to search: the enumeration of layouts and the estimation and pricing of the candidates
// below each, which run_search (search.cc) spreads over threads.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "aicost/search/search.h"
#include "options.h"
#include "pareto.h"

namespace aicost::search {

// The base job on another GPU type. The plan's own cluster settings (node size, bandwidths) are
// kept for the GPU it names; other types get their reference system's.
workload::TrainingJob with_gpu(const workload::TrainingJob& base, const GpuOption& g);

// One point of the outer dimensions: GPU option, global batch (index), TP, PP, CP, DP, EP.
struct Layout {
  int gpu, batch, tp, pp, cp, dp, ep;
  int gpus() const { return tp * pp * cp * dp; }
};

// What one thread found: its best-k list, fronts and counts, merged by run_search.
struct Partial {
  explicit Partial(const SearchOptions& o)
      : top(o.top, o.objective),
        cost_time(ParetoFront::Metric::kWallDays),
        cost_gpus(ParetoFront::Metric::kGpus) {}
  TopK top;
  ParetoFront cost_time, cost_gpus;
  std::array<double, kRejectionCount> rejected{};
  uint64_t evaluated = 0, feasible = 0, priced = 0;
  // Whether no candidate at or above `bound` (cost and wall days lower bounds) can change the
  // list or the fronts.
  bool rejects_above(const Candidate& bound) const {
    if (!top.rejects_above(bound)) return false;
    if (bound.memory_tight) return true;  // the fronts hold plans that fit
    return cost_gpus.dominates_above(bound) && cost_time.dominates_above(bound);
  }
};

class Searcher {
 public:
  Searcher(const workload::TrainingJob& base, const costing::CostInputs& costs,
           const SearchSpace& space, const Constraints& constraints, const SearchOptions& options);

  // Enumerates layouts, counting the combinations that fail divisibility or the GPU count.
  std::vector<Layout> layouts(std::array<double, kRejectionCount>& rejected, double& enumerated);
  // Estimates every candidate below one layout and keeps what meets the constraints in `out`;
  // `job` is the thread's own copy of job_for(l.gpu).
  void evaluate(const Layout& l, workload::TrainingJob& job, Partial& out) const;
  const workload::TrainingJob& job_for(int gpu) const { return jobs_[gpu]; }

 private:
  double inner_size(const Layout& l) const;
  void place_unbounded(const workload::TrainingJob& job, const perf::TrainingEstimate& est,
                       Candidate c, Partial& out) const;
  void place(const workload::TrainingJob& job, const perf::TrainingEstimate& est, Candidate c,
             Partial& out) const;
  void price(const workload::TrainingJob& job, const perf::TrainingEstimate& est,
             const costing::FailureOverhead& failures, Candidate& c, Partial& out) const;
  static void keep(const Candidate& c, Partial& out);
  std::optional<Rejection> reject(const Candidate& c) const;

  const workload::TrainingJob& base_;
  const SearchSpace& space_;
  const Constraints& constraints_;
  const SearchOptions& options_;
  Dimensions dims_;
  std::vector<workload::TrainingJob> jobs_;              // base per GPU option
  std::vector<std::vector<costing::CostInputs>> costs_;  // per GPU option and price
};

}  // namespace aicost::search
