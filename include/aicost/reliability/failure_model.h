// What interrupts a training job, how often, and what an interrupt costs to recover from.
// Rates are per GPU-hour of the job so they scale with its size; a cause also says how many
// nodes it takes out (0 for software faults, 1 for a GPU or host fault, more for a switch) and
// how long those nodes stay in repair. Figures and sources: data/reliability.yaml.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aicost/catalog/provenance.h"
#include "aicost/core/quantity.h"

namespace aicost::reliability {

enum class Distribution { kExponential, kWeibull };

struct FailureCause {
  std::string name;                        // "gpu", "hbm", "host", "network", "software", ...
  double per_gpu_hour = 0;                 // interrupts per GPU-hour of the job
  int nodes_lost = 1;                      // nodes that go to repair per interrupt
  core::Seconds repair_time{2 * 86400.0};  // until a lost node is back in the pool
  catalog::Provenance provenance;
};

struct FailureModel {
  std::vector<FailureCause> causes;
  // Interrupt inter-arrival times: exponential (memoryless), or Weibull with this shape
  // (k < 1: decreasing hazard, bursts; Schroeder & Gibson 2006 measured 0.7-0.8). The mean is
  // kept at 1 / total rate either way.
  Distribution distribution = Distribution::kExponential;
  double weibull_shape = 0.78;
  // Planned maintenance: interrupts per day of wall time, each taken at a checkpoint (no work
  // lost) and followed by `maintenance_downtime` plus a restart.
  double maintenance_per_day = 0;
  core::Seconds maintenance_downtime{0};

  // Interrupts per second for a job on `gpus` GPUs.
  double job_rate(int gpus) const;
  // Share of interrupts from each cause (same order as `causes`).
  std::vector<double> cause_shares() const;
};

// The checkpoint: size of the training state, save and load bandwidth of the storage tier.
struct CheckpointModel {
  core::Bytes size;
  core::BytesPerSecond write_bandwidth;  // aggregate
  core::BytesPerSecond read_bandwidth;   // aggregate
  bool async = false;                 // save in the background: only the device-to-host copy blocks
  double async_blocking_share = 0.1;  // of the write time
  double written_share = 1;  // of `size`, what a save writes (incremental saves: the changed part)
  double stored_ratio = 1;   // bytes stored / bytes (compression)
  // Aggregate compression and decompression rates (all nodes' cores); 0: not compressed.
  core::BytesPerSecond compress_rate, decompress_rate;
  core::Seconds restore{0};  // before the latest checkpoint can be read (an archive tier)
  // Compressing (sequentially, conservative) and writing what a save writes.
  core::Seconds write_time() const {
    const core::Bytes written = size * written_share;
    return written * stored_ratio / write_bandwidth +
           (compress_rate.value() > 0 ? written / compress_rate : core::Seconds(0));
  }
  core::Seconds blocking() const {
    return async ? write_time() * async_blocking_share : write_time();
  }
  // Restoring, reading and decompressing the whole state (the frozen base and the latest
  // increment, for incremental saves).
  core::Seconds read_time() const {
    return restore + size * stored_ratio / read_bandwidth +
           (decompress_rate.value() > 0 ? size / decompress_rate : core::Seconds(0));
  }
};

// A restart after an interrupt, as the sum of its parts (reliability-model.md §5). The parts'
// values live in data/reliability.yaml (`restart`); 0 here means "not read yet".
struct RestartModel {
  core::Seconds detection{0};     // fault noticed (NCCL timeouts are ~10 min; health checks faster)
  core::Seconds rescheduling{0};  // replacement nodes allocated, job relaunched
  core::Seconds initialisation{0};           // process groups, communicators, compile/warm-up
  std::optional<core::Seconds> fixed_total;  // the plan's restart_time, overriding the parts
  core::Seconds total(const CheckpointModel& ckpt) const {
    if (fixed_total) return *fixed_total;
    return detection + rescheduling + initialisation + ckpt.read_time();
  }
};

// Bytes of a checkpoint per parameter by optimizer state: bf16 weights (2) + fp32 master (4)
// + Adam m, v (8) = 14 (reliability-model.md §4.1).
inline constexpr double kCheckpointBytesPerParam = 14.0;

}  // namespace aicost::reliability
