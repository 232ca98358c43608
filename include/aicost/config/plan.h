// The plan file (YAML): a training run described with Megatron/NeMo key names, turned into typed
// structs. The accepted keys and their defaults are documented in docs/PLAN_FORMAT.md.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "aicost/catalog/catalog.h"
#include "aicost/core/result.h"
#include "aicost/costing/cost_inputs.h"
#include "aicost/workload/training_job.h"

namespace aicost::config {

struct Plan {
  std::string name;
  std::string path;      // the file it came from
  std::string software;  // the `software:` era (data/software.yaml), empty when not given
  workload::TrainingJob job;
  costing::CostInputs cost;
  std::vector<std::string> warnings;  // accepted aliases, assumptions worth knowing
  // Every value the file gives but `name` and `search`, as (path, text):
  // "storage.checkpoint_interval", "2h" (see `aicost diff`).
  std::vector<std::pair<std::string, std::string>> values;
};

// Parses a plan. `origin` names the text in messages; relative paths inside the plan (hf_config)
// are resolved against `base_dir`. Errors carry file:line:col and a caret: kParse for malformed
// YAML, kInvalidInput for wrong values (unit-less numbers, negative sizes, unknown keys with a
// "did you mean"), kNotFound for unknown GPUs/models/instances (with suggestions), kIo for files.
// Parallel sizes are checked by workload::validate as part of parsing.
core::Result<Plan> parse_plan(const std::string& text, const std::string& origin,
                              const std::string& base_dir, const catalog::Catalog& catalog);

// Reads and parses the plan file at `path`.
core::Result<Plan> load_plan(const std::string& path, const catalog::Catalog& catalog);

// Reads a Hugging Face config.json file (see hf_config.h) from disk.
core::Result<catalog::ModelSpec> load_hf_config(const std::string& path,
                                                std::vector<std::string>* warnings);

}  // namespace aicost::config
