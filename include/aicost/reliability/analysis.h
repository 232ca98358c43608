// Reliability of one training run: its interrupt rate, checkpoint and restart costs, the
// checkpoint interval that minimises time and the one that minimises money, the expected loss
// decomposition, and what each lever is worth. Closed forms (exponential interrupts); the
// simulation (simulation.h) adds distributions, spares and maintenance.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aicost/core/quantity.h"
#include "aicost/reliability/closed_form.h"
#include "aicost/reliability/failure_model.h"

namespace aicost::reliability {

struct RunInputs {
  core::Seconds work;  // failure-free compute time
  int gpus = 0;
  int gpus_per_node = 8;
  FailureModel failures;
  CheckpointModel checkpoint;
  RestartModel restart;
  std::optional<core::Seconds> interval;  // the plan's checkpoint interval; none = optimise
  // Money: the fleet's price per second while the job holds it, and checkpoint storage.
  core::UsdPerSecond fleet_rate;
  core::UsdPerByteSecond storage_price;
  int checkpoints_retained = 5;
  std::optional<core::Seconds> keep_for;  // retention by age instead of by count
};

struct Lever {
  std::string name;      // "halve the interrupt rate", ...
  double wall_days = 0;  // wall time with the lever pulled
  double saved_days = 0;
  double saved_usd = 0;
};

struct Analysis {
  core::Seconds job_mtbf;
  core::Seconds blocking;             // delta
  core::Seconds restart;              // R
  core::Seconds young, daly, exact;   // time-optimal intervals
  core::Seconds cost_optimal;         // minimises compute + checkpoint storage money
  core::Seconds interval;             // the one used: the plan's, else cost_optimal
  LossBreakdown expected;             // at `interval`
  double checkpoint_storage_usd = 0;  // at `interval`
  double wall_usd = 0;                // fleet rate x expected wall time
  std::vector<Lever> levers;
};

// `with_levers`: also fill Analysis::levers (each lever is one more analysis).
Analysis analyze(const RunInputs& in, bool with_levers = true);

// Expected losses of `work` on `gpus` GPUs checkpointed every `tau` (Daly's model) plus planned
// maintenance, each a restart (and downtime) taken at a checkpoint.
LossBreakdown run_losses(core::Seconds work, int gpus, const FailureModel& failures,
                         const CheckpointModel& checkpoint, const RestartModel& restart,
                         core::Seconds tau);

// Expected wall time and money of the run checkpointed every `tau` (closed form).
LossBreakdown losses_at(const RunInputs& in, core::Seconds tau);
double storage_usd_at(const RunInputs& in, core::Seconds tau, core::Seconds wall);

}  // namespace aicost::reliability
