// One full estimate (step model + memory + cost) in process, on the shipped example plan.
// Run in Release: make bench.
#include <benchmark/benchmark.h>

#include <cstdlib>

#include "aicost/config/catalog_loader.h"
#include "aicost/config/plan.h"
#include "aicost/costing/cost_model.h"
#include "aicost/perf/estimate.h"

namespace {

aicost::config::Plan load(const char* example) {
  auto cat = aicost::config::load_builtin_catalog();
  auto plan =
      aicost::config::load_plan(std::string(AICOST_SOURCE_DIR) + "/examples/" + example, *cat);
  if (!plan) std::abort();
  return *plan;
}

void BM_EstimateFull(benchmark::State& state, const char* example) {
  const auto plan = load(example);
  double usd = 0;
  for (auto _ : state) {
    auto perf = aicost::perf::estimate_training(plan.job);
    auto cost = aicost::costing::estimate_cost(plan.job, *perf, plan.cost);
    usd += cost.total.value();
    benchmark::DoNotOptimize(usd);
  }
  state.counters["estimates/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_StepModelOnly(benchmark::State& state, const char* example) {
  const auto plan = load(example);
  for (auto _ : state) {
    auto perf = aicost::perf::estimate_training(plan.job);
    benchmark::DoNotOptimize(perf->step_time);
  }
  state.counters["estimates/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK_CAPTURE(BM_EstimateFull, gpt3_175b_a100, "gpt3-175b-a100.yaml");
BENCHMARK_CAPTURE(BM_EstimateFull, deepseek_v3_h800, "deepseek-v3-h800.yaml");
BENCHMARK_CAPTURE(BM_StepModelOnly, gpt3_175b_a100, "gpt3-175b-a100.yaml");
BENCHMARK_MAIN();
