// Published per-GPU memory measurements of training runs (data/validation/memory-dev.csv), each
// row a configuration written as a plan would write it, with the memory the source measured.
// docs/VALIDATION.md "Memory" lists the columns and what the model's error on them is used for.
#pragma once

#include <string>
#include <vector>

#include "aicost/catalog/catalog.h"
#include "aicost/core/result.h"
#include "aicost/workload/training_job.h"

namespace aicost::config {

struct MemoryCase {
  std::string name;
  int line = 0;        // in the CSV
  std::string source;  // where the measurement is published
  workload::TrainingJob job;
  double measured_gib = 0;  // peak per GPU, GiB
  std::string measured_as;  // what the source read: "max_reserved", "max_allocated", or "ran"
                            // (measured_gib is then the capacity: an upper bound)
};

// Columns: name, source, model (catalog preset), gpu, gpus, tp, pp, vpp, cp, ep, etp (empty:
// = tp), micro_batch,
// global_batch, seq_length, recompute (none|selective|full), sequence_parallel (true|false),
// optimizer_sharding (none|zero1|zero2|zero3), precision, measured_gib, measured_as, notes.
// Each row becomes a plan (parse_plan) so it obeys the same rules and checks as a user's plan.
// Errors: kIo, kParse, kInvalidInput naming file:line and the plan error of a bad row.
core::Result<std::vector<MemoryCase>> load_memory_csv(const std::string& path,
                                                      const catalog::Catalog& catalog);

// True when the CSV's header has the column measured_gib (a memory CSV).
bool is_memory_csv(const std::string& path);

// The memory model's over-statement on `cases`: the largest predicted / measured - 1 (>= 0) of
// peak memory per GPU (perf::estimate_memory). Only over-prediction can refuse a run that fits,
// so under-prediction does not widen the margin. A row whose measured_as is "ran" gives the
// GPU's capacity as an upper bound of its peak (a published run that did not run out of memory):
// its over-statement is at least predicted / capacity - 1. catalog::MemoryMargin with `source`.
catalog::MemoryMargin memory_margin(const std::vector<MemoryCase>& cases,
                                    const std::string& source);

}  // namespace aicost::config
