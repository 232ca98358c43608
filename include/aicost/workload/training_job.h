// A training run: model, data, cluster and parallelism, in Megatron-Core terms.
// Rank order is Megatron's tp-cp-(ep)-dp-pp: TP innermost (inside an NVLink domain), PP outermost.
#pragma once

#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aicost/catalog/gpu.h"
#include "aicost/catalog/precision.h"
#include "aicost/catalog/software.h"
#include "aicost/core/quantity.h"
#include "aicost/core/result.h"
#include "aicost/workload/model.h"

namespace aicost::workload {

enum class Recompute { kNone, kSelective, kFull };
// none: every DP rank holds all model states; zero1 = Megatron use_distributed_optimizer (optimizer
// states and fp32 master weights sharded); zero2 also shards gradients; zero3 (FSDP) also
// parameters.
enum class OptimizerSharding { kNone, kZero1, kZero2, kZero3 };
// flash: fused attention that keeps no s x s scores (FlashAttention / cuDNN); unfused: the
// 2021-2022 Megatron kernels that store scores, softmax and dropout mask (Korthikanti Table 2).
enum class AttentionKernel { kFlash, kUnfused };
// How MoE tokens reach their experts (Megatron --moe-token-dispatcher-type): alltoall = NCCL
// all-to-all, a token copied once per routed expert; flex = the flex dispatcher with a DeepEP or
// HybridEP backend, a token sent once per destination NVLink domain and forwarded inside it.
enum class MoeDispatcher { kAllToAll, kFlex };

const char* to_string(Recompute r);
const char* to_string(OptimizerSharding s);
// Every value, in the order messages list them; a value's name is its to_string.
inline constexpr std::array kRecomputes{Recompute::kNone, Recompute::kSelective, Recompute::kFull};
inline constexpr std::array kShardings{OptimizerSharding::kNone, OptimizerSharding::kZero1,
                                       OptimizerSharding::kZero2, OptimizerSharding::kZero3};
// The value named `name` (exactly its to_string), or nullopt.
template <class Enum, std::size_t N>
std::optional<Enum> from_name(std::string_view name, const std::array<Enum, N>& all) {
  for (Enum e : all)
    if (name == to_string(e)) return e;
  return std::nullopt;
}
const char* to_string(AttentionKernel k);
const char* to_string(MoeDispatcher d);

struct Parallelism {
  int tensor = 1;            // tensor_model_parallel_size
  int pipeline = 1;          // pipeline_model_parallel_size
  int virtual_pipeline = 1;  // virtual_pipeline_model_parallel_size (chunks per rank)
  int context = 1;           // context_parallel_size
  int expert = 1;            // expert_model_parallel_size
  int expert_tensor = 0;     // expert_tensor_parallel_size; 0 = same as tensor
  int micro_batch = 1;       // micro_batch_size (sequences)
  bool sequence_parallel = false;
  Recompute recompute = Recompute::kNone;
  OptimizerSharding sharding = OptimizerSharding::kNone;  // Megatron default: plain DDP
  AttentionKernel attention = AttentionKernel::kFlash;
  bool overlap_grad_reduce = true;   // --overlap-grad-reduce
  bool overlap_param_gather = true;  // --overlap-param-gather
  bool tp_comm_overlap = false;      // --tp-comm-overlap
  bool ep_comm_overlap = false;      // --overlap-moe-expert-parallel-comm (DeepSeek DualPipe-like)
  MoeDispatcher moe_dispatcher = MoeDispatcher::kAllToAll;  // --moe-token-dispatcher-type
  bool grad_reduce_in_fp32 = false;  // gradients reduced as fp32 (else bf16/fp16)
  // Megatron's precision-aware optimizer with --exp-avg-dtype/--exp-avg-sq-dtype bf16: Adam's
  // moments kept in bf16 (the fp32 master weights stay). Default: fp32 moments.
  bool bf16_optimizer_states = false;
  bool fp8_param_gather = false;  // --fp8-param-gather: layer weights kept in FP8 (fp8 only)
};

struct Cluster {
  catalog::GpuSpec gpu;
  int gpus = 0;
  int gpus_per_node = 8;
  int scale_up_domain = 8;                    // GPUs sharing NVLink/xGMI
  core::BytesPerSecond intra_node_bandwidth;  // per GPU per direction
  core::BytesPerSecond inter_node_bandwidth;  // per GPU per direction

  // `gpus` of `gpu` with the node size, NVLink domain and bandwidths of its reference system.
  static Cluster of(const catalog::GpuSpec& gpu, int gpus) {
    return Cluster{gpu,
                   gpus,
                   gpu.gpus_per_node,
                   gpu.scale_up_domain,
                   gpu.scale_up_bandwidth,
                   gpu.scale_out_bandwidth};
  }
};

// Where the training data comes from: the read rate of the dataset's storage tier and the
// bytes read per token (perf/estimate.h's data-loading term). With both rates 0 the loader is
// assumed to keep up (no tier named, or a tier without a read figure): no stall.
struct DataFeed {
  double bytes_per_token = 0;     // read from storage per trained token
  core::BytesPerSecond per_node;  // what one reading node pulls from the tier
  core::BytesPerSecond shared;    // what the tier gives whatever the readers (per TiB stored x TiB)
  bool limited() const { return per_node.value() > 0 || shared.value() > 0; }
};

struct TrainingJob {
  Model model;
  double tokens = 0;     // tokens to train on
  int seq_length = 0;    // tokens per sequence
  int global_batch = 0;  // sequences per optimizer step
  catalog::Precision precision = catalog::Precision::kBf16;
  Cluster cluster;
  Parallelism parallel;
  catalog::EfficiencyProfile efficiency;
  DataFeed data;
  // The memory model's measured error (data/intervals.yaml `intervals.memory`, docs/VALIDATION.md
  // "Memory"): a peak up to capacity x (1 + margin) is "tight", not refused. 0: no margin.
  double memory_margin = 0;

  int data_parallel() const {
    return cluster.gpus / (parallel.tensor * parallel.pipeline * parallel.context);
  }
  int expert_tensor() const {
    return parallel.expert_tensor > 0 ? parallel.expert_tensor : parallel.tensor;
  }
  // Expert data parallel size under MoE parallel folding: world = ETP * EP * EDP * PP.
  int expert_data_parallel() const {
    return cluster.gpus / (expert_tensor() * parallel.expert * parallel.pipeline);
  }
  // Micro-batches per step per pipeline: B / (DP * b).
  int micro_batches() const { return global_batch / (data_parallel() * parallel.micro_batch); }
  // Layers on the most loaded pipeline stage (stages are uneven when p does not divide L).
  int layers_per_stage() const {
    return (model.layers() + parallel.pipeline - 1) / parallel.pipeline;
  }
  // Whole optimizer steps needed to see `tokens` (the last step is a full batch).
  double steps() const {
    return std::ceil(tokens / (static_cast<double>(global_batch) * seq_length));
  }
};

// Checks that the parallel sizes divide GPUs, layers, heads, sequence and batch, and that the
// sizes are positive. On failure: kInvalidInput naming the key and listing values that would work.
// Non-fatal oddities (sequence_parallel with TP 1, ...) are appended to `warnings`.
core::Status validate(const TrainingJob& job, std::vector<std::string>* warnings);

// The defaults of a software era (data/software.yaml): attention kernel, optimizer sharding,
// overlaps, and sequence parallelism when p.tensor > 1. Call it before the plan's own keys.
void apply_software(const catalog::SoftwareEra& era, Parallelism& p);

// Divisors of n, ascending.
std::vector<int> divisors(int n);

}  // namespace aicost::workload
