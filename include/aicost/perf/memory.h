// Peak memory per GPU on the most loaded pipeline stage (the first): model states by optimizer
// sharding (ZeRO paper §3/§5; Megatron theoretical_memory_usage.py) and activations per
// recompute/SP mode (Korthikanti et al. 2022, Table 2 and §4.2.3), generalised to GQA, gated MLPs,
// MoE and flash attention as derived in docs/MODEL.md.
#pragma once

#include "aicost/core/quantity.h"
#include "aicost/workload/training_job.h"

namespace aicost::perf {

struct MemoryBreakdown {
  core::Bytes weights;
  core::Bytes gradients;
  core::Bytes optimizer;
  core::Bytes activations;  // all micro-batches in flight on the first stage
  core::Bytes logits;       // fp32 logits + loss on the last stage (counted when p == 1)
  core::Bytes overhead;     // communication buffers, CUDA context, allocator fragmentation
  core::Bytes capacity;     // the GPU's memory
  double margin = 0;        // the model's measured error (TrainingJob::memory_margin)
  core::Bytes total() const {
    return weights + gradients + optimizer + activations + logits + overhead;
  }
  bool fits() const { return total() <= capacity; }
  // Over capacity, but by no more than the model's own error: a published run of this size may
  // well have fitted. Shown as "tight", never refused.
  bool tight() const { return !fits() && total() <= capacity * (1 + margin); }
  // Over capacity by more than the model's error: refused.
  bool refused() const { return !fits() && !tight(); }
  // "fits", "tight" or "does not fit".
  const char* verdict() const { return fits() ? "fits" : tight() ? "tight" : "does not fit"; }
};

// Activation bytes of one transformer layer for one micro-batch on one GPU (dense layer when
// `moe_layer` is false). For a classic GPT with dropout this equals Korthikanti Table 2.
double activation_bytes_per_layer(const workload::TrainingJob& job, bool moe_layer);

// Parameters held by one GPU of the first pipeline stage: non-expert and expert parts.
struct LocalParams {
  double dense = 0;           // replicated over DP x CP, sharded over TP
  double expert = 0;          // sharded over ETP x EP, replicated over EDP
  double outside_layers = 0;  // part of `dense`: embedding, output layer and final norm
};
LocalParams local_params(const workload::TrainingJob& job);

MemoryBreakdown estimate_memory(const workload::TrainingJob& job);

}  // namespace aicost::perf
