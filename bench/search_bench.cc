// `aicost search` in process on fixed plans: the full GPT-3 175B layout space on 1,024 A100
// (bench/plans/; issue target: < 1 s on one core), a sweep over 64..8192 GPUs of four types and
// the README's Llama-3-70B example (examples/search-llama3-70b-90days.yaml: four GPU types,
// 512..8192 GPUs, two pricing modes, a 90-day deadline), both on two threads (issue 17 target:
// < 1 s). Each two-thread case also runs with pruning off, the baseline that prices every
// candidate: the ratio of the two is what the cost and deadline bounds buy (docs/SEARCH.md,
// "Speed"). Reports configurations/s (the size of the option product covered per second),
// evaluated/s (candidates run through the step model), priced (of those, run through the cost
// model) and the number of feasible plans. Run in Release: make bench.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "aicost/config/catalog_loader.h"
#include "aicost/config/search_plan.h"
#include "aicost/search/search.h"

namespace {

// `path` is relative to the source tree.
aicost::config::SearchRequest load(const char* path) {
  static const auto cat = aicost::config::load_builtin_catalog();
  if (!cat) std::abort();
  auto req = aicost::config::load_search_plan(std::string(AICOST_SOURCE_DIR) + "/" + path, *cat);
  if (!req) {
    std::fprintf(stderr, "%s\n", req.error().what().c_str());
    std::abort();
  }
  return *req;
}

void BM_Search(benchmark::State& state, const char* plan, int threads, bool prune = true) {
  const auto req = load(plan);
  aicost::search::SearchOptions opt;
  opt.objective = req.objective;
  opt.top = req.top;
  opt.threads = threads;
  opt.prune = prune;
  double enumerated = 0, evaluated = 0, feasible = 0, priced = 0;
  for (auto _ : state) {
    const auto r =
        aicost::search::run_search(req.base.job, req.base.cost, req.space, req.constraints, opt);
    enumerated += r.enumerated;
    evaluated += static_cast<double>(r.evaluated);
    feasible = static_cast<double>(r.feasible);
    priced = static_cast<double>(r.priced);
    benchmark::DoNotOptimize(r.top.data());
  }
  using benchmark::Counter;
  state.counters["configurations/s"] = Counter(enumerated, Counter::kIsRate);
  state.counters["evaluated/s"] = Counter(evaluated, Counter::kIsRate);
  state.counters["feasible"] = Counter(feasible);
  state.counters["priced"] = Counter(priced);
  state.counters["threads"] = Counter(threads);
}

void BM_SearchGpt3FullSpace(benchmark::State& state) {
  BM_Search(state, "bench/plans/gpt3-175b-a100-full-space.yaml", 1);
}

void BM_SearchGpt3Sweep(benchmark::State& state) {
  BM_Search(state, "bench/plans/gpt3-175b-sweep.yaml", 2);
}

void BM_SearchGpt3SweepUnpruned(benchmark::State& state) {
  BM_Search(state, "bench/plans/gpt3-175b-sweep.yaml", 2, false);
}

void BM_SearchLlama3Example(benchmark::State& state) {
  BM_Search(state, "examples/search-llama3-70b-90days.yaml", 2);
}

void BM_SearchLlama3ExampleUnpruned(benchmark::State& state) {
  BM_Search(state, "examples/search-llama3-70b-90days.yaml", 2, false);
}

}  // namespace

BENCHMARK(BM_SearchGpt3FullSpace)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_SearchGpt3Sweep)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_SearchGpt3SweepUnpruned)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_SearchLlama3Example)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_SearchLlama3ExampleUnpruned)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);
