#include "aicost/perf/advice.h"

#include "aicost/core/text.h"
#include "aicost/perf/memory.h"

namespace aicost::perf {

using workload::OptimizerSharding;
using workload::Recompute;

std::vector<std::string> memory_fixes(const workload::TrainingJob& job) {
  std::vector<std::string> fixes;
  if (estimate_memory(job).fits()) return fixes;
  auto consider = [&](std::string change, auto mutate) {
    workload::TrainingJob j = job;
    mutate(j.parallel);
    if (!workload::validate(j, nullptr)) return;
    const auto mem = estimate_memory(j);
    if (mem.fits()) {
      fixes.push_back(change + core::sprintf(" (peak %.1f GiB)", core::in_gib(mem.total())));
    }
  };
  const auto& p = job.parallel;
  if (p.sharding == OptimizerSharding::kNone) {
    consider("use_distributed_optimizer: true", [](auto& q) { q.sharding = OptimizerSharding::kZero1; });
  }
  if (!p.sequence_parallel && p.tensor > 1) {
    consider("sequence_parallel: true", [](auto& q) { q.sequence_parallel = true; });
  }
  if (p.micro_batch > 1) {
    consider("micro_batch_size: 1", [](auto& q) { q.micro_batch = 1; });
  }
  if (p.recompute == Recompute::kNone) {
    consider("recompute_granularity: selective", [](auto& q) { q.recompute = Recompute::kSelective; });
  }
  if (p.recompute != Recompute::kFull) {
    consider("recompute_granularity: full", [](auto& q) { q.recompute = Recompute::kFull; });
  }
  for (int k : {2, 4}) {
    consider(core::sprintf("tensor_model_parallel_size: %d", p.tensor * k),
             [k](auto& q) { q.tensor *= k; });
    consider(core::sprintf("pipeline_model_parallel_size: %d", p.pipeline * k),
             [k](auto& q) { q.pipeline *= k; });
  }
  if (p.sharding != OptimizerSharding::kZero3) {
    consider("optimizer_sharding: zero3", [](auto& q) { q.sharding = OptimizerSharding::kZero3; });
  }
  return fixes;
}

}  // namespace aicost::perf
