// What would make a plan that runs out of memory fit: single changes to the parallel layout,
// each checked with the same memory model. Thread-safe.
#pragma once

#include <vector>

#include "aicost/core/quantity.h"
#include "aicost/workload/training_job.h"

namespace aicost::perf {

// One change to the parallel layout.
enum class MemoryLever {
  kDistributedOptimizer,  // optimizer states sharded over data parallel (ZeRO-1)
  kSequenceParallel,
  kMicroBatchOne,
  kSelectiveRecompute,
  kFullRecompute,
  kTensor,    // tensor parallel size `value`
  kPipeline,  // pipeline parallel size `value`
  kZero3,     // weights, gradients and optimizer states sharded
};

struct MemoryFix {
  MemoryLever lever;
  int value = 0;     // the new size, for kTensor and kPipeline
  core::Bytes peak;  // per GPU with the change
};

// The changes that make `job` fit in GPU memory, cheapest-to-adopt first; empty when it already
// fits or no single change helps.
std::vector<MemoryFix> memory_fixes(const workload::TrainingJob& job);

}  // namespace aicost::perf
