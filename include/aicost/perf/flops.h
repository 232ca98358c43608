// FLOP counts of a training step. Training = 3 x forward (forward, data-grad, weight-grad), 2 FLOPs
// per multiply-add (Megatron-LM training.py num_floating_point_operations; training-model.md §1.3).
#pragma once

#include "aicost/workload/model.h"

namespace aicost::perf {

// Which attention FLOPs count as "model FLOPs".
enum class FlopConvention {
  kCausal,     // s^2 attention halved by the causal mask (Megatron-LM since 2025-03, 8873b55d)
  kFullSquare  // full s x s attention (Korthikanti 2022, PaLM, Megatron-LM before 2025-03)
};

struct ForwardFlopsPerToken {
  double attention_linear = 0;  // QKV/MLA projections + output projection, all layers
  double attention_core = 0;    // QK^T and AV, all layers, under the chosen convention
  double mlp = 0;               // dense MLPs + active experts (top-k) + shared experts
  double logits = 0;            // output layer (x (1 + MTP layers))
  double total() const { return attention_linear + attention_core + mlp + logits; }
};

// Forward FLOPs per token at sequence length `seq` (MTP layers counted as extra MoE/dense layers).
ForwardFlopsPerToken forward_flops_per_token(const workload::Model& model, int seq,
                                             FlopConvention convention);

// Model FLOPs per token of one training step (3 x forward), no recomputation.
double training_flops_per_token(const workload::Model& model, int seq, FlopConvention convention);

// Korthikanti et al. 2022 closed form for a classic GPT (MHA, GeLU, f = 4h):
// 72 B s L h^2 (1 + s/(6h) + V/(12 h L)) per step; returned per token.
double korthikanti_model_flops_per_token(const workload::Model& model, int seq);

}  // namespace aicost::perf
