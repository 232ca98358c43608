// Serving capacity search: 6 GPU types x TP x precision x batch limit for a 70B chat service.
#include <benchmark/benchmark.h>

#include <string>

#include "aicost/config/serving_plan.h"
#include "aicost/config/catalog_loader.h"
#include "aicost/serving/capacity.h"

namespace {

void BM_ServingCapacitySearch(benchmark::State& state) {
  auto cat = aicost::config::load_builtin_catalog();
  auto plan = aicost::config::load_serving_plan(
      std::string(AICOST_SOURCE_DIR) + "/bench/plans/serving-6-gpus.yaml", *cat);
  if (!plan) {
    state.SkipWithError(plan.error().what().c_str());
    return;
  }
  for (auto _ : state) {
    auto best = aicost::serving::cheapest_deployment(plan->options, plan->batches, plan->traffic,
                                                     plan->sla);
    benchmark::DoNotOptimize(best);
  }
  state.counters["options"] = static_cast<double>(plan->options.size() * plan->batches.size());
  state.counters["options/s"] = benchmark::Counter(
      static_cast<double>(plan->options.size() * plan->batches.size()) * state.iterations(),
      benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_ServingCapacitySearch)->Unit(benchmark::kMillisecond);
