// Per-layer, per-micro-batch times on one GPU; private to perf (used by estimate.cc).
#pragma once

#include "aicost/core/quantity.h"
#include "aicost/workload/training_job.h"

namespace aicost::perf {

struct LayerTime {
  core::Seconds compute;      // forward + backward
  core::Seconds recompute;    // extra forward under selective/full recompute
  core::Seconds tp;           // exposed TP/SP collectives
  core::Seconds cp;           // exposed CP ring exchange
  core::Seconds ep;           // expert all-to-all
  double hardware_flops = 0;  // executed FLOPs incl. recompute (for HFU)
  core::Seconds total() const { return compute + recompute + tp + cp + ep; }
};

// One transformer layer (dense or MoE) for one micro-batch on one GPU.
LayerTime layer_time(const workload::TrainingJob& job, bool moe_layer);

// The output layer and loss for one micro-batch on the last stage (forward + backward).
LayerTime logits_time(const workload::TrainingJob& job);

// Time of one GEMM of M x N x K (2MNK FLOPs) at the job's math precision, or at BF16 when
// `low_precision` is false (layers Transformer Engine does not run in FP8: the output layer).
// FP8 GEMMs reach fp8_gemm_relative * K / (K + fp8_gemm_half_k) of the doubled peak's share.
core::Seconds gemm_time(const workload::TrainingJob& job, double m, double n, double k,
                        bool low_precision = true);
// Whether the job's transformer-block GEMMs run in a low precision (FP8, INT8, FP4) on its GPU.
bool runs_low_precision(const workload::TrainingJob& job);

}  // namespace aicost::perf
