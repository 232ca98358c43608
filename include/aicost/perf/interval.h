// 80 % intervals on the model's estimates, from its cross-validated error per regime
// (catalog::ErrorBands, data/intervals.yaml; docs/VALIDATION.md "Intervals").
//
// Building the bands (at `aicost validate --cv --write-intervals`, never at estimate time): each
// validation row gives one held-out time ratio r = measured time / predicted time, predicted by
// the fit without the row's source group. A band is the 10th, 50th and 90th percentile of ln r
// over the rows of a pool (linear interpolation between order statistics, Hyndman & Fan type 7),
// kept with its row count and extremes. Pools: every prefix of every row's regime path
// ("hopper/bf16/dense" feeds "hopper/bf16/dense", "hopper/bf16", "hopper"), and "all".
//
// Reading a band for a plan (interval_for), the small-sample rule:
//   1. The plan's regime path is tried from the finest prefix to "all"; the first pool with at
//      least kMinBandRows rows from at least kMinBandSources source groups is used (else "all"). A
//      finer pool skipped for having fewer rows makes the interval "little data", and the interval
//      is stretched to cover every row of the plan's own regime that exists (its min and max), so a
//      known bias of a thin regime is not hidden.
//   2. The pool's band is widened about its median by the normal-theory prediction-interval
//      factor k(n) = t(0.90, n-1) * sqrt(1 + 1/n) / z(0.90) with n the number of SOURCE GROUPS
//      in the pool, not rows: runs from one paper share its setup and its error, so a new
//      source's error spreads like one more group, not one more row (k(7) = 1.20, k(3) = 1.70;
//      a pool of one group is treated as two).
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "aicost/catalog/error_band.h"
#include "aicost/catalog/precision.h"

namespace aicost::perf {

// Pools with fewer rows or source groups than these do not set an interval on their own (rule 1
// above): a spread estimated from one or two sources cannot show how sources differ.
inline constexpr int kMinBandRows = 10;
inline constexpr int kMinBandSources = 3;

// "<generation>/<precision>/<dense|moe>": the regime of a training job or a serving replica, the
// same string validate --cv reports. A further dimension (a software era) is appended with '/'.
std::string regime_of(const std::string& generation, catalog::Precision precision, bool moe);

// The pools a regime belongs to, finest first: "a/b/c" -> {"a/b/c", "a/b", "a", "all"}.
std::vector<std::string> regime_pools(const std::string& regime);

// Quantile q in [0, 1] of `values` (not empty), linear interpolation between order statistics
// (Hyndman & Fan 1996, definition 7; numpy's default).
double quantile(std::vector<double> values, double q);

// The widening factor k(n) of rule 2 for a pool of n >= 1 rows (n = 1 is treated as n = 2).
double small_sample_factor(int n);

// Bands of every pool of `regimes` from the rows' source groups and time ratios (parallel
// vectors, ratios > 0), sorted by regime.
catalog::ErrorBands build_error_bands(const std::vector<std::string>& regimes,
                                      const std::vector<std::string>& groups,
                                      const std::vector<double>& time_ratios, std::string source);

// An 80 % interval on a time, as ratios of the point estimate: [lo, hi] with lo <= 1 <= hi not
// guaranteed (a biased regime can have both ends above 1).
struct Interval {
  bool known = false;     // false: no bands (then lo = hi = 1)
  double lo = 1, hi = 1;  // time ratios
  std::string regime;     // the plan's regime
  std::string pool;       // the pool whose band was used
  int regime_rows = 0;    // rows of the plan's own regime in the validation data
  int pool_rows = 0;
  int pool_groups = 0;
  double widening = 1;       // k(pool_groups)
  bool little_data = false;  // regime_rows < kMinBandRows
};

Interval interval_for(const catalog::ErrorBands& bands, const std::string& regime);

// How often the intervals cover a run they were not built from: for each source group, bands are
// built from the other groups' rows (parallel vectors) and interval_for is asked for each of the
// group's rows. Returns the share of rows whose time ratio lies in [lo, hi].
double band_coverage(const std::vector<std::string>& regimes,
                     const std::vector<std::string>& groups,
                     const std::vector<double>& time_ratios);

}  // namespace aicost::perf
