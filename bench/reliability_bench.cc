// Monte-Carlo reliability simulation: 10,000 runs of a 16,384-GPU, 54-day job (Llama 3 405B's
// snapshot: 419 unexpected interrupts in 54 days, 47 planned), the speed target.
#include <benchmark/benchmark.h>

#include "aicost/reliability/closed_form.h"
#include "aicost/reliability/simulation.h"

namespace {

using aicost::core::Seconds;

aicost::reliability::SimulationSpec llama3_snapshot() {
  aicost::reliability::SimulationSpec s;
  s.work = Seconds(54 * 86400.0);
  s.gpus = 16384;
  s.gpus_per_node = 8;
  s.blocking = Seconds(30);
  s.restart = Seconds(600);
  aicost::reliability::FailureCause hardware{
      "hardware", 0.78 * 419.0 / (16384.0 * 54 * 24), 1, Seconds(2 * 86400.0), {}};
  aicost::reliability::FailureCause software{
      "software", 0.22 * 419.0 / (16384.0 * 54 * 24), 0, Seconds(0), {}};
  s.failures.causes = {hardware, software};
  s.failures.maintenance_per_day = 47.0 / 54;
  const Seconds mtbf(1 / s.failures.job_rate(s.gpus));
  s.interval = aicost::reliability::optimal_interval_exact(s.blocking, mtbf);
  return s;
}

void BM_Simulate16kGpus54Days(benchmark::State& state) {
  auto spec = llama3_snapshot();
  spec.spare_nodes = static_cast<int>(state.range(1));
  aicost::reliability::SimulationOptions o;
  o.runs = 10000;
  o.threads = static_cast<int>(state.range(0));
  uint64_t events = 0;
  for (auto _ : state) {
    const auto r = aicost::reliability::simulate(spec, o);
    events += r.events;
    benchmark::DoNotOptimize(r.wall_s.mean);
  }
  state.counters["runs/s"] = benchmark::Counter(static_cast<double>(o.runs) * state.iterations(),
                                                benchmark::Counter::kIsRate);
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["threads"] = static_cast<double>(o.threads);
}

}  // namespace

// (threads, spare nodes): no spare limit, and a 32-node pool with 2-day repairs.
BENCHMARK(BM_Simulate16kGpus54Days)
    ->Args({2, -1})
    ->Args({2, 32})
    ->Args({1, -1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);
