#include <fstream>

#include "aicost/config/serving_plan.h"
#include "aicost/perf/interval.h"
#include "aicost/reliability/simulation.h"
#include "aicost/report/diff_report.h"
#include "aicost/report/serving_report.h"
#include "aicost/serving/fleet.h"
#include "aicost/serving/replica.h"
#include "plan_run.h"

namespace aicost::api {

core::Result<std::unique_ptr<ServingRun>> run_serving_plan(const PlanSource& src,
                                                           const catalog::Catalog& cat,
                                                           bool conservative) {
  auto plan = config::parse_serving_plan(src.text, src.origin, src.base_dir, cat);
  if (!plan) return plan.error();
  auto run = std::make_unique<ServingRun>();
  run->plan = std::move(*plan);
  auto& view = run->view;
  view.conservative = conservative;
  for (auto& o : run->plan.options) {
    const auto& r = o.replica;
    view.option_intervals.push_back(perf::interval_for(
        cat.serving_bands(), perf::regime_of(r.gpu.generation, r.weights, r.model.is_moe())));
    // --conservative: size on the pessimistic end of the option's interval.
    const auto& b = view.option_intervals.back();
    if (conservative && b.known && b.hi > 1) o.replica = serving::slowed(o.replica, b.hi);
  }
  view.plan_name = run->plan.name;
  view.options = &run->plan.options;
  view.traffic = &run->plan.traffic;
  view.sla = &run->plan.sla;
  run->fleet = serving::estimate_fleet(run->plan, run->plan.series);
  view.per_option = run->fleet.per_option;
  view.best = run->fleet.best;
  view.fleet = &run->fleet;
  view.fleet_policy = run->plan.policy.name;
  view.notes = run->plan.notes;
  return run;
}

// A serving plan: the cheapest deployment, every option's best, the SLA-cost matrix, policies.
core::Result<Output> estimate_serving(const PlanSource& src, const catalog::Catalog& cat,
                                      report::Format fmt, const std::string& replicas_csv,
                                      bool conservative, bool charts) {
  auto run = run_serving_plan(src, cat, conservative);
  if (!run) return run.error();
  const auto& plan = (*run)->plan;
  const auto& fleet = (*run)->fleet;
  report::ServingView& view = (*run)->view;
  if (!view.best) {
    view.unreachable =
        serving::explain_unreachable(plan.options, plan.batches, plan.traffic, plan.sla);
  }
  // What a tighter or looser SLA and more or less traffic cost.
  const core::Seconds ttft = plan.sla.ttft > core::Seconds(0) ? plan.sla.ttft : core::seconds(1);
  const core::PerSecond rate = plan.traffic.request_rate;
  view.matrix = serving::sla_cost_matrix(plan.options, plan.batches, plan.traffic, plan.sla,
                                         {ttft / 4, ttft / 2, ttft, ttft * 2},
                                         {rate / 4, rate / 2, rate, rate * 2, rate * 4});
  if (!replicas_csv.empty() && plan.series.rps.empty()) {
    return core::make_error(core::ErrorCode::kInvalidInput,
                            "--replicas-csv writes the replicas each scaling policy runs over the "
                            "traffic profile, and this plan has none: add serving.traffic_profile "
                            "(docs/SERVING.md) or drop --replicas-csv",
                            replicas_csv);
  }
  if (view.best && !plan.series.rps.empty()) {
    view.replica_capacity = fleet.replica_capacity;
    for (const auto& p : plan.policies) {
      view.policies.push_back(
          serving::simulate_policy(plan.series, fleet.replica_capacity, fleet.replica_price, p));
    }
    if (!replicas_csv.empty()) {
      std::ofstream out(replicas_csv);
      out << report::render_replicas_csv(view, plan.series.rps);
      if (!out) return core::make_error(core::ErrorCode::kIo, "cannot write file", replicas_csv);
    }
  }
  Output out;
  out.text = report::render_serving(view, fmt);
  if (charts) out.charts = report::serving_charts(view);
  out.status = view.best ? 0 : 1;
  return out;
}

core::Result<Output> estimate(const PlanSource& src, const catalog::Catalog& cat,
                              report::Format fmt, const EstimateOptions& options) {
  if (config::is_serving_text(src.text)) {
    return estimate_serving(src, cat, fmt, options.replicas_csv, options.conservative,
                            options.charts);
  }
  auto run = run_plan(src, cat, options.allow_oom);
  if (!run) return run.error();
  auto view = run->view();
  std::optional<reliability::SimulationResult> sim;
  if (options.simulate > 0) {
    const auto inputs = costing::reliability_inputs(run->plan.job, run->perf, run->plan.cost);
    reliability::SimulationOptions opts;
    opts.runs = options.simulate;
    opts.seed = options.seed;
    std::atomic<uint64_t> done{0};
    opts.progress = &done;
    opts.cancel = options.cancel;
    auto bar = start_progress(options.progress, "simulating", done,
                              static_cast<uint64_t>(options.simulate));
    sim = reliability::simulate(
        reliability::simulation_spec(inputs, run->cost.failures.checkpoint_interval,
                                     run->plan.cost.reliability.spare_nodes),
        opts);
    if (options.cancel && options.cancel->load())
      return core::make_error(core::ErrorCode::kCancelled, "the simulation was interrupted",
                              src.origin);
    view.simulation = &*sim;
    view.simulation_seed = options.seed;
  }
  Output out;
  out.text = report::render_estimate(view, fmt);
  if (options.charts) out.charts = report::estimate_charts(view);
  if (fmt == report::Format::kTable) out.warnings = report::collect_warnings(view);
  return out;
}

core::Result<Output> diff(const PlanSource& a, const PlanSource& b, const catalog::Catalog& cat,
                          report::Format fmt) {
  const bool serving_a = config::is_serving_text(a.text);
  if (serving_a != config::is_serving_text(b.text)) {
    const PlanSource& serving = serving_a ? a : b;
    const PlanSource& training = serving_a ? b : a;
    return core::make_error(
        core::ErrorCode::kInvalidInput,
        "diff compares two training plans or two serving plans: " + serving.origin +
            " is a serving plan (it has a serving: section) and " + training.origin +
            " a training plan; give two of one kind",
        serving.origin);
  }
  Output out;
  if (serving_a) {
    auto ra = run_serving_plan(a, cat, false);
    if (!ra) return ra.error();
    auto rb = run_serving_plan(b, cat, false);
    if (!rb) return rb.error();
    out.text = report::render_serving_diff((*ra)->view, (*ra)->plan.values, (*rb)->view,
                                           (*rb)->plan.values, fmt);
    return out;
  }
  auto ra = run_plan(a, cat, true);
  if (!ra) return ra.error();
  auto rb = run_plan(b, cat, true);
  if (!rb) return rb.error();
  out.text = report::render_diff(ra->view(), ra->plan.values, rb->view(), rb->plan.values, fmt);
  return out;
}

}  // namespace aicost::api
