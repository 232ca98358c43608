// The report of `aicost validate --cv`: the fitted parameters, measured vs in-sample and
// held-out predictions per row, the error summaries side by side (overall and per regime), the
// folds, and the skipped rows. docs/VALIDATION.md shows it; docs/JSON_OUTPUT.md its JSON.
#pragma once

#include <string>
#include <vector>

#include "aicost/perf/calibration.h"
#include "aicost/report/format.h"

namespace aicost::report {

std::string render_cross_validation(const std::vector<perf::Observation>& observations,
                                    const std::vector<perf::FitParameter>& parameters,
                                    const perf::CrossValidation& cv,
                                    const std::vector<std::string>& skipped, Format format);

// A fitted value as data/efficiency.yaml writes it: "78%", "128", "0.3ms", "8us".
std::string format_parameter(const perf::FitParameter& p, double value);

}  // namespace aicost::report
