#include "aicost/search/search.h"

#include <algorithm>
#include <thread>

#include "closest.h"
#include "searcher.h"

namespace aicost::search {

const char* to_string(Objective o) {
  switch (o) {
    case Objective::kCheapest: return "cheapest";
    case Objective::kFastest: return "fastest";
    case Objective::kBestMfu: return "best-mfu";
  }
  return "?";
}

const char* to_string(Rejection r) {
  switch (r) {
    case Rejection::kDoesNotDivide: return "does not divide";
    case Rejection::kGpuCount: return "GPU count not allowed";
    case Rejection::kOutOfMemory: return "out of memory";
    case Rejection::kMissesDeadline: return "misses deadline";
    case Rejection::kOverBudget: return "over budget";
    case Rejection::kBelowMfuFloor: return "below MFU floor";
  }
  return "?";
}

std::array<int, 14> Candidate::key() const {
  const auto& p = parallel;
  return {gpu_option,          gpus,
          global_batch,        p.tensor,
          p.pipeline,          p.virtual_pipeline,
          p.context,           p.expert,
          p.micro_batch,       static_cast<int>(p.recompute),
          p.sequence_parallel, static_cast<int>(p.sharding),
          price_option,        0};
}

uint64_t count_layouts(const workload::TrainingJob& base, const SearchSpace& space) {
  const costing::CostInputs costs;
  const Constraints constraints;
  const SearchOptions options;
  Searcher s(base, costs, space, constraints, options);  // holds references: keep them alive
  std::array<double, kRejectionCount> rejected{};
  double enumerated = 0;
  return s.layouts(rejected, enumerated).size();
}

SearchResult run_search(const workload::TrainingJob& base, const costing::CostInputs& costs,
                        const SearchSpace& space, const Constraints& constraints,
                        const SearchOptions& options) {
  Searcher searcher(base, costs, space, constraints, options);
  SearchResult result;
  const std::vector<Layout> layouts = searcher.layouts(result.rejected, result.enumerated);
  result.layouts = layouts.size();

  int threads =
      options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
  threads = std::max(1, std::min<int>(threads, static_cast<int>(layouts.size())));
  std::vector<Partial> partials(threads, Partial(options));
  std::atomic<size_t> next{0};
  auto work = [&](int t) {
    Partial& out = partials[t];
    std::vector<workload::TrainingJob> jobs;  // one mutable copy per GPU option
    for (size_t g = 0; g < space.gpus.size(); ++g)
      jobs.push_back(searcher.job_for(static_cast<int>(g)));
    for (size_t i = next++; i < layouts.size(); i = next++) {
      if (options.cancel && options.cancel->load(std::memory_order_relaxed)) return;
      searcher.evaluate(layouts[i], jobs[layouts[i].gpu], out);
      if (options.progress) options.progress->fetch_add(1, std::memory_order_relaxed);
    }
  };
  if (threads == 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(work, t);
    for (auto& th : pool) th.join();
  }
  Partial total(options);
  for (const auto& p : partials) {
    total.top.merge(p.top);
    total.cost_time.merge(p.cost_time);
    total.cost_gpus.merge(p.cost_gpus);
    for (int r = 0; r < kRejectionCount; ++r) result.rejected[r] += p.rejected[r];
    result.evaluated += p.evaluated;
    result.priced += p.priced;
    result.feasible += p.feasible;
  }
  result.cancelled = options.cancel && options.cancel->load();
  result.top = total.top.items();
  result.top_aliases = total.top.aliases();
  result.pareto_cost_time = total.cost_time.sorted();
  result.pareto_cost_gpus = total.cost_gpus.sorted();
  if (result.top.empty() && options.explain_infeasible && !result.cancelled) {
    result.closest = closest_plans(base, costs, space, constraints, options);
  }
  return result;
}

workload::TrainingJob job_of(const workload::TrainingJob& base, const SearchSpace& space,
                             const Candidate& c) {
  workload::TrainingJob j = with_gpu(base, space.gpus[c.gpu_option]);
  j.cluster.gpus = c.gpus;
  j.global_batch = c.global_batch;
  j.parallel = c.parallel;
  return j;
}

costing::CostInputs costs_of(const costing::CostInputs& costs, const SearchSpace& space,
                             const Candidate& c) {
  costing::CostInputs in = costs;
  in.compute = space.gpus[c.gpu_option].prices[c.price_option];
  return in;
}

}  // namespace aicost::search
