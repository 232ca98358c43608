// Time of NCCL collectives: t = latency + S * factor / busBW (nccl-tests doc/PERFORMANCE.md;
// training-model.md §5.1), with busBW set by where the group sits: inside an NVLink domain, or
// across nodes where the group's GPUs in one domain share their NICs (hierarchical rings).
#pragma once

#include "aicost/core/quantity.h"
#include "aicost/workload/training_job.h"

namespace aicost::perf {

enum class Collective { kAllReduce, kReduceScatter, kAllGather, kAllToAll, kSendRecv };

// A communication group: `size` ranks placed `stride` ranks apart in Megatron's rank order.
struct Group {
  int size = 1;
  int stride = 1;
};

// GPUs of the group that share one NVLink domain.
int local_ranks(const workload::TrainingJob& job, Group g);

// Bus bandwidth the group reaches for ring-style collectives.
core::BytesPerSecond bus_bandwidth(const workload::TrainingJob& job, Group g);

// Time for one collective of `bytes` (the buffer size in nccl-tests' sense).
core::Seconds collective_time(const workload::TrainingJob& job, Collective c, Group g,
                              core::Bytes bytes);

}  // namespace aicost::perf
