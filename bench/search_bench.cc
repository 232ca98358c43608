// `aicost search` in process on fixed plans (bench/plans/): the full GPT-3 175B layout space on
// 1,024 A100 (issue target: < 1 s on one core) and a sweep over 64..8192 GPUs of four types
// (target: < 10 s on two cores). Reports configurations/s (the size of the option product
// covered per second), evaluated/s (candidates run through the step and cost models) and the
// number of feasible plans. Run in Release: make bench.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "aicost/config/catalog_loader.h"
#include "aicost/config/search_plan.h"
#include "aicost/search/search.h"

namespace {

aicost::config::SearchRequest load(const char* name) {
  static const auto cat = aicost::config::load_builtin_catalog();
  if (!cat) std::abort();
  auto req = aicost::config::load_search_plan(
      std::string(AICOST_SOURCE_DIR) + "/bench/plans/" + name, *cat);
  if (!req) {
    std::fprintf(stderr, "%s\n", req.error().what().c_str());
    std::abort();
  }
  return *req;
}

void BM_Search(benchmark::State& state, const char* plan, int threads) {
  const auto req = load(plan);
  aicost::search::SearchOptions opt;
  opt.objective = req.objective;
  opt.top = req.top;
  opt.threads = threads;
  double enumerated = 0, evaluated = 0, feasible = 0;
  for (auto _ : state) {
    const auto r = aicost::search::run_search(req.base.job, req.base.cost, req.space,
                                              req.constraints, opt);
    enumerated += r.enumerated;
    evaluated += static_cast<double>(r.evaluated);
    feasible = static_cast<double>(r.feasible);
    benchmark::DoNotOptimize(r.top.data());
  }
  using benchmark::Counter;
  state.counters["configurations/s"] = Counter(enumerated, Counter::kIsRate);
  state.counters["evaluated/s"] = Counter(evaluated, Counter::kIsRate);
  state.counters["feasible"] = Counter(feasible);
  state.counters["threads"] = Counter(threads);
}

void BM_SearchGpt3FullSpace(benchmark::State& state) {
  BM_Search(state, "gpt3-175b-a100-full-space.yaml", 1);
}

void BM_SearchGpt3Sweep(benchmark::State& state) {
  BM_Search(state, "gpt3-175b-sweep.yaml", 2);
}

}  // namespace

BENCHMARK(BM_SearchGpt3FullSpace)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_SearchGpt3Sweep)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
