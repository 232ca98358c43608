// One serving replica: a model on `tensor_parallel` GPUs, its memory budget and how long prefill
// and decode steps take (../shared/reference/inference-model.md §1). Prefill is compute-bound at
// a calibrated share of the dense peak; a decode step reads the weights (the experts a batch
// touches, for MoE) and the batch's KV cache at calibrated shares of HBM bandwidth, plus two TP
// all-reduces, a fixed overhead per layer, per routed expert a GPU runs and per running
// sequence. One calibration per GPU generation (catalog::EfficiencyProfile serving_* fields).
// Pure functions; thread-safe.
#pragma once

#include "aicost/catalog/gpu.h"
#include "aicost/catalog/precision.h"
#include "aicost/core/quantity.h"
#include "aicost/core/result.h"
#include "aicost/workload/model.h"

namespace aicost::serving {

// Speculative decoding (inference-model.md §1.8, Leviathan et al. 2023): a draft proposes
// `draft_tokens` tokens a sequence, the target verifies them in one step, and each is accepted
// with probability `acceptance`. A draft step costs `draft_cost` of a target step.
struct Speculation {
  int draft_tokens = 0;  // 0: off
  double acceptance = 0;
  double draft_cost = 0;
  // Tokens a verify step yields per sequence: (1 - a^(g+1)) / (1 - a).
  double tokens_per_step() const;
};

struct Replica {
  workload::Model model;
  catalog::GpuSpec gpu;
  catalog::EfficiencyProfile efficiency;
  int tensor_parallel = 1;
  catalog::Precision weights = catalog::Precision::kBf16;  // storage and GEMM precision
  catalog::Precision kv_cache = catalog::Precision::kBf16;
  double memory_utilization = 0.9;  // share of HBM the engine may use (vLLM default)
  Speculation speculation;
  // Attention data parallel (TensorRT-LLM enable_attention_dp, SGLang --enable-dp-attention):
  // each rank runs attention for its own 1/TP of the sequences with the attention weights whole,
  // so the KV cache splits by sequence over the ranks (an MLA latent is no longer replicated)
  // while the MLP / experts stay split over all of them.
  bool attention_data_parallel = false;
  // Whether the decode attention kernel reads each KV head once for all the query heads that
  // share it (GQA/MQA: TensorRT-LLM's XQA since v0.8, FlashDecoding, vLLM's paged attention).
  // Older kernels read it once per query head: KV traffic x (query heads / KV heads), which
  // cost Llama-70B 2.4x in decode throughput on an H200 (TensorRT-LLM
  // docs/source/blogs/XQA-kernel.md).
  bool kv_read_once_per_group = true;
};

// KV-cache bytes per token for the whole model: 2 L g d_h bytes (GQA), or
// L (kv_lora_rank + qk_rope_head_dim) bytes for multi-latent attention (DeepSeek-V2/V3).
core::Bytes kv_bytes_per_token(const workload::Model& model, catalog::Precision kv);

// Bytes of weights on one GPU of the replica (attention weights whole under attention DP).
core::Bytes weight_bytes_per_gpu(const Replica& r);

// KV-cache tokens the replica can hold (0 when the weights alone do not fit).
double kv_capacity_tokens(const Replica& r);

// Time to prefill `tokens` prompt tokens of sequences of `seq` tokens (batch = tokens / seq).
core::Seconds prefill_time(const Replica& r, double tokens, double seq);

// The attention module of one prompt (its projections and attention matmuls) of `tokens` new
// tokens in sequences of `seq` tokens, as one GPU runs it: under attention DP a prompt runs whole
// on the rank that holds its sequence, where prefill_time spreads it over the TP ranks.
core::Seconds prompt_attention_on_one_gpu(const Replica& r, double tokens, double seq);

// One decode step of `batch` sequences whose contexts average `context` tokens: the time per
// generated token of each sequence. With speculation, a verify step (the target on g + 1 tokens a
// sequence: the same weight and KV reads, g + 1 times the GEMM work) and g draft steps, divided by
// the tokens it yields: a gain while decode is bandwidth-bound, a loss once it is compute-bound.
core::Seconds decode_step_time(const Replica& r, double batch, double context);

// One step of an engine that batches continuously under full load (in-flight batching with
// chunked prefill: TensorRT-LLM, vLLM V1, SGLang) and keeps `batch` sequences of `input` prompt
// and `output` generated tokens running: each step generates one token of every sequence and
// prefills the prompts of the batch / output sequences that replace those finishing, sharing the
// weight reads with them (Agrawal et al. 2024, Sarathi-Serve). Throughput = batch / this time.
core::Seconds continuous_step_time(const Replica& r, double batch, double input, double output);

// A static batch of `batch` requests of `input` prompt and `output` generated tokens, run to
// completion: prefill all, then `output` decode steps.
struct BatchResult {
  core::Seconds prefill;
  core::Seconds decode;
  double output_tokens_per_s = 0;  // batch x output / (prefill + decode)
  double tpot_s = 0;               // mean decode step
};
BatchResult run_batch(const Replica& r, double batch, double input, double output);

// Checks that the weights fit and that `precision` runs on the GPU.
core::Status check(const Replica& r);

// `r` made `ratio` times slower (ratio >= 1 for the pessimistic end of an 80 % interval,
// `aicost estimate --conservative`): the prefill and decode efficiencies divided by it, the
// per-layer and all-reduce latencies multiplied by it. Prefill and decode times then grow by
// about `ratio` (exactly, but for the TP transfer term that rides on link bandwidth).
Replica slowed(Replica r, double ratio);

}  // namespace aicost::serving
