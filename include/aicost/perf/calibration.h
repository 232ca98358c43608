// Calibration of an efficiency profile against measured runs, and its honest evaluation.
//
// A few values of catalog::EfficiencyProfile are not set from principles but fitted to published
// measurements (docs/VALIDATION.md lists them): each is a FitParameter with a stated lattice
// (lo, lo + step, ..., hi). `fit` minimises the mean of |ln(predicted / measured)| over the rows
// (plus a parameter's prior, FitParameter::prior_rows) on that lattice: Nelder-Mead from `start`,
// restarted until it gains nothing, then the nearest lattice point polished by single- and
// two-parameter lattice moves (src/perf/lattice_search.h). It runs twice:
//   1. pooled: each per-generation parameter as ONE value for every generation, from `start`;
//   2. from the pooled values, each per-generation parameter per generation the rows have (with
//      `min_informing_rows`: per generation that has enough rows the parameter informs);
//   3. the pooled values once more, next to the shared values of stage 2.
// A generation the rows do not have takes the pooled value. Deterministic: no randomness, a fixed
// order, no threads. Nothing is fitted per row or per source.
//
// `cross_validate` holds out one source group at a time (every row of a paper or benchmark
// document), refits every parameter on the other rows and predicts the held-out ones: the CV
// error is the model's error on a source it has not seen. Pure functions; thread-safe.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "aicost/catalog/gpu.h"
#include "aicost/core/units.h"

namespace aicost::perf {

struct FitParameter {
  std::string key;              // its data/efficiency.yaml key, e.g. "gemm_max"
  bool per_generation = false;  // one value per GPU generation, else one shared by all
  core::UnitKind unit = core::UnitKind::kPercent;  // how it is written (SI values here)
  double lo = 0, hi = 0, step = 0;                 // the lattice searched, SI units
  double start = 0;  // where the search starts: a prior from principles, never from the runs
  double (*get)(const catalog::EfficiencyProfile&) = nullptr;
  void (*set)(catalog::EfficiencyProfile&, double) = nullptr;
  // Lower upper ends for some generations (per-generation parameters only): what their measured
  // kernels allow (data/measurements), so that no fit makes the model faster than the chip.
  std::map<std::string, double> hi_for = {};
  // Per-generation parameters only: a generation gets a value of its own only when at least
  // `min_informing_rows` of its rows are informed by the parameter, i.e. a 10 % change of it moves
  // their prediction by at least `min_elasticity` x 10 % (the share of the row's time it governs);
  // otherwise the generation takes the pooled value. 0: every generation with rows gets its own.
  int min_informing_rows = 0;
  double min_elasticity = 0;
  // A prior at `start`: the fit's loss adds prior_rows x |ln(value / start)| for each value of the
  // parameter (per generation and pooled), as if prior_rows more rows measured `start` and hung on
  // it wholly. A value the rows do not determine then stays near `start`, not wherever the search
  // stops; one they determine barely moves. 0: no prior.
  double prior_rows = 0;
};

// One measured figure and how the model predicts it under a profile.
struct Observation {
  std::string name;
  std::string generation;  // of its GPU; selects the per-generation values
  std::string group;       // its source (held out together in cross-validation)
  std::string regime;      // for summaries, e.g. "hopper/fp8/dense"
  double measured = 0;     // > 0
  bool rate = true;        // `measured` is a rate (tokens/s); false: a time (TTFT, TPOT)
  catalog::EfficiencyProfile profile;  // the catalog's profile of its generation
  // The model's prediction with `profile` changed (> 0 and finite when the model can answer).
  std::function<double(const catalog::EfficiencyProfile&)> predict;
};

// Fitted values, parallel to the parameters they were fitted for.
struct FitResult {
  // Per parameter: the value per generation ("*" = pooled, for generations without rows); a
  // shared parameter has only "*".
  std::vector<std::map<std::string, double>> values;
  double loss = 0;  // mean |ln(predicted / measured)| over the rows, priors included
  int rows = 0;
  int evaluations = 0;  // of the loss, all stages

  double value(size_t parameter, const std::string& generation) const;
  // `profile` with every fitted parameter set to its value for profile.generation.
  catalog::EfficiencyProfile apply(catalog::EfficiencyProfile profile,
                                   const std::vector<FitParameter>& parameters) const;
};

// One fitted number by name, in parameter order: "gemm_max[ampere]", "gemm_half_dim", ...
struct FittedNumber {
  std::string name;
  size_t parameter = 0;  // index into the parameters
  double value = 0;
  bool pooled = false;  // a generation the fit had no rows of: the pooled value stands in
};
// The numbers of `fit`: shared parameters once, per-generation ones for each of `generations`
// (empty: the generations the fit had rows of; the pooled fallback is then not listed).
std::vector<FittedNumber> fitted_numbers(const FitResult& fit,
                                         const std::vector<FitParameter>& parameters,
                                         const std::vector<std::string>& generations = {});

// Fits `parameters` to `rows` (see the file comment). No rows: every parameter at its start.
FitResult fit(const std::vector<const Observation*>& rows,
              const std::vector<FitParameter>& parameters);

struct CrossValidation {
  FitResult all;                    // fitted on every row
  std::vector<double> in_sample;    // per observation, predicted with `all`
  std::vector<double> held_out;     // per observation, predicted with the fit without its group
  std::vector<std::string> groups;  // in order of first appearance
  std::vector<FitResult> folds;     // parallel to `groups`: the fit without that group
};

// measured time / predicted time of `o` predicted as `predicted` (a rate is turned into a time).
inline double time_ratio(const Observation& o, double predicted) {
  return o.rate ? predicted / o.measured : o.measured / predicted;
}

CrossValidation cross_validate(const std::vector<Observation>& observations,
                               const std::vector<FitParameter>& parameters);

// The step model's calibrated parameters: gemm_max per generation; gemm_half_dim,
// layer_overhead and step_overhead shared (they describe kernels and software, not the chip).
std::vector<FitParameter> training_fit_parameters();

}  // namespace aicost::perf
