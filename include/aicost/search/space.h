// What `aicost search` may vary, what a plan must satisfy, and what it optimises.
// Empty option lists mean "every valid value" (the enumerator derives them from the model,
// sequence, batch and GPU count); a list with one value fixes that dimension.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aicost/catalog/gpu.h"
#include "aicost/costing/cost_inputs.h"
#include "aicost/workload/training_job.h"

namespace aicost::search {

// One GPU type with the prices it can be bought at.
struct GpuOption {
  catalog::GpuSpec gpu;
  catalog::EfficiencyProfile efficiency;
  std::vector<costing::ComputePricing> prices;  // at least one
};

struct SearchSpace {
  std::vector<GpuOption> gpus;  // at least one
  int min_gpus = 1;             // GPU count range, inclusive
  int max_gpus = 1 << 20;
  std::vector<int> gpu_counts;  // explicit list; empty = any count in [min, max]
  // Counts above one node must be a multiple of the node size (whole nodes are rented).
  bool whole_nodes = true;
  std::vector<int> global_batches;  // sequences; at least one
  std::vector<int> tensor, pipeline, virtual_pipeline, context, expert, micro_batch;
  std::vector<workload::Recompute> recompute;
  std::vector<bool> sequence_parallel;
  std::vector<workload::OptimizerSharding> sharding;
};

enum class Objective { kCheapest, kFastest, kBestMfu };
const char* to_string(Objective o);

struct Constraints {
  std::optional<double> deadline_days;  // wall-clock, failures included
  std::optional<double> budget_usd;     // total cost, all categories
  std::optional<double> min_mfu;        // 0..1
  // Share of GPU memory kept free, 0..1. A search defaults to 5 %: a plan at 99 % of memory is
  // one allocator spike from failing, and the estimate's own overhead margin is small.
  double memory_headroom = 0.05;
};

// Why a candidate was not kept. kDoesNotDivide counts combinations of the option lists that
// violate a divisibility rule (they are never evaluated).
enum class Rejection {
  kDoesNotDivide,
  kGpuCount,  // outside the count range or list, or not whole nodes
  kOutOfMemory,
  kMissesDeadline,
  kOverBudget,
  kBelowMfuFloor,
};
inline constexpr int kRejectionCount = 6;
const char* to_string(Rejection r);

}  // namespace aicost::search
