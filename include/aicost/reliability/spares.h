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

// The share of the wall time a job on `gpus` GPUs waits for a node, holding `spare_nodes` spares
// (-1: replacements always available, 0). Failed nodes go to repair while the job takes a spare;
// it runs while at most `spare_nodes` nodes are in repair and stalls until one returns when one
// more fails. Nodes in repair are an Erlang loss system: arrivals m = sum over causes of
// interrupts per hour x nodes lost x repair hours, S + 1 "servers", and the job waits the share
// of time all S + 1 are busy, Erlang's B(S + 1, m). Exact for Poisson interrupts of one node each
// (insensitive to the repair time's distribution); checked against the simulation.
double spare_stall_share(const FailureModel& failures, int gpus, int spare_nodes);

// A ladder of counts to try for a job of `nodes` nodes: 0, 1, 2, 4, ... up to about 10 %.
std::vector<int> spare_ladder(int nodes);

}  // namespace aicost::reliability
