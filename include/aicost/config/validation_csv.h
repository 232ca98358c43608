// Reads measured training runs (the columns of ../shared/validation/training-dev.csv) into jobs
// the step model can evaluate, with the measured per-GPU throughput. The rules that turn a
// published row into a configuration (which rows count, era defaults such as unfused attention
// before FlashAttention) are listed in docs/VALIDATION.md.
#pragma once

#include <string>
#include <vector>

#include "aicost/catalog/catalog.h"
#include "aicost/core/result.h"
#include "aicost/workload/training_job.h"

namespace aicost::config {

struct ValidationCase {
  std::string name;
  int line = 0;       // in the CSV
  std::string group;  // source_group of its source cell
  workload::TrainingJob job;
  double measured_tokens_per_s_per_gpu = 0;
  std::string measured_from;  // "step time 8.309 s", "137 TFLOP/s (96Bslh^2 convention)", ...
};

struct ValidationSet {
  std::vector<ValidationCase> cases;
  std::vector<std::string> skipped;  // "name: reason"
  std::vector<int> skipped_lines;    // parallel to skipped: where each row starts in the CSV
};

// Rows that are not MEASURED or have neither throughput nor MFU are skipped with a reason.
// Errors: kIo, kParse (malformed CSV), kInvalidInput (a required column is missing).
core::Result<ValidationSet> load_validation_csv(const std::string& path,
                                                const catalog::Catalog& catalog);

// The source group of a row (cross-validation holds a group out whole): the first document its
// `source` cell cites, i.e. the text before the first quote, parenthesis, '@', ';', ',' or '+',
// trimmed. "Narayanan et al. 2021 'Efficient...' (SC21)" -> "Narayanan et al. 2021";
// "NVIDIA/dgxc-benchmarking llama3.1/README_70b.md (commit ...)" ->
// "NVIDIA/dgxc-benchmarking llama3.1/README_70b.md". An empty cell is the group "(no source)".
std::string source_group(const std::string& source);
// The software era (data/software.yaml) of a row without a `software` cell, from its source:
// Narayanan et al. 2021 -> megatron-2021, Korthikanti -> megatron-2022, NVIDIA's NeMo,
// Megatron-Bridge, dgxc-benchmarking and MLPerf recipes -> nemo-2025, else megatron-core-2024.
std::string software_of_source(const std::string& source);

}  // namespace aicost::config
