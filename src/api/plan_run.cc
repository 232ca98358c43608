#include "plan_run.h"

#include "aicost/core/text.h"
#include "aicost/perf/advice.h"

namespace aicost::api {

namespace {

// A memory fix as the plan key that makes it, in the plan file's Megatron names, with its peak.
std::string describe(const perf::MemoryFix& f) {
  using perf::MemoryLever;
  std::string change;
  switch (f.lever) {
    case MemoryLever::kDistributedOptimizer: change = "use_distributed_optimizer: true"; break;
    case MemoryLever::kSequenceParallel: change = "sequence_parallel: true"; break;
    case MemoryLever::kMicroBatchOne: change = "micro_batch_size: 1"; break;
    case MemoryLever::kSelectiveRecompute: change = "recompute_granularity: selective"; break;
    case MemoryLever::kFullRecompute: change = "recompute_granularity: full"; break;
    case MemoryLever::kTensor:
      change = core::sprintf("tensor_model_parallel_size: %d", f.value);
      break;
    case MemoryLever::kPipeline:
      change = core::sprintf("pipeline_model_parallel_size: %d", f.value);
      break;
    case MemoryLever::kZero3: change = "optimizer_sharding: zero3"; break;
  }
  return change + core::sprintf(" (peak %.1f GiB)", core::in_gib(f.peak));
}

}  // namespace

core::Result<PlanRun> run_plan(const PlanSource& src, const catalog::Catalog& cat, bool allow_oom) {
  const std::string& path = src.origin;
  auto plan =
      config::parse_plan(src.text, src.origin, src.base_dir.empty() ? "." : src.base_dir, cat);
  if (!plan) return plan.error();
  PlanRun run{std::move(*plan), {}, {}, {}, {}};
  auto est = perf::estimate_training(run.plan.job);
  if (!est) return est.error().with_context(path);
  run.perf = std::move(*est);
  const auto& mem = run.perf.memory;
  if (mem.tight()) {
    run.warnings.push_back(core::sprintf(
        "memory is tight: %.1f GiB estimated per GPU against %.1f GiB, within the memory model's "
        "error of %.0f %% (docs/VALIDATION.md \"Memory\"); published runs of this size have "
        "fitted, "
        "but leave no headroom",
        core::in_gib(mem.total()), core::in_gib(mem.capacity), 100 * mem.margin));
  }
  if (mem.refused()) {
    std::string msg = core::sprintf(
        "the plan does not fit in GPU memory: %.1f GiB needed per GPU (weights %.1f, gradients "
        "%.1f, optimizer %.1f, activations %.1f, logits %.1f, overhead %.1f) but %s has %.1f GiB",
        core::in_gib(mem.total()), core::in_gib(mem.weights), core::in_gib(mem.gradients),
        core::in_gib(mem.optimizer), core::in_gib(mem.activations), core::in_gib(mem.logits),
        core::in_gib(mem.overhead), run.plan.job.cluster.gpu.id.c_str(),
        core::in_gib(mem.capacity));
    const auto fixes = perf::memory_fixes(run.plan.job);
    if (fixes.empty()) {
      msg +=
          "; no single change to parallelism fits it: use more GPUs per model replica or a "
          "GPU with more memory";
    } else {
      msg += "; any of these would fit: ";
      for (size_t i = 0; i < fixes.size(); ++i) msg += (i ? "; " : "") + describe(fixes[i]);
    }
    if (!allow_oom) return core::make_error(core::ErrorCode::kInfeasible, msg, path);
    run.warnings.push_back(msg);
  }
  run.cost = costing::estimate_cost(run.plan.job, run.perf, run.plan.cost);
  const auto& job = run.plan.job;
  const auto band = perf::interval_for(
      cat.training_bands(),
      perf::regime_of(job.cluster.gpu.generation, job.precision, job.model.is_moe()));
  run.interval = costing::estimate_interval(job, run.perf, run.plan.cost, band);
  run.warnings.insert(run.warnings.begin(), run.plan.warnings.begin(), run.plan.warnings.end());
  run.warnings.insert(run.warnings.end(), run.perf.warnings.begin(), run.perf.warnings.end());
  run.warnings.insert(run.warnings.end(), run.cost.warnings.begin(), run.cost.warnings.end());
  return run;
}

}  // namespace aicost::api
