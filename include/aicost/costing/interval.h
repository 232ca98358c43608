// The 80 % interval of a training estimate (docs/VALIDATION.md "Intervals"): the step time at the
// ends of the regime's error band (perf::interval_for), and the run's GPU-hours, wall time and
// cost recomputed by estimate_cost at each end, so that failure overhead and fixed costs respond
// as they do to any slower or faster step. Thread-safe (pure function).
#pragma once

#include "aicost/costing/cost_model.h"
#include "aicost/perf/interval.h"

namespace aicost::costing {

struct Range {
  double lo = 0, hi = 0;
};

struct EstimateInterval {
  perf::Interval band;  // band.known false: no bands loaded, the ranges equal the estimate
  Range step_time_s;
  Range gpu_hours;  // including failure overhead, as CostEstimate::gpu_hours
  Range wall_days;
  Range total_usd;
};

// `perf` with its step time scaled by `ratio`: every step part, compute time and GPU-hours times
// `ratio`, throughputs and MFU/HFU divided by it.
perf::TrainingEstimate scale_step_time(perf::TrainingEstimate perf, double ratio);

EstimateInterval estimate_interval(const workload::TrainingJob& job,
                                   const perf::TrainingEstimate& perf, const CostInputs& inputs,
                                   const perf::Interval& band);

}  // namespace aicost::costing
