// Serving capacity search: 6 GPU types x TP x precision x batch limit for a 70B chat service.
#include <benchmark/benchmark.h>

#include <string>

#include "aicost/config/catalog_loader.h"
#include "aicost/config/serving_plan.h"
#include "aicost/serving/capacity.h"
#include "aicost/serving/traffic.h"

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

namespace {

// A 30-day, one-minute traffic simulation with a reactive policy (target < 50 ms).
void BM_TrafficSimulation30Days(benchmark::State& state) {
  aicost::serving::SyntheticTraffic t;
  t.days = 30;
  t.mean_rate = aicost::core::per_second(20);
  t.spikes = {{17, 5.0}};
  const auto series = aicost::serving::synthetic(t);
  aicost::serving::Policy p;
  for (auto _ : state) {
    auto r = aicost::serving::simulate_policy(series, aicost::core::per_second(4),
                                              aicost::core::usd_per_hour(5.4), p);
    benchmark::DoNotOptimize(r.monthly);
  }
  state.counters["minutes/s"] = benchmark::Counter(
      static_cast<double>(series.rps.size()) * state.iterations(), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_TrafficSimulation30Days)->Unit(benchmark::kMillisecond);
