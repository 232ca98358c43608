// Resources to money: every category a training budget has. The words on how each line was
// computed (its driver) are report's, from the same inputs (report/cost_drivers.cc).
// Thread-safe (pure function).
#pragma once

#include <string>
#include <vector>

#include "aicost/core/quantity.h"
#include "aicost/costing/cost_inputs.h"
#include "aicost/perf/estimate.h"
#include "aicost/reliability/analysis.h"
#include "aicost/workload/training_job.h"

namespace aicost::costing {

enum class CostNature { kElastic, kFixed };  // scales with the run's resources, or does not

struct CostLine {
  std::string category;  // compute | failures | storage | network | database | monitoring |
                         // security | operations | contingency
  core::Usd amount;
  CostNature nature = CostNature::kElastic;
  core::UsdPerSecond average_rate;  // amount / wall time
  core::UsdPerSecond peak_rate;     // highest instantaneous rate (storage peaks at full retention)
};

// Expected effect of interruptions and checkpoints on a run: Daly's (2006) exact model for
// Poisson interrupts, at the plan's interval or the time-optimal one (reliability module).
struct FailureOverhead {
  core::Seconds job_mtbf;
  core::Seconds checkpoint_interval;
  core::Seconds checkpoint_blocking;  // per save
  core::Seconds restart_per_interrupt;
  core::Bytes checkpoint_size;
  double expected_interruptions = 0;
  core::Seconds checkpoint_time;  // total stall on saves
  core::Seconds lost_work;        // recomputed work after interruptions
  core::Seconds restart_time;     // total restart time
  core::Seconds maintenance;      // planned maintenance windows (restart + downtime each)
  // Waiting for a repaired node when the spare pool is empty (reliability.spare_nodes set;
  // reliability::spare_stall_share); 0 when replacements are always available.
  core::Seconds spare_stall;
  double spare_stall_share = 0;  // of the wall time
  core::Seconds total() const {
    return checkpoint_time + lost_work + restart_time + maintenance + spare_stall;
  }
  double goodput = 1;  // failure-free time / wall time
};

struct CostEstimate {
  std::vector<CostLine> lines;
  FailureOverhead failures;
  core::Seconds wall_time;  // failure-free compute + failure overhead
  double gpu_hours = 0;     // including failure overhead
  core::Usd total;
  core::Usd fixed;
  core::Usd elastic;
  core::Usd per_million_tokens;
  core::Bytes peak_storage;
  std::vector<std::string> warnings;
};

// The checkpoints kept over a run (storage_terms.cc): their storage cost, the bytes kept at
// once and the cost rate at that peak. Without tier terms, lifecycle, compression or incremental
// saves: `retained` x size x price x wall time, as ever.
struct CheckpointStorage {
  double retained =
      0;  // checkpoints kept at once (fewer in a run shorter than retained x interval)
  core::Bytes peak;
  core::Usd cost;
  core::UsdPerSecond peak_rate;
};
CheckpointStorage checkpoint_storage(const StorageInputs& s, const FailureOverhead& f,
                                     core::Seconds wall);
// True when checkpoints pay only their tier's price (no minimum duration, lifecycle,
// compression or incremental saves).
bool plain_checkpoint_storage(const StorageInputs& s);
// One checkpoint of `bytes` kept for `lifetime` through the tiers of `s` (written to
// checkpoint_tier, moved by checkpoint_warm and checkpoint_cold), each tier billing at least its
// minimum duration.
core::Usd checkpoint_lifetime_cost(const StorageInputs& s, core::Bytes bytes,
                                   core::Seconds lifetime);
// The terms of the tier the latest checkpoint sits in at `interval` (a restart reads it there):
// the tier saves are written to, unless a lifecycle stage starts before one interval.
const TierTerms& latest_checkpoint_terms(const StorageInputs& s, core::Seconds interval);
// Retrieval fees of the run's reads: what the data loader reads from the dataset's tier (every
// trained token's bytes once per loading pipeline stage and context-parallel rank,
// perf::data_reads), and the latest checkpoint on every expected restart.
core::Usd retrieval_fees(const workload::TrainingJob& job, const StorageInputs& s,
                         const FailureOverhead& f);

// The checkpoint of this job: the plan's size or 14 B/param of training state, and bandwidths.
reliability::CheckpointModel checkpoint_model(const workload::TrainingJob& job,
                                              const CostInputs& in);

// The reliability model's view of this run: work, GPUs, failure model, checkpoint, restart and
// the money rates that weigh checkpoint intervals and spares.
reliability::RunInputs reliability_inputs(const workload::TrainingJob& job,
                                          const perf::TrainingEstimate& perf, const CostInputs& in);

// Does not read `in.compute`: a run's failure overhead, and so its wall time, is the same at every
// price (a search prices one candidate several times with one FailureOverhead).
FailureOverhead failure_overhead(const workload::TrainingJob& job,
                                 const perf::TrainingEstimate& perf, const CostInputs& in);

CostEstimate estimate_cost(const workload::TrainingJob& job, const perf::TrainingEstimate& perf,
                           const CostInputs& in);
// The same with the failure overhead already known: `failures` must be
// failure_overhead(job, perf, in'), where `in'` may differ from `in` only in `compute`.
CostEstimate estimate_cost(const workload::TrainingJob& job, const perf::TrainingEstimate& perf,
                           const CostInputs& in, const FailureOverhead& failures);

// A lower bound on estimate_cost(job, perf, in).total for any perf estimate with this failure-free
// `compute_time` and at least `wall` wall time (wall >= compute_time; pass compute_time when the
// failure overhead is not known), for a search to skip pricing plans that cannot rank.
// Every cost line is >= 0 (the plan loader refuses negative prices and amounts), so
// total >= (1 + contingency) x (compute + failures + commitment), and
//   compute + failures + commitment = fleet x wall + (term x terms - wall) x fleet' x (1 - reuse)
//                                   >= fleet x (reuse x wall + (1 - reuse) x term x
//                                   ceil(wall/term))
// (fleet' = per-GPU price x (GPUs + spares) >= fleet), which grows with the wall time. The result
// is shrunk by 1e-9 so that the rounding of the dozen additions of the exact model can never put
// the computed total below it. 0 (no bound) when the contingency, the reuse share or the price
// is out of its range.
core::Usd cost_lower_bound(const workload::TrainingJob& job, core::Seconds wall,
                           const CostInputs& in);

}  // namespace aicost::costing
