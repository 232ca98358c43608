#include <iostream>

#include "aicost/costing/cost_model.h"
#include "aicost/reliability/spares.h"
#include "aicost/report/reliability_report.h"
#include "commands.h"
#include "progress.h"
#include "run_plan.h"

namespace aicost::app {

namespace {

struct ReliabilityArgs {
  std::string plan;
  int simulate = 2000;
  uint64_t seed = 1;
  int threads = 0;
  bool no_spares = false;
  bool quiet = false;
};

}  // namespace

Command reliability_command() {
  return {"reliability", "failures, checkpoints, restarts and spares of a training plan, in time and money",
          [](CLI::App& sub, const GlobalOptions& g) -> std::function<int()> {
            auto a = std::make_shared<ReliabilityArgs>();
            sub.add_option("plan", a->plan, "plan file (YAML)")->required();
            sub.add_option("--simulate", a->simulate, "Monte-Carlo runs (0: closed form only)")
                ->capture_default_str();
            sub.add_option("--seed", a->seed, "seed of the simulation")->capture_default_str();
            sub.add_option("--threads", a->threads, "worker threads (default: all cores)");
            sub.add_flag("--no-spares", a->no_spares, "skip the spare-node sweep");
            sub.add_flag("-q,--quiet", a->quiet, "no progress bar");
            sub.footer("Example: aicost reliability examples/llama3-405b-16k.yaml --simulate 1000");
            return [a, &g] {
              auto fmt = output_format(g);
              if (!fmt) return report_error(fmt.error(), g);
              auto cat = load_catalog(g);
              if (!cat) return report_error(cat.error(), g);
              auto run = run_plan(a->plan, *cat, true);
              if (!run) return report_error(run.error(), g);
              const auto inputs = costing::reliability_inputs(run->plan.job, run->perf, run->plan.cost);
              const auto analysis = reliability::analyze(inputs);
              const auto spec = reliability::simulation_spec(inputs, analysis.interval,
                                                             run->plan.cost.reliability.spare_nodes);
              reliability::SimulationOptions opts;
              opts.runs = std::max(0, a->simulate);
              opts.seed = a->seed;
              opts.threads = a->threads;
              std::atomic<uint64_t> done{0};
              opts.progress = &done;
              std::optional<reliability::SimulationResult> sim;
              std::optional<reliability::SpareDecision> spares;
              if (opts.runs > 0) {
                const int nodes = (inputs.gpus + inputs.gpus_per_node - 1) / inputs.gpus_per_node;
                const auto ladder = reliability::spare_ladder(nodes);
                const uint64_t sweep_runs = a->no_spares ? 0 : std::min(opts.runs, 500);
                std::unique_ptr<Progress> bar;
                if (!a->quiet) {
                  bar = std::make_unique<Progress>("simulating", done,
                                                   opts.runs + sweep_runs * ladder.size());
                }
                sim = reliability::simulate(spec, opts);
                if (!a->no_spares) {
                  reliability::SimulationOptions sweep = opts;
                  sweep.runs = static_cast<int>(sweep_runs);
                  spares = reliability::choose_spares(spec, sweep, run->plan.cost.compute.per_gpu,
                                                      ladder, 0.001);
                }
              }
              report::ReliabilityView view{run->plan.name, &inputs, &analysis,
                                           sim ? &*sim : nullptr, spares ? &*spares : nullptr,
                                           spec.spare_nodes, a->seed};
              std::cout << report::render_reliability(view, *fmt);
              return 0;
            };
          }};
}

}  // namespace aicost::app
