#include "aicost/perf/advice.h"

#include "aicost/perf/memory.h"

namespace aicost::perf {

using workload::OptimizerSharding;
using workload::Recompute;

std::vector<MemoryFix> memory_fixes(const workload::TrainingJob& job) {
  std::vector<MemoryFix> fixes;
  if (estimate_memory(job).fits()) return fixes;
  auto consider = [&](MemoryLever lever, int value, auto mutate) {
    workload::TrainingJob j = job;
    mutate(j.parallel);
    if (!workload::validate(j, nullptr)) return;
    const auto mem = estimate_memory(j);
    if (mem.fits()) {
      fixes.push_back({lever, value, mem.total()});
    }
  };
  const auto& p = job.parallel;
  if (p.sharding == OptimizerSharding::kNone) {
    consider(MemoryLever::kDistributedOptimizer, 0,
             [](auto& q) { q.sharding = OptimizerSharding::kZero1; });
  }
  if (!p.sequence_parallel && p.tensor > 1) {
    consider(MemoryLever::kSequenceParallel, 0, [](auto& q) { q.sequence_parallel = true; });
  }
  if (p.micro_batch > 1) {
    consider(MemoryLever::kMicroBatchOne, 1, [](auto& q) { q.micro_batch = 1; });
  }
  if (p.recompute == Recompute::kNone) {
    consider(MemoryLever::kSelectiveRecompute, 0,
             [](auto& q) { q.recompute = Recompute::kSelective; });
  }
  if (p.recompute != Recompute::kFull) {
    consider(MemoryLever::kFullRecompute, 0, [](auto& q) { q.recompute = Recompute::kFull; });
  }
  for (int k : {2, 4}) {
    consider(MemoryLever::kTensor, p.tensor * k, [k](auto& q) { q.tensor *= k; });
    consider(MemoryLever::kPipeline, p.pipeline * k, [k](auto& q) { q.pipeline *= k; });
  }
  if (p.sharding != OptimizerSharding::kZero3) {
    consider(MemoryLever::kZero3, 0, [](auto& q) { q.sharding = OptimizerSharding::kZero3; });
  }
  return fixes;
}

}  // namespace aicost::perf
