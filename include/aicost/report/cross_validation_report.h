// The report of `aicost validate --cv`: the fitted parameters, measured vs in-sample and
// held-out predictions per row, the error summaries side by side (overall and per regime), the
// folds, and the skipped rows. docs/VALIDATION.md shows it; docs/JSON_OUTPUT.md its JSON.
#pragma once

#include <string>
#include <vector>

#include "aicost/catalog/error_band.h"
#include "aicost/perf/calibration.h"
#include "aicost/report/format.h"

namespace aicost::report {

std::string render_cross_validation(const std::vector<perf::Observation>& observations,
                                    const std::vector<perf::FitParameter>& parameters,
                                    const perf::CrossValidation& cv,
                                    const std::vector<std::string>& skipped, Format format);

// data/intervals.yaml as `validate --cv --write-intervals` writes it: a header saying how it is
// made and regenerated, then `intervals.training` and `intervals.serving` (a null one is left
// out), each band's figures as the time ratio minus one in percent with two decimals.
// `intervals.memory` holds the memory model's margin (null: left out).
std::string render_error_bands_yaml(const catalog::ErrorBands* training,
                                    const catalog::ErrorBands* serving,
                                    const catalog::MemoryMargin* memory);

// The command that regenerates the shipped data/intervals.yaml, run from the repository root.
inline constexpr const char* kWriteIntervalsCommand =
    "aicost validate --cv data/validation/training-dev.csv data/validation/inference-dev.csv "
    "data/validation/memory-dev.csv --write-intervals data/intervals.yaml";

// A fitted value as data/efficiency.yaml writes it: "78%", "128", "0.3ms", "8us".
std::string format_parameter(const perf::FitParameter& p, double value);

}  // namespace aicost::report
