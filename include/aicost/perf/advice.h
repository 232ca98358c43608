// What would make a plan that runs out of memory fit: single changes to the parallel layout,
// each checked with the same memory model. Thread-safe.
#pragma once

#include <string>
#include <vector>

#include "aicost/workload/training_job.h"

namespace aicost::perf {

// Changes (in Megatron key names) that make `job` fit in GPU memory, cheapest-to-adopt first;
// empty when it already fits or nothing single-step helps.
std::vector<std::string> memory_fixes(const workload::TrainingJob& job);

}  // namespace aicost::perf
