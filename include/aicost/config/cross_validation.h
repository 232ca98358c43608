// Grouped cross-validation of the training or serving model on a CSV of measured runs
// (`aicost validate --cv`, docs/VALIDATION.md): the file's rows become perf::Observations with
// their source group (source_group) and regime, and perf::cross_validate refits the model's
// calibrated parameters without each group in turn.
#pragma once

#include <string>
#include <vector>

#include "aicost/catalog/catalog.h"
#include "aicost/core/result.h"
#include "aicost/perf/calibration.h"

namespace aicost::config {

struct CrossValidationRun {
  bool serving = false;  // the file has the columns of inference-dev.csv
  std::vector<perf::Observation> observations;
  std::vector<perf::FitParameter> parameters;
  perf::CrossValidation cv;
  std::vector<std::string> skipped;  // "name: reason"
  std::vector<int> skipped_lines;    // parallel to skipped
};

// The observations of a training or serving CSV, with the catalog's profile as it is. Regime:
// "<generation>/<precision>/<dense|moe>" (serving: the weights' precision). Errors: those of
// load_validation_csv / load_inference_csv.
core::Result<CrossValidationRun> load_observations(const std::string& path,
                                                   const catalog::Catalog& catalog);

// load_observations, then perf::cross_validate with the model's parameters.
core::Result<CrossValidationRun> cross_validate_csv(const std::string& path,
                                                    const catalog::Catalog& catalog);

// The held-out time ratio of each observation (perf::time_ratio of cv.held_out).
std::vector<double> held_out_ratios(const CrossValidationRun& run);

// The error bands of a cross-validated run (perf::build_error_bands over held_out_ratios);
// `source` names the CSV in the bands.
catalog::ErrorBands held_out_bands(const CrossValidationRun& run, const std::string& source);

// The share of rows their 80 % interval covers, each group judged by bands built without it
// (perf::band_coverage).
double held_out_coverage(const CrossValidationRun& run);

}  // namespace aicost::config
