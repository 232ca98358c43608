#include <algorithm>

#include "aicost/costing/cost_model.h"
#include "aicost/reliability/spares.h"
#include "aicost/report/reliability_report.h"
#include "plan_run.h"

namespace aicost::api {

core::Result<Output> reliability(const PlanSource& src, const catalog::Catalog& cat,
                                 report::Format fmt, const ReliabilityOptions& options) {
  auto run = run_plan(src, cat, true);
  if (!run) return run.error();
  const auto inputs = costing::reliability_inputs(run->plan.job, run->perf, run->plan.cost);
  const auto analysis = reliability::analyze(inputs);
  const auto spec = reliability::simulation_spec(inputs, analysis.interval,
                                                 run->plan.cost.reliability.spare_nodes);
  reliability::SimulationOptions opts;
  opts.runs = std::max(0, options.simulate);
  opts.seed = options.seed;
  opts.threads = options.threads;
  std::atomic<uint64_t> done{0};
  opts.progress = &done;
  opts.cancel = options.cancel;
  std::optional<reliability::SimulationResult> sim;
  std::optional<reliability::SpareDecision> spares;
  if (opts.runs > 0) {
    const int nodes = (inputs.gpus + inputs.gpus_per_node - 1) / inputs.gpus_per_node;
    const auto ladder = reliability::spare_ladder(nodes);
    const uint64_t sweep_runs = options.spares ? std::min(opts.runs, 500) : 0;
    auto bar = start_progress(options.progress, "simulating", done,
                              opts.runs + sweep_runs * ladder.size());
    sim = reliability::simulate(spec, opts);
    if (options.spares) {
      reliability::SimulationOptions sweep = opts;
      sweep.runs = static_cast<int>(sweep_runs);
      spares =
          reliability::choose_spares(spec, sweep, run->plan.cost.compute.per_gpu, ladder, 0.001);
    }
  }
  if (options.cancel && options.cancel->load())
    return core::make_error(core::ErrorCode::kCancelled, "the simulation was interrupted",
                            src.origin);
  report::ReliabilityView view{
      run->plan.name,   &inputs,     &analysis, sim ? &*sim : nullptr, spares ? &*spares : nullptr,
      spec.spare_nodes, options.seed};
  Output out;
  out.text = report::render_reliability(view, fmt);
  return out;
}

}  // namespace aicost::api
