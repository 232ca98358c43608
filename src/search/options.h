// Private to search: the option lists of each dimension, resolved against the model.
#pragma once

#include <vector>

#include "aicost/search/space.h"
#include "aicost/workload/training_job.h"

namespace aicost::search {

struct Dimensions {
  std::vector<int> tensor, pipeline, context, expert, micro_batch;
  std::vector<workload::Recompute> recompute;
  std::vector<bool> sequence_parallel;
  std::vector<workload::OptimizerSharding> sharding;
};

// Lists as given, or every valid value where the space leaves a dimension open: TP divides
// the heads (and KV groups), PP divides the layers, CP divides the sequence with >= 128 tokens
// per rank, EP divides the experts (1 for dense models), micro-batch 1..8, all recompute modes,
// SP off/on, optimizer sharding none/zero1.
Dimensions resolve(const workload::TrainingJob& base, const SearchSpace& space);

// Virtual pipeline sizes to try for `pp`: the space's list, or the divisors of layers/pp
// (just 1 when pp is 1).
std::vector<int> virtual_pipeline_options(const workload::TrainingJob& base,
                                          const SearchSpace& space, int pp);

// Whether `v` is a valid virtual pipeline size for `pp`.
bool valid_virtual_pipeline(const workload::TrainingJob& base, int pp, int v);

}  // namespace aicost::search
