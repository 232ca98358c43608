#include <fstream>
#include <iostream>

#include "aicost/config/serving_plan.h"
#include "aicost/perf/interval.h"
#include "aicost/serving/fleet.h"
#include "aicost/serving/replica.h"
#include "aicost/report/diff_report.h"
#include "aicost/report/serving_report.h"
#include "commands.h"
#include "progress.h"
#include "run_plan.h"

namespace aicost::app {

// A serving plan: the cheapest deployment, every option's best, the SLA-cost matrix, policies.
int estimate_serving(const std::string& path, const catalog::Catalog& cat, report::Format fmt,
                     const GlobalOptions& g, const std::string& replicas_csv, bool conservative) {
  auto plan = config::load_serving_plan(path, cat);
  if (!plan) return report_error(plan.error(), g);
  report::ServingView view;
  view.conservative = conservative;
  for (auto& o : plan->options) {
    const auto& r = o.replica;
    view.option_intervals.push_back(perf::interval_for(
        cat.serving_bands(), perf::regime_of(r.gpu.generation, r.weights, r.model.is_moe())));
    // --conservative: size on the pessimistic end of the option's interval.
    const auto& b = view.option_intervals.back();
    if (conservative && b.known && b.hi > 1) o.replica = serving::slowed(o.replica, b.hi);
  }
  view.plan_name = plan->name;
  view.options = &plan->options;
  view.traffic = &plan->traffic;
  view.sla = &plan->sla;
  const serving::Fleet fleet = serving::estimate_fleet(*plan, plan->series);
  view.per_option = fleet.per_option;
  view.best = fleet.best;
  view.fleet = &fleet;
  view.fleet_policy = plan->policy.name;
  if (!view.best) {
    view.unreachable = serving::explain_unreachable(plan->options, plan->batches, plan->traffic, plan->sla);
  }
  // What a tighter or looser SLA and more or less traffic cost.
  const double ttft = plan->sla.ttft_s > 0 ? plan->sla.ttft_s : 1.0;
  const double rate = plan->traffic.requests_per_s;
  view.matrix = serving::sla_cost_matrix(plan->options, plan->batches, plan->traffic, plan->sla,
                                         {ttft / 4, ttft / 2, ttft, ttft * 2},
                                         {rate / 4, rate / 2, rate, rate * 2, rate * 4});
  view.notes = plan->notes;
  if (!replicas_csv.empty() && plan->series.rps.empty()) {
    return report_error(core::make_error(core::ErrorCode::kInvalidInput,
                                         "--replicas-csv writes the replicas each scaling policy runs over the "
                                         "traffic profile, and this plan has none: add serving.traffic_profile "
                                         "(docs/SERVING.md) or drop --replicas-csv",
                                         replicas_csv),
                        g);
  }
  if (view.best && !plan->series.rps.empty()) {
    view.replica_capacity_rps = fleet.replica_capacity_rps;
    for (const auto& p : plan->policies) {
      view.policies.push_back(serving::simulate_policy(plan->series, fleet.replica_capacity_rps,
                                                       fleet.replica_usd_per_hour, p));
    }
    if (!replicas_csv.empty()) {
      std::ofstream out(replicas_csv);
      out << report::render_replicas_csv(view, plan->series.rps);
      if (!out) return report_error(core::make_error(core::ErrorCode::kIo, "cannot write file", replicas_csv), g);
    }
  }
  std::cout << report::render_serving(view, fmt);
  return view.best ? 0 : 1;
}

Command estimate_command() {
  return {"estimate", "time, MFU, memory and cost of a training plan; replicas, latency and monthly cost of a serving plan",
          [](CLI::App& sub, const GlobalOptions& g) -> std::function<int()> {
            auto plan = std::make_shared<std::string>();
            auto allow_oom = std::make_shared<bool>(false);
            auto runs = std::make_shared<int>(0);
            auto seed = std::make_shared<uint64_t>(1);
            auto replicas_csv = std::make_shared<std::string>();
            auto conservative = std::make_shared<bool>(false);
            sub.add_option("plan", *plan, "plan file (YAML)")->required();
            sub.add_flag("--allow-oom", *allow_oom,
                         "estimate a plan even when it does not fit in GPU memory");
            sub.add_option("--simulate", *runs,
                           "add Monte-Carlo bands (P10/P50/P90) of wall time and cost from N runs");
            sub.add_option("--seed", *seed, "seed of --simulate")->capture_default_str();
            sub.add_option("--replicas-csv", *replicas_csv,
                           "serving plans: write replicas per minute of each scaling policy (CSV)");
            sub.add_flag("--conservative", *conservative,
                         "serving plans: size capacity on the pessimistic end of the 80 % interval "
                         "(every time slower by the model's cross-validated error)");
            sub.footer("Example: aicost estimate examples/gpt3-175b-a100.yaml -o json");
            return [plan, allow_oom, runs, seed, replicas_csv, conservative, &g] {
              auto fmt = output_format(g);
              if (!fmt) return report_error(fmt.error(), g);
              auto cat = load_catalog(g);
              if (!cat) return report_error(cat.error(), g);
              if (config::is_serving_plan(*plan)) {
                return estimate_serving(*plan, *cat, *fmt, g, *replicas_csv, *conservative);
              }
              auto run = run_plan(*plan, *cat, *allow_oom);
              if (!run) return report_error(run.error(), g);
              auto view = run->view();
              std::optional<reliability::SimulationResult> sim;
              if (*runs > 0) {
                const auto inputs =
                    costing::reliability_inputs(run->plan.job, run->perf, run->plan.cost);
                reliability::SimulationOptions opts;
                opts.runs = *runs;
                opts.seed = *seed;
                std::atomic<uint64_t> done{0};
                opts.progress = &done;
                Progress bar("simulating", done, static_cast<uint64_t>(*runs));
                sim = reliability::simulate(
                    reliability::simulation_spec(inputs, run->cost.failures.checkpoint_interval,
                                                 run->plan.cost.reliability.spare_nodes),
                    opts);
                view.simulation = &*sim;
                view.simulation_seed = *seed;
              }
              std::cout << report::render_estimate(view, *fmt);
              if (*fmt == report::Format::kTable) print_warnings(report::collect_warnings(view), *fmt);
              return 0;
            };
          }};
}

Command diff_command() {
  return {"diff", "compare two plans: what changed and what it does to time and money",
          [](CLI::App& sub, const GlobalOptions& g) -> std::function<int()> {
            auto a = std::make_shared<std::string>();
            auto b = std::make_shared<std::string>();
            sub.add_option("a", *a, "the first plan (the baseline)")->required();
            sub.add_option("b", *b, "the second plan")->required();
            sub.footer("Example: aicost diff examples/gpt3-175b-a100.yaml examples/gpt3-175b-h100.yaml");
            return [a, b, &g] {
              auto fmt = output_format(g);
              if (!fmt) return report_error(fmt.error(), g);
              auto cat = load_catalog(g);
              if (!cat) return report_error(cat.error(), g);
              auto ra = run_plan(*a, *cat, true);
              if (!ra) return report_error(ra.error(), g);
              auto rb = run_plan(*b, *cat, true);
              if (!rb) return report_error(rb.error(), g);
              std::cout << report::render_diff(ra->view(), rb->view(), *fmt);
              return 0;
            };
          }};
}

}  // namespace aicost::app
