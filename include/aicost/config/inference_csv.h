// Reads published serving measurements (the columns of ../shared/validation/inference-dev.csv)
// into serving::Measurement values. Rules (docs/VALIDATION.md): the model is the catalog preset
// named in the `model` column; FP8 rows store weights and KV in fp8, FP16 rows in fp16, others
// in bf16; "static batch N" / "batch N" / "fixed batch N" give the batch, "max load" lets the
// KV cache decide; each of throughput, TTFT and TPOT present becomes one measurement.
#pragma once

#include <string>
#include <vector>

#include "aicost/catalog/catalog.h"
#include "aicost/core/result.h"
#include "aicost/serving/measurement.h"

namespace aicost::config {

struct InferenceSet {
  std::vector<serving::Measurement> cases;
  std::vector<std::string> skipped;  // "name: reason"
  std::vector<int> skipped_lines;    // parallel to skipped: where each row starts in the CSV
};

core::Result<InferenceSet> load_inference_csv(const std::string& path,
                                              const catalog::Catalog& catalog);

// Whether the CSV at `path` has the columns of an inference (rather than training) dev set.
bool is_inference_csv(const std::string& path);

}  // namespace aicost::config
