// Monte-Carlo discrete-event simulation of a whole training run under interrupts: work in
// checkpointed segments, interrupts from a renewal process (exponential or Weibull), restarts
// that can themselves be interrupted, a pool of spare nodes with repair turnaround (the job
// stalls when none is left), and planned maintenance. Seeded: run i draws from
// core::Rng(seed).split(i), so the result is byte-identical for any thread count.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "aicost/core/quantity.h"
#include "aicost/reliability/failure_model.h"

namespace aicost::reliability {

struct SimulationSpec {
  core::Seconds work;      // failure-free compute time of the run
  core::Seconds interval;  // compute between checkpoints (tau)
  core::Seconds blocking;  // blocking time of one checkpoint (delta)
  core::Seconds restart;   // time from an interrupt to computing again (R)
  int gpus = 0;
  int gpus_per_node = 8;
  FailureModel failures;
  int spare_nodes = -1;       // -1: replacements are always available (no spare limit)
  bool random_repair = true;  // exponential repair times with the cause's mean; else fixed
};

struct SimulationOptions {
  int runs = 1000;
  uint64_t seed = 1;
  int threads = 0;                            // 0 = all hardware threads
  std::atomic<uint64_t>* progress = nullptr;  // runs done
  // When set and true, the runs not yet started are left out and their results are zero: the
  // caller that set it discards the result (Ctrl-C in Python).
  const std::atomic<bool>* cancel = nullptr;
};

// One simulated run: where its wall time went.
struct RunResult {
  double wall = 0, checkpoints = 0, lost_work = 0, restarts = 0, stalls = 0, maintenance = 0;
  int interruptions = 0;
};

struct Summary {
  double mean = 0, stddev = 0, p10 = 0, p50 = 0, p90 = 0;
  // Standard error of the mean.
  double sem(int n) const;
};

// Values counted in equal bins: bin i holds those in [lo + i * width, lo + (i + 1) * width), the
// last bin its upper end too. All values equal: one bin of width 0. No values: no bins.
struct Histogram {
  double lo = 0, width = 0;
  std::vector<int> counts;
};

struct SimulationResult {
  int runs = 0;
  Summary wall_s;            // wall-clock seconds per run
  Histogram wall_histogram;  // the runs by wall seconds: ceil(sqrt(runs)) bins, 40 at most
  Summary ettr;              // work / wall
  Summary interruptions;
  // Means over runs of each part of the wall time, in seconds.
  double checkpoints = 0, lost_work = 0, restarts = 0, stalls = 0, maintenance = 0;
  uint64_t events = 0;  // interrupts, checkpoints and maintenance windows simulated
};

SimulationResult simulate(const SimulationSpec& spec, const SimulationOptions& options);

struct RunInputs;
// The simulation of a run checkpointed every `interval`, with `spare_nodes` (-1: no limit).
SimulationSpec simulation_spec(const RunInputs& in, core::Seconds interval, int spare_nodes);

// Mean, standard deviation and P10/P50/P90 (linear interpolation) of `values` (sorted here).
Summary summarize(std::vector<double> values);

// `values` in `bins` (at least 1) equal bins from the least to the greatest.
Histogram histogram(const std::vector<double>& values, int bins);

}  // namespace aicost::reliability
