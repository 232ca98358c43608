// The report of `aicost calibrate`: the values fitted (shipped, calibrated, range over the folds),
// the candidates left at the catalog's values and why, the |error| before (shipped profile) and
// after (cross-validated) overall and per regime, every row, and the skipped rows.
// docs/VALIDATION.md "Calibrating to your runs" shows it; docs/JSON_OUTPUT.md its JSON.
#pragma once

#include <string>
#include <vector>

#include "aicost/perf/user_calibration.h"
#include "aicost/report/format.h"

namespace aicost::report {

std::string render_calibration(const perf::UserCalibration& calibration, bool serving,
                               const std::vector<std::string>& skipped, Format format);

}  // namespace aicost::report
