// The lever list and what the levers share.
#include "levers.h"

#include <algorithm>
#include <cmath>

#include "aicost/core/text.h"

namespace aicost::optimize {

namespace detail {

Proposal not_applicable(std::string why) {
  Proposal p;
  p.kind = Proposal::Kind::kNotApplicable;
  p.why = std::move(why);
  return p;
}

Proposal not_priced(std::string why) {
  Proposal p;
  p.kind = Proposal::Kind::kNotPriced;
  p.why = std::move(why);
  return p;
}

Proposal nothing_to_do(std::string why) {
  Proposal p;
  p.kind = Proposal::Kind::kNothingToDo;
  p.why = std::move(why);
  return p;
}

Proposal change(Change c, Risk risk, Rollout rollout) {
  Proposal p;
  p.change = std::move(c);
  p.risk = std::move(risk);
  p.rollout = std::move(rollout);
  return p;
}

std::string minutes(core::Seconds s) {
  return core::sprintf("%.0fmin", std::max(1.0, std::round(s.value() / 60)));
}

std::string days(core::Seconds s) {
  return core::sprintf("%.0fd", std::max(1.0, std::round(core::in_days(s))));
}

std::string count(double n) { return core::sprintf("%.0f", n); }

std::string size(core::Bytes b) { return core::sprintf("%.6gGB", b.value() / core::kGB); }

std::string percent(double share) { return core::sprintf("%.4g%%", share * 100); }

Change layout_edits(const workload::Parallelism& p, const workload::Parallelism& now) {
  auto b = [](bool v) { return std::string(v ? "true" : "false"); };
  Change c;
  auto set = [&](bool differs, const char* key, std::string value) {
    if (differs) c.push_back({std::string("parallelism.") + key, std::move(value)});
  };
  set(p.tensor != now.tensor, "tensor_model_parallel_size", count(p.tensor));
  set(p.pipeline != now.pipeline, "pipeline_model_parallel_size", count(p.pipeline));
  set(p.virtual_pipeline != now.virtual_pipeline, "virtual_pipeline_model_parallel_size",
      count(p.virtual_pipeline));
  set(p.context != now.context, "context_parallel_size", count(p.context));
  set(p.expert != now.expert, "expert_model_parallel_size", count(p.expert));
  set(p.micro_batch != now.micro_batch, "micro_batch_size", count(p.micro_batch));
  set(p.sequence_parallel != now.sequence_parallel, "sequence_parallel", b(p.sequence_parallel));
  set(p.recompute != now.recompute, "recompute_granularity", workload::to_string(p.recompute));
  set(p.sharding != now.sharding, "optimizer_sharding", workload::to_string(p.sharding));
  return c;
}

bool same_layout(const workload::Parallelism& a, const workload::Parallelism& b) {
  return a.tensor == b.tensor && a.pipeline == b.pipeline &&
         a.virtual_pipeline == b.virtual_pipeline && a.context == b.context &&
         a.expert == b.expert && a.micro_batch == b.micro_batch &&
         a.sequence_parallel == b.sequence_parallel && a.recompute == b.recompute &&
         a.sharding == b.sharding;
}

search::SearchSpace own_gpu_space(const Evaluation& plan) {
  search::SearchSpace s;
  s.gpus.push_back({plan.job.cluster.gpu, plan.job.efficiency, {plan.inputs.compute}});
  s.global_batches = {plan.job.global_batch};
  // Sharding beyond zero1 is searched only when the plan already uses it.
  if (plan.job.parallel.sharding > workload::OptimizerSharding::kZero1) {
    s.sharding = {workload::OptimizerSharding::kNone, workload::OptimizerSharding::kZero1,
                  plan.job.parallel.sharding};
  }
  return s;
}

std::optional<search::Candidate> cheapest(const LeverContext& ctx, const search::SearchSpace& space,
                                          std::optional<double> deadline_days) {
  search::Constraints c;
  c.deadline_days = deadline_days;
  c.memory_headroom = ctx.limits.memory_headroom;
  search::SearchOptions o;
  o.objective = search::Objective::kCheapest;
  o.top = 1;
  o.threads = ctx.threads;
  // A layout the optimiser proposes must fit with the headroom on its own: no "tight" plans
  // (over capacity within the memory model's error), which search keeps for people to judge.
  workload::TrainingJob job = ctx.plan.job;
  job.memory_margin = 0;
  const auto r = search::run_search(job, ctx.plan.inputs, space, c, o);
  if (r.top.empty()) return std::nullopt;
  return r.top.front();
}

}  // namespace detail

std::vector<Lever> training_levers() {
  using namespace detail;
  return {
      {"parallelism", "compute", "", parallelism},
      {"gpu-type", "compute", "", gpu_type},
      {"gpu-count", "compute", "", gpu_count},
      {"precision-fp8", "compute", "", precision_fp8},
      {"comm-overlap", "compute", "", comm_overlap},
      {"gradient-compression", "compute", "", gradient_compression},
      {"data-loader", "compute", "", data_loader},
      {"pricing-reserved", "pricing", "pricing-mode", pricing_reserved},
      {"pricing-spot", "pricing", "pricing-mode", pricing_spot},
      {"pricing-owned", "pricing", "pricing-mode", pricing_owned},
      {"checkpoint-interval", "reliability", "", checkpoint_interval},
      {"checkpoint-async", "reliability", "", checkpoint_async},
      {"spares", "reliability", "", spares},
      {"restart-automation", "reliability", "", restart_automation},
      {"checkpoint-retention", "storage", "", checkpoint_retention},
      {"checkpoint-tier", "storage", "", checkpoint_tier},
      {"checkpoint-compression", "storage", "", checkpoint_compression},
      {"incremental-checkpoint", "storage", "", incremental_checkpoint},
      {"dataset-tier", "storage", "", dataset_tier},
      {"dataset-dedup", "storage", "", dataset_dedup},
      {"log-retention", "storage", "", log_retention},
      {"log-compression", "storage", "", log_compression},
      {"log-sampling", "storage", "", log_sampling},
      {"data-locality", "network", "", data_locality},
      {"egress-compression", "network", "", egress_compression},
  };
}

}  // namespace aicost::optimize
