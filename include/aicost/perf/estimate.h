// The training step model: time per step with its breakdown, throughput, MFU/HFU, GPU-hours and
// memory. Analytical (Calculon-style, training-model.md §5.4):
//   T_step = (m + (p-1)/v) * T_microbatch_stage + m * T_logits + T_pp + T_dp,exposed + T_optimizer
// where each GEMM runs at a size-dependent share of the dense peak, element-wise kernels are
// bound by HBM bandwidth, and TP/CP/EP/PP/DP collectives follow perf/comm.h.
// Thread-safe (pure function of its input).
#pragma once

#include <string>
#include <vector>

#include "aicost/core/quantity.h"
#include "aicost/core/result.h"
#include "aicost/perf/flops.h"
#include "aicost/perf/memory.h"
#include "aicost/workload/training_job.h"

namespace aicost::perf {

// Seconds per optimizer step by cause, as they add up on the critical path.
struct StepBreakdown {
  core::Seconds compute;    // forward + backward GEMMs, attention, element-wise (all micro-batches)
  core::Seconds recompute;  // extra forward work of activation recomputation
  core::Seconds tp_comm;    // exposed tensor/sequence-parallel collectives
  core::Seconds cp_comm;    // exposed context-parallel ring exchange
  core::Seconds ep_comm;    // expert-parallel all-to-all (dispatch + combine)
  core::Seconds pp_comm;    // pipeline point-to-point sends
  core::Seconds bubble;     // pipeline fill and drain: (p-1)/v micro-batch slots
  core::Seconds dp_comm;    // exposed gradient reduce-scatter / all-reduce and param all-gather
  core::Seconds optimizer;  // Adam update, HBM-bound
  // GPUs waiting for data: the part of reading a step's batch from the dataset's storage tier
  // that outlasts the rest of the step (the loader prefetches the next step's batch meanwhile).
  // 0 when the tier keeps up or its read rate is not known (workload::DataFeed).
  core::Seconds data_loading;
  core::Seconds total() const {
    return compute + recompute + tp_comm + cp_comm + ep_comm + pp_comm + bubble + dp_comm +
           optimizer + data_loading;
  }
};

struct TrainingEstimate {
  StepBreakdown step;
  core::Seconds step_time;
  double tokens_per_step = 0;
  double tokens_per_s = 0;  // whole job
  double tokens_per_s_per_gpu = 0;
  double model_flops_per_token = 0;     // 3 x forward, causal convention (FlopConvention::kCausal)
  double hardware_flops_per_token = 0;  // + recomputation
  double mfu = 0;                       // model FLOP/s / (GPUs x dense peak of `precision`)
  double hfu = 0;
  core::FlopsPerSecond model_flops_per_gpu;  // achieved model FLOP/s per GPU
  catalog::Precision peak_precision = catalog::Precision::kBf16;
  core::FlopsPerSecond peak_per_gpu;
  double steps = 0;
  core::Seconds compute_time;  // steps x step time, failure-free
  double gpu_hours = 0;        // failure-free GPU-hours
  MemoryBreakdown memory;
  std::vector<std::string> warnings;
};

// The batch reads of one step: bytes read from the dataset's tier and the aggregate rate of the
// nodes that read them (Megatron's pretrain_gpt.py get_batch: only the first and last pipeline
// stages load a batch, on TP rank 0, broadcast to the rest; each CP rank loads its micro-batches
// whole). `rate` is 0 when the tier's read rate is not known.
struct DataReads {
  core::Bytes per_step;
  core::BytesPerSecond rate;
  double reading_nodes = 0;
};
DataReads data_reads(const workload::TrainingJob& job);

// Estimates a validated job (workload::validate first). Errors: kInvalidInput when the GPU has no
// peak for the job's precision.
core::Result<TrainingEstimate> estimate_training(const workload::TrainingJob& job);
// The same with the job's memory already estimated (`memory` must be estimate_memory(job)): a
// search checks memory before it estimates the step.
core::Result<TrainingEstimate> estimate_training(const workload::TrainingJob& job,
                                                 const MemoryBreakdown& memory);

}  // namespace aicost::perf
