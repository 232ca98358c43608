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

// Expected copies of one token that an MoE dispatch sends with top-`topk` routing over `experts`
// experts spread evenly over the expert-parallel group `ep` (balanced, uniform routing).
struct DispatchCopies {
  double remote = 0;  // over the scale-out network (to other NVLink domains)
  double local = 0;   // over NVLink (to other GPUs of the sender's domain, or forwarded there)
};
// alltoall: one copy per routed expert off the GPU (Megatron permutes before the all-to-all).
// flex (DeepEP/HybridEP): one RDMA copy per other domain holding any of the token's experts,
// and one NVLink copy per other GPU holding any of them (DeepEP README; Megatron-Core MoE README:
// "removes redundant tokens during cross-node communication").
DispatchCopies dispatch_copies(const workload::TrainingJob& job, Group ep, double experts,
                               double topk);

// Time of one dispatch (or combine) of `token_bytes` (the GPU's tokens x hidden x element size)
// to the experts of `ep`, by the job's dispatcher.
core::Seconds dispatch_time(const workload::TrainingJob& job, Group ep, double experts, double topk,
                            core::Bytes token_bytes);

}  // namespace aicost::perf
