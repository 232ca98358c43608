// How many spare nodes to hold: each option is simulated (spares are paid for the whole run,
// a job without a free spare stalls until a repaired node returns) and the cheapest in
// expectation is chosen; the smallest count that keeps stalls under a target share is also given.
#pragma once

#include <vector>

#include "aicost/core/quantity.h"
#include "aicost/reliability/simulation.h"

namespace aicost::reliability {

struct SpareOption {
  int spare_nodes = 0;
  double mean_wall_s = 0;
  double p90_wall_s = 0;
  double stall_share = 0;  // mean stall time / mean wall time
  double mean_usd = 0;     // (job GPUs + spare GPUs) x price x wall
};

struct SpareDecision {
  std::vector<SpareOption> options;
  int cheapest = 0;       // index into options
  int meets_target = -1;  // first option whose stall share is at most the target, or -1
};

// `counts`: spare node counts to try; `per_gpu`: price of one GPU; `stall_target`: e.g. 0.001.
SpareDecision choose_spares(const SimulationSpec& spec, const SimulationOptions& options,
                            core::UsdPerSecond per_gpu, const std::vector<int>& counts,
                            double stall_target);

// A ladder of counts to try for a job of `nodes` nodes: 0, 1, 2, 4, ... up to about 10 %.
std::vector<int> spare_ladder(int nodes);

}  // namespace aicost::reliability
