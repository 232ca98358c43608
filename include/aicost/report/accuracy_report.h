// The table of `aicost validate`: measured vs predicted per run, and the error summary.
#pragma once

#include <string>
#include <vector>

#include "aicost/perf/accuracy.h"
#include "aicost/report/format.h"

namespace aicost::report {

// Rows: name, group, measured and predicted tokens/s/GPU, signed error; then the summary
// (count, median, p90, mean, max |error|, bias) overall and per group; then the skipped rows.
std::string render_accuracy(const std::vector<perf::AccuracyCase>& cases,
                            const std::vector<std::string>& skipped, Format format);

}  // namespace aicost::report
