#include "aicost/perf/memory.h"

#include <algorithm>

namespace aicost::perf {

using catalog::Activation;
using workload::AttentionKernel;
using workload::OptimizerSharding;
using workload::Recompute;

namespace {

// activation_bytes_per_layer under recompute mode `recompute` (which may differ from the job's:
// a fully recomputed layer needs its activations without recomputation once).
double activation_bytes(const workload::TrainingJob& job, bool moe_layer, Recompute recompute) {
  const auto& m = job.model;
  const auto& p = job.parallel;
  const double t = p.tensor;
  const double s = static_cast<double>(job.seq_length) / p.context;
  const double b = p.micro_batch;
  const double h = m.hidden();
  const double sbh = s * b * h;
  const double sp = p.sequence_parallel ? t : 1.0;  // divisor of the replicated part
  const double drop = m.spec().hidden_dropout ? 1.0 : 0.0;

  if (recompute == Recompute::kFull) {
    return 2 * sbh / sp;  // only the layer input is kept (Korthikanti §4.1)
  }
  // Bytes per token per hidden element, 16-bit activations, 1-byte dropout masks.
  // Replicated outside the TP region: 2 layer-norm inputs (4), QKV and fc1 inputs (2 + 2), masks.
  const double replicated = 8 + 2 * drop;
  // Inside the TP region: Q and K (2q + 2kv), V (2kv), attention output (2q).
  const double q =
      m.spec().multi_latent_attention
          ? static_cast<double>(m.heads()) * (m.spec().qk_head_dim + m.spec().qk_pos_emb_head_dim)
          : m.q_width();
  const double kv = m.spec().multi_latent_attention ? q : m.kv_width();
  double split = (4 * q + 4 * kv) / h;
  // MLP: fc1 output (gated: 2f wide) and activation output (f wide).
  const double gated = m.spec().activation == Activation::kSwiglu ? 2.0 : 1.0;
  auto mlp = [&](double f) { return 2 * gated * f / h + 2 * f / h; };
  if (moe_layer) {
    const double k = m.spec().moe_router_topk;
    const double fe = m.spec().moe_ffn_hidden_size;
    const double fs = m.spec().moe_shared_expert_intermediate_size;
    // Each routed copy keeps its expert input (2) and MLP activations; shared experts once.
    split += k * (2 + mlp(fe)) + (fs > 0 ? mlp(fs) : 0.0);
  } else {
    split += mlp(m.spec().ffn_hidden_size);
  }
  double bytes = sbh * (replicated / sp + split / t);
  const double a = m.heads();
  if (p.attention == AttentionKernel::kUnfused) {
    // Scores (2) + softmax (2) + dropout mask (1) per element of the a x s x s tensor.
    if (recompute != Recompute::kSelective) bytes += 5 * a * s * s * b / t;
  } else {
    bytes += 4 * a * s * b / t;  // fp32 log-sum-exp kept by flash attention
  }
  return bytes;
}

}  // namespace

double activation_bytes_per_layer(const workload::TrainingJob& job, bool moe_layer) {
  return activation_bytes(job, moe_layer, job.parallel.recompute);
}

LocalParams local_params(const workload::TrainingJob& job) {
  const auto& m = job.model;
  const auto& p = job.parallel;
  const double per_stage = static_cast<double>(job.layers_per_stage()) / m.layers();
  const double router = static_cast<double>(m.hidden()) * m.spec().num_moe_experts;
  LocalParams lp;
  lp.outside_layers = m.embedding_params() / p.tensor;
  if (p.pipeline == 1)
    lp.outside_layers += m.output_params() / p.tensor + m.hidden() /* final norm */;
  lp.dense = (m.layers() * m.attention_params() + m.dense_layers() * m.dense_mlp_params() +
              m.moe_layers() * (m.shared_expert_params() + router)) *
                 per_stage / p.tensor +
             lp.outside_layers;
  lp.expert = m.params_experts() * per_stage / (job.expert_tensor() * p.expert);
  return lp;
}

MemoryBreakdown estimate_memory(const workload::TrainingJob& job) {
  const auto& m = job.model;
  const auto& p = job.parallel;
  MemoryBreakdown mem;
  mem.capacity = job.cluster.gpu.memory;
  mem.margin = job.memory_margin;

  // Megatron mixed precision: 16-bit weights (2), main grads (4 in fp32, else 2), fp32 master +
  // Adam m, v (4 + 4 + 4 = 12).
  // optimizer_states: bf16 is Megatron-Core's precision-aware optimizer with exp_avg_dtype and
  // exp_avg_sq_dtype bf16 (megatron/core/optimizer/optimizer_config.py,
  // use_precision_aware_optimizer; main_params_dtype stays fp32): fp32 master (4) + bf16 m (2) +
  // bf16 v (2) = 8 bytes/param. fp8_param_gather (TransformerConfig.fp8_param_gather, Transformer
  // Engine Float8Tensor weights) keeps the transformer layers' linear weights in FP8: 1 byte/param
  // instead of 2. The embedding, output layer and final norm are not TE linear layers and stay
  // 16-bit (2); the norms and the router inside the layers also stay 16-bit, but are < 0.1 % of a
  // layer and counted at 1 byte.
  const LocalParams lp = local_params(job);
  const double dp = job.data_parallel() * p.context;  // gradients reduce over DP x CP
  const double edp = job.expert_data_parallel();
  const double grad_bytes = p.grad_reduce_in_fp32 ? 4.0 : 2.0;
  auto shard = [&](double params, double replicas, bool sharded) {
    return sharded ? params / replicas : params;
  };
  const bool z1 = p.sharding != OptimizerSharding::kNone;
  const bool z2 =
      p.sharding == OptimizerSharding::kZero2 || p.sharding == OptimizerSharding::kZero3;
  const bool z3 = p.sharding == OptimizerSharding::kZero3;
  mem.weights = core::Bytes(2 * (shard(lp.dense, dp, z3) + shard(lp.expert, edp, z3)));
  if (p.fp8_param_gather) {
    const double layer_dense = lp.dense - lp.outside_layers;
    mem.weights = core::Bytes(1 * (shard(layer_dense, dp, z3) + shard(lp.expert, edp, z3)) +
                              2 * shard(lp.outside_layers, dp, z3));
  }
  mem.gradients = core::Bytes(grad_bytes * (shard(lp.dense, dp, z2) + shard(lp.expert, edp, z2)));
  const double optimizer_bytes = p.bf16_optimizer_states ? 8.0 : 12.0;
  mem.optimizer =
      core::Bytes(optimizer_bytes * (shard(lp.dense, dp, z1) + shard(lp.expert, edp, z1)));

  // 1F1B: the first stage keeps min(m, p) micro-batches of L/p layers in flight (≈ L layers);
  // interleaving adds (p-1)/(p v) (Korthikanti §4.2.3; training-model.md §3.3).
  const double layers_per_stage = job.layers_per_stage();
  const double moe_share = static_cast<double>(m.moe_layers()) / m.layers();
  const double per_layer = (1 - moe_share) * activation_bytes_per_layer(job, false) +
                           moe_share * activation_bytes_per_layer(job, true);
  const double in_flight = std::min<double>(job.micro_batches(), p.pipeline);
  double interleave = 1.0;
  if (p.virtual_pipeline > 1 && p.pipeline > 1) {
    interleave += (p.pipeline - 1.0) / (p.pipeline * p.virtual_pipeline);
  }
  double act = per_layer * layers_per_stage * in_flight * interleave;
  if (p.recompute == Recompute::kFull) {
    // The layer being recomputed needs its full activations once.
    act += activation_bytes(job, m.moe_layers() > 0, Recompute::kNone);
  }
  mem.activations = core::Bytes(act);

  if (p.pipeline == 1) {
    // fp32 logits and their gradient for one micro-batch, sharded over TP (Megatron estimator).
    const double tokens = static_cast<double>(job.seq_length) / p.context * p.micro_batch;
    mem.logits = core::Bytes(4.0 * tokens * m.vocab() * 2 / p.tensor);
  }
  // CUDA context, NCCL and communication buffers, allocator fragmentation: a fixed part plus a
  // share of the rest (Megatron issue #488 reports real usage above the theoretical figure).
  const core::Bytes states = mem.weights + mem.gradients + mem.optimizer;
  mem.overhead = job.efficiency.memory_overhead +
                 (states + mem.activations + mem.logits) * job.efficiency.memory_overhead_share;
  return mem;
}

}  // namespace aicost::perf
