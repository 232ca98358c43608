// `aicost calibrate` (docs/VALIDATION.md "Calibrating to your runs"): the user's measured runs,
// read as `aicost validate` reads them (config::load_observations), calibrated by
// perf::calibrate, and the catalog overlay that carries the result to `--catalog`.
#pragma once

#include <string>
#include <vector>

#include "aicost/catalog/catalog.h"
#include "aicost/core/result.h"
#include "aicost/perf/user_calibration.h"

namespace aicost::config {

struct CalibrationRun {
  std::string path;  // the CSV
  bool serving = false;
  perf::UserCalibration fit;
  std::vector<std::string> skipped;  // "name: reason"
};

// Errors: those of load_observations (kIo, kParse with file:line, kInvalidInput for a missing
// column); kNotFound (context file:line:1 of the first such row, every one listed) when a row
// names a GPU the catalog lacks or a generation without an
// efficiency profile (a user's own runs are not silently dropped); those of perf::calibrate.
core::Result<CalibrationRun> calibrate_csv(const std::string& path, const catalog::Catalog& catalog,
                                           const perf::CalibrationRules& rules = {});

// The catalog overlay: one `efficiency:` entry per generation of the rows, `base: <generation>`
// plus the fitted keys only (values as data/efficiency.yaml writes them), and a source naming the
// CSV, its row count and the CV error before and after; `date` is YYYY-MM-DD.
std::string calibration_overlay(const CalibrationRun& run, const std::string& date);

// Writes `text` to `path` whole or not at all (a temporary file beside it, renamed into place).
// Errors: kIo naming the path and the system's reason.
core::Status write_overlay(const std::string& path, const std::string& text);

}  // namespace aicost::config
