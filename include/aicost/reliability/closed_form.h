// Checkpoint/restart theory in closed form (../shared/reference/reliability-model.md §2).
// Notation: delta = blocking checkpoint time, M = job mean time to interrupt, R = restart time,
// tau = compute time between checkpoints, T_s = failure-free compute time. Pure functions.
#pragma once

#include "aicost/core/quantity.h"

namespace aicost::reliability {

// Job MTBF from a rate per unit (node-day, GPU-hour...) and the number of units:
// M = 1 / (units x rate) (Kokolis et al. 2025: MTTF = (N_nodes r_f)^-1).
core::Seconds job_mtbf(double failures_per_unit_second, double units);

// Young (1974): tau = sqrt(2 delta M).
core::Seconds young_interval(core::Seconds delta, core::Seconds mtbf);

// Daly (2006) higher-order optimum: sqrt(2 delta M) [1 + sqrt(delta/2M)/3 + (delta/2M)/9] - delta
// for delta < 2M, else M.
core::Seconds daly_interval(core::Seconds delta, core::Seconds mtbf);

// The exact minimiser of Daly's wall-clock model: M [1 + W0(-exp(-(1 + delta/M)))].
core::Seconds optimal_interval_exact(core::Seconds delta, core::Seconds mtbf);

// Principal branch of the Lambert W function for x in [-1/e, inf) (Halley iteration).
double lambert_w0(double x);

// Expected wall time of T_s of work checkpointed every tau (each segment = tau of work + delta)
// under Poisson interrupts of mean M, with restarts that can themselves be interrupted:
// each segment of length L takes M e^{R/M} (e^{L/M} - 1) on average (Daly 2006, eq. 11), summed
// over the full segments and the last partial one (which ends without a checkpoint).
core::Seconds expected_wall_time(core::Seconds work, core::Seconds tau, core::Seconds delta,
                                 core::Seconds restart, core::Seconds mtbf);

// First-order expected waste per unit of wall time: delta/tau + (tau/2 + R)/M.
double first_order_waste(core::Seconds tau, core::Seconds delta, core::Seconds restart,
                         core::Seconds mtbf);

// Where the wall time goes, in expectation (exponential interrupts).
struct LossBreakdown {
  core::Seconds work;         // failure-free compute
  core::Seconds checkpoints;  // blocking saves that completed
  core::Seconds lost_work;    // compute and saves redone after interrupts
  core::Seconds restarts;     // restart time, including restarts that were interrupted
  core::Seconds maintenance;  // planned windows (set by analysis.h's losses_at)
  double interruptions = 0;   // expected count
  core::Seconds wall() const { return work + checkpoints + lost_work + restarts + maintenance; }
  double ettr() const { return work.value() / wall().value(); }
};

LossBreakdown expected_losses(core::Seconds work, core::Seconds tau, core::Seconds delta,
                              core::Seconds restart, core::Seconds mtbf);

}  // namespace aicost::reliability
