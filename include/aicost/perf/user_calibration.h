// Calibration of the shipped efficiency profile to a user's own measured runs (`aicost calibrate`,
// docs/VALIDATION.md "Calibrating to your runs"). A user has a handful of runs, often of one GPU;
// the rule is to fit only what those rows can determine, from the shipped values:
//   - per-generation parameters (training: gemm_max; serving: serving_prefill_mfu,
//     serving_decode_bandwidth) for the generations the rows have, each searched from the
//     shipped value (the mean over the generations present for the pooled stage of perf::fit),
//     within the parameter's range and per-generation ceiling, widened to include the shipped
//     value when it lies outside them (a range never moves a value the rows do not move);
//   - a per-generation parameter only when every generation present has at least
//     `min_rows_per_generation` rows that respond to it (a 10 % change of the value moves the
//     prediction by more than 1 %): a serving file of throughput rows alone leaves the prefill
//     share where it was;
//   - shared parameters (gemm_half_dim, layer_overhead, ...) stay at the catalog's values unless
//     the rows are many and varied: at least `shared_min_rows` rows from `shared_min_groups`
//     source groups (then they are fitted too, under the same response rule).
// Everything else is the catalog's profile of each row's generation, untouched.
//
// Before: the shipped profile's error on the rows. After: cross-validated, by perf::cross_validate
// with hold-out units chosen by `holdout_units`: a source group when the file has more than one
// and every generation has rows of at least two groups (so no fold loses a generation); else
// each row in turn when there are at most `max_leave_one_out` rows; else `folds` folds (row i in
// fold i mod folds). Deterministic; pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/perf/accuracy.h"
#include "aicost/perf/calibration.h"

namespace aicost::perf {

struct CalibrationRules {
  int min_rows_per_generation = 3;
  int shared_min_rows = 40;
  int shared_min_groups = 3;
  int max_leave_one_out = 20;
  int folds = 5;
};

struct HeldParameter {
  std::string key;
  std::string reason;  // why it stays at the catalog's value
};

struct UserCalibration {
  std::vector<FitParameter> parameters;   // fitted; `start` = the shipped value
  std::vector<HeldParameter> held;        // candidates left at the catalog's values
  std::vector<std::string> generations;   // of the rows, sorted
  std::string holdout;                    // "source group", "row" or "5 folds"
  std::vector<Observation> observations;  // groups replaced by the hold-out units
  std::vector<double> before;             // per observation: predicted with the shipped profile
  CrossValidation cv;                     // cv.all: the fit written; cv.held_out: the "after"
};

// Calibrates `candidates` (training_fit_parameters() or serving::fit_parameters()) to
// `observations` under `rules`. Errors (kInvalidInput, the message says what to add): no rows,
// fewer than min_rows_per_generation rows of a generation, no parameter the rows determine.
// Measured vs predicted per observation (name, regime): with the shipped profile (kBefore), with
// the fit without the row's hold-out unit (kAfter, the cross-validated error) or with the fit on
// every row (kInSample, what the written overlay predicts for these rows).
enum class CalibrationStage { kBefore, kAfter, kInSample };
std::vector<AccuracyCase> calibration_cases(const UserCalibration& c, CalibrationStage stage);

core::Result<UserCalibration> calibrate(std::vector<Observation> observations,
                                        const std::vector<FitParameter>& candidates,
                                        const CalibrationRules& rules = {});

}  // namespace aicost::perf
