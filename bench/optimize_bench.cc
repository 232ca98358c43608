// `aicost optimize` in process, one thread, on the example plans and on GPT-3 with a deadline
// (which adds the GPU type and count searches), and on serving plans (the chat example with its
// month of traffic, and the 8B plan where every serving lever is priced). Target: a training or
// serving plan's full optimisation under 1 s on one core (`taskset -c 0`). The baseline in the
// same run is one estimate through the plan editor (YAML edit, parse, models; for a serving plan
// the capacity search over its options and one policy over its traffic profile): "estimates" per
// optimisation times its time is what the levers cost without the searches.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "aicost/config/catalog_loader.h"
#include "aicost/config/plan_edit.h"
#include "aicost/optimize/optimize.h"

namespace {

using namespace aicost;

const catalog::Catalog& catalog() {
  static const catalog::Catalog c = [] {
    auto r = config::load_builtin_catalog();
    if (!r) std::abort();
    return *r;
  }();
  return c;
}

config::PlanEditor editor(const char* plan) {
  auto e = config::PlanEditor::open(std::string(AICOST_SOURCE_DIR) + "/" + plan, catalog());
  if (!e) std::abort();
  return *e;
}

void BM_Optimize(benchmark::State& state, const char* plan) {
  const config::PlanEditor ed = editor(plan);
  optimize::OptimizeInputs in;
  in.plan_name = ed.name();
  in.catalog = &catalog();
  in.evaluate = [&ed](const optimize::Change& c) { return ed.evaluate(c); };
  auto limits = ed.limits();
  if (!limits) std::abort();
  in.limits = *limits;
  in.threads = 1;
  int estimates = 0;
  double saving = 0;
  for (auto _ : state) {
    auto r = optimize::optimize(in);
    if (!r) std::abort();
    estimates = r->evaluations;
    saving = r->combined.saving_usd;
    benchmark::DoNotOptimize(saving);
  }
  state.counters["estimates"] = estimates;
  state.counters["optimisations/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_EditorEstimate(benchmark::State& state, const char* plan) {
  const config::PlanEditor ed = editor(plan);
  const optimize::Change c = {{"storage.async_checkpoint", "true"}};
  for (auto _ : state) {
    auto e = ed.evaluate(c);
    if (!e) std::abort();
    benchmark::DoNotOptimize(e->cost.total);
  }
  state.counters["estimates/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_ServingEditorEstimate(benchmark::State& state, const char* plan) {
  const config::PlanEditor ed = editor(plan);
  const optimize::Change c = {{"serving.autoscaling.policy", "reactive"}};
  for (auto _ : state) {
    auto e = ed.evaluate(c);
    if (!e) std::abort();
    benchmark::DoNotOptimize(e->total_usd());
  }
  state.counters["estimates/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK_CAPTURE(BM_EditorEstimate, gpt3_175b_a100, "examples/gpt3-175b-a100.yaml")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Optimize, gpt3_175b_a100, "examples/gpt3-175b-a100.yaml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Optimize, deepseek_v3_h800, "examples/deepseek-v3-h800.yaml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Optimize, gpt3_175b_a100_30d_deadline,
                  "bench/plans/gpt3-175b-a100-deadline.yaml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Optimize, llama3_8b_h100_deadline, "tests/plans/optimize-llama3-8b-h100.yaml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Optimize, llama3_8b_h100_storage_keys,
                  "bench/plans/llama3-8b-h100-storage.yaml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ServingEditorEstimate, serving_llama3_70b_chat,
                  "examples/serving-llama3-70b-chat.yaml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Optimize, serving_llama3_70b_chat, "examples/serving-llama3-70b-chat.yaml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Optimize, serving_llama3_8b_all_levers,
                  "tests/plans/optimize-serving-llama3-8b.yaml")
    ->Unit(benchmark::kMillisecond);
