#include "aicost/serving/replica.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace aicost::serving {

using catalog::Precision;
using core::Bytes;
using core::Seconds;

namespace {

core::FlopsPerSecond peak(const Replica& r, Precision p) {
  if (auto v = r.gpu.peak(p)) return *v;
  if (auto v = r.gpu.peak(Precision::kBf16)) return *v;
  return core::FlopsPerSecond(
      r.gpu.peak(Precision::kFp16).value_or(core::FlopsPerSecond(1)).value());
}

core::FlopsPerSecond peak(const Replica& r) { return peak(r, r.weights); }

// Low-precision GEMMs reach a smaller share of their (higher) peak: FP8 and INT8 by
// fp8_gemm_relative, FP4 (NVFP4/MXFP4 block-scaled, Blackwell) by fp4_gemm_relative.
double gemm_share(const Replica& r, Precision p) {
  const auto& e = r.efficiency;
  const double relative = p == Precision::kFp4 ? e.fp4_gemm_relative
                          : p == Precision::kFp8 || p == Precision::kInt8
                              ? e.serving_fp8_prefill_relative
                              : 1.0;
  return e.serving_prefill_mfu * relative;
}

double gemm_share(const Replica& r) { return gemm_share(r, r.weights); }

// The rate of the attention kernels' matmuls (prompt attention, Q K^T and P V): no lower
// precision than the KV cache they read, and none below the weights' (an FP8 cache under 16-bit
// weights is widened to 16 bits in the kernel, vLLM's paged attention), so the wider of the two.
// NVFP4 checkpoints quantize the linear layers only (ModelOpt), so their attention runs at the
// FP8 cache's rate (TensorRT-LLM's FP8 context FMHA), not at FP4's; at the same share of that
// precision's peak as a GEMM in it.
core::FlopsPerSecond attention_rate(const Replica& r) {
  const Precision p = catalog::bytes_per_element(r.kv_cache) > catalog::bytes_per_element(r.weights)
                          ? r.kv_cache
                          : r.weights;
  return peak(r, p) * (gemm_share(r, p) * r.tensor_parallel);
}

// Share of the GEMM rate a prefill over `rows` prompt tokens reaches: rows / (rows + half).
// Decode GEMMs are not slowed by it: at few rows they are bound by reading the weights, which
// the memory term counts.
double rows_share(const Replica& r, double rows) {
  return rows / (rows + r.efficiency.serving_prefill_half_tokens);
}

// Ways the KV cache is split over the GPUs of the replica. Under attention DP, by sequence over
// every rank; else GQA heads split over TP and replicated once TP exceeds them, and the MLA
// latent is replicated on every rank.
double kv_shards(const Replica& r) {
  if (r.attention_data_parallel) return r.tensor_parallel;
  if (r.model.spec().multi_latent_attention) return 1;
  return std::min<double>(r.tensor_parallel, r.model.kv_heads());
}

// Parameters one GPU holds: all split over TP, except the attention weights under attention DP.
double params_per_gpu(const Replica& r, double params) {
  const double t = r.tensor_parallel;
  if (!r.attention_data_parallel) return params / t;
  const double attention = r.model.attention_params() * r.model.layers();
  return (params - attention) / t + attention;
}

// Distinct experts `tokens` routed tokens touch in one MoE layer, top-k of E each, routed
// uniformly: E (1 - (1 - k/E)^tokens). k at one token, E as the tokens grow.
double experts_touched(const workload::Model& m, double tokens) {
  const double e = m.spec().num_moe_experts, k = m.spec().moe_router_topk;
  return e * (1 - std::pow(1 - k / e, tokens));
}

// A forward pass over `tokens` token rows through the experts: the active experts' FLOPs at the
// GEMM share. What an expert costs beyond its FLOPs whatever its rows (grouped GEMM: one small
// problem per expert) is expert_overhead's.
Seconds expert_compute(const Replica& r, double tokens) {
  const auto& m = r.model;
  if (!m.is_moe()) return Seconds(0);
  const double active_expert_params = m.params_active() - (m.params_total() - m.params_experts());
  const double flops = 2 * active_expert_params * tokens;
  return core::Flops(flops) / (peak(r) * (gemm_share(r) * r.tensor_parallel));
}

// Routing `tokens` tokens through each MoE layer moves their activations around the grouped GEMM:
// the permute kernel reads a token's hidden vector and writes its k copies in expert order, the
// finalize kernel reads the k expert outputs and writes their weighted sum (TensorRT-LLM's
// expandInputRows and finalizeMoeRouting kernels; vLLM's fused_moe permute and moe_sum): 2k + 2
// hidden vectors of 16-bit activations a token and layer, streamed like a copy (at
// serving_kv_bandwidth). Under attention DP each rank routes its own tokens; under TP every rank
// routes all of them (the hidden vector is whole on each).
Seconds expert_permute(const Replica& r, double tokens) {
  const auto& m = r.model;
  if (!m.is_moe()) return Seconds(0);
  const double k = m.spec().moe_router_topk;
  const double local = r.attention_data_parallel ? tokens / r.tensor_parallel : tokens;
  const double bytes = local * 2.0 * m.hidden() * (2 * k + 2) * m.moe_layers();
  return Bytes(bytes) / (r.gpu.memory_bandwidth * r.efficiency.serving_kv_bandwidth);
}

// The fixed cost of the experts a step over `tokens` routed tokens runs on one GPU: each MoE layer
// schedules the experts those tokens touch as problems of their own. Under attention DP the engines
// run expert parallelism over the same ranks (TensorRT-LLM "tp 8, ep 8, attention DP"), so a GPU
// holds E / TP of them; else every GPU runs a slice of every expert.
Seconds expert_overhead(const Replica& r, double tokens) {
  const auto& m = r.model;
  if (!m.is_moe()) return Seconds(0);
  const double touched = experts_touched(m, tokens);
  const double local = r.attention_data_parallel ? touched / r.tensor_parallel : touched;
  return r.efficiency.serving_expert_overhead * (local * m.moe_layers());
}

// Two all-reduces per layer (attention and MLP outputs) of `tokens` x hidden 16-bit values: each
// moves 2 (t - 1) / t of the message (ring or one-shot). Under attention DP the attention is whole
// on its rank and needs none; the split MLP / experts take the ranks' tokens by an all-gather
// before and hand them back by a reduce-scatter after (TensorRT-LLM's attention DP MoE; Megatron's
// sequence parallelism, Korthikanti et al. 2022 §4.2.2), (t - 1) / t of the message each: two
// collectives a layer, but one all-reduce's bytes.
Seconds tp_comm(const Replica& r, double tokens) {
  if (r.tensor_parallel <= 1) return Seconds(0);
  const double t = r.tensor_parallel;
  const Bytes msg(tokens * r.model.hidden() * 2);
  const core::BytesPerSecond bw = r.gpu.scale_up_bandwidth * r.efficiency.scale_up_bus;
  const double share = r.attention_data_parallel ? (t - 1) / t : 2 * (t - 1) / t;
  const Seconds one = r.efficiency.serving_allreduce_latency + msg * share / bw;
  return one * (2.0 * r.model.layers());
}

// Query-key and value widths of one token's attention over its context, summed over the heads:
// n_h (d_qk + d_v). GQA: 2 n_h d_h. MLA as the prompt runs it, with the heads decompressed from
// the latent: the no-RoPE and RoPE query-key dimensions, then the value's (DeepSeek-V2 §2.1.2:
// 128 x (192 + 128) for DeepSeek-V3, not 2 x hidden). MLA in decode with the up-projections
// absorbed into the query and output (DeepSeek-V2 §2.1.3, FlashMLA): every head scores the
// kv_lora_rank + RoPE latent and sums kv_lora_rank of it, 128 x (576 + 512).
double attention_width(const workload::Model& m, bool absorbed) {
  const auto& s = m.spec();
  if (!s.multi_latent_attention) return 2.0 * m.q_width();
  if (absorbed) return m.heads() * (2.0 * s.kv_lora_rank + s.qk_pos_emb_head_dim);
  return m.heads() * static_cast<double>(s.qk_head_dim + s.qk_pos_emb_head_dim + s.v_head_dim);
}

// FLOPs of the attention matmuls (Q K^T and P V) of `rows` query tokens over `context` keys each:
// 2 FLOPs a multiply-add, n_h (d_qk + d_v) multiply-adds per key and layer. A causal prompt of s
// tokens attends to s / 2 keys on average (training-model.md §1.3, forward only).
core::Flops attention_flops(const workload::Model& m, bool absorbed, double rows, double context) {
  return core::Flops(2.0 * m.layers() * attention_width(m, absorbed) * context * rows);
}

// Active parameters outside the routed experts (all of them for a dense model), less the input
// embedding: a lookup of one row per token, no GEMM.
double dense_active_params(const workload::Model& m) {
  const double active = m.is_moe() ? m.params_total() - m.params_experts() : m.params_active();
  return active - m.embedding_params();
}

// Bytes a stored weight takes. NVFP4 adds one E4M3 scale per block of 16 values (4.5 bits a
// value; NVIDIA, "Introducing NVFP4 for Efficient and Accurate Low-Precision Inference", 2025).
double stored_bytes(Precision p) {
  return catalog::bytes_per_element(p) + (p == Precision::kFp4 ? 1.0 / 16 : 0.0);
}

// The embedding and output (lm_head) matrices stay 16-bit in FP8/FP4 checkpoints: quantizers
// quantize the linear layers of the transformer blocks only (ModelOpt's hf_quant_config.json
// "exclude_modules": ["lm_head"]; the nvidia/*-FP4 and *-FP8 model cards).
double vocab_bytes(Precision p) { return std::max(2.0, catalog::bytes_per_element(p)); }

// Bytes on one GPU of `block_params` transformer-block parameters (the experts a step touches, or
// all) plus `vocab_params` of embedding or output matrices (split over TP, vocabulary-parallel).
double bytes_on_gpu(const Replica& r, double block_params, double vocab_params) {
  return params_per_gpu(r, block_params) * stored_bytes(r.weights) +
         vocab_params / r.tensor_parallel * vocab_bytes(r.weights);
}

double vocab_params(const workload::Model& m) { return m.embedding_params() + m.output_params(); }

}  // namespace

Bytes kv_bytes_per_token(const workload::Model& m, Precision kv) {
  const double b = catalog::bytes_per_element(kv);
  const auto& s = m.spec();
  if (s.multi_latent_attention) {
    return Bytes(static_cast<double>(m.layers()) * (s.kv_lora_rank + s.qk_pos_emb_head_dim) * b);
  }
  return Bytes(2.0 * m.layers() * m.kv_heads() * m.head_dim() * b);
}

Bytes weight_bytes_per_gpu(const Replica& r) {
  const auto& m = r.model;
  return Bytes(bytes_on_gpu(r, m.params_total() - vocab_params(m), vocab_params(m)));
}

double kv_capacity_tokens(const Replica& r) {
  const double free = r.gpu.memory.value() * r.memory_utilization -
                      weight_bytes_per_gpu(r).value() - r.efficiency.serving_workspace.value();
  if (free <= 0) return 0;
  const double per_token_per_gpu = kv_bytes_per_token(r.model, r.kv_cache).value() / kv_shards(r);
  return free / per_token_per_gpu;
}

namespace {
double step_weight_bytes(const Replica& r, double tokens);
}  // namespace

Seconds prefill_time(const Replica& r, double tokens, double seq) {
  const auto& m = r.model;
  // Forward FLOPs: 2 per active parameter per token, plus causal attention over seq / 2 keys.
  const double rows = rows_share(r, tokens);
  const Seconds compute = core::Flops(2 * dense_active_params(m) * tokens) /
                              (peak(r) * (gemm_share(r) * rows * r.tensor_parallel)) +
                          attention_flops(m, false, tokens, seq / 2) / (attention_rate(r) * rows) +
                          expert_compute(r, tokens);
  // The GEMMs stream every weight they use at least once: a short prompt is bound by that read.
  const Seconds weights = Bytes(step_weight_bytes(r, tokens)) /
                          (r.gpu.memory_bandwidth * r.efficiency.serving_decode_bandwidth);
  return std::max(compute, weights) + expert_overhead(r, tokens) + expert_permute(r, tokens) +
         tp_comm(r, tokens) + r.efficiency.serving_layer_overhead * m.layers();
}

Seconds prompt_attention_on_one_gpu(const Replica& r, double tokens, double seq) {
  const auto& m = r.model;
  const double rows = rows_share(r, tokens);
  // attention_rate is the TP ranks' together.
  return core::Flops(2 * m.attention_params() * m.layers() * tokens) /
             (peak(r) * (gemm_share(r) * rows)) +
         attention_flops(m, false, tokens, seq / 2) /
             (attention_rate(r) * (rows / r.tensor_parallel));
}

namespace {

// Bytes of weights one step reads on a GPU: the transformer blocks (for MoE only the experts that
// `tokens` routed tokens touch, E (1 - (1 - k/E)^t) per MoE layer) and the output matrix; the input
// embedding is gathered a row per token, not streamed.
double step_weight_bytes(const Replica& r, double tokens) {
  const auto& m = r.model;
  double blocks = m.params_total() - vocab_params(m);
  if (m.is_moe()) {
    blocks -= m.params_experts() * (1 - experts_touched(m, tokens) / m.spec().num_moe_experts);
  }
  const double output = m.spec().tie_embeddings ? m.embedding_params() : m.output_params();
  return bytes_on_gpu(r, blocks, output);
}

// Bytes of KV cache one decode step reads on a GPU: every context token of every sequence, once
// per KV head group (once per query head before XQA-like kernels).
double step_kv_bytes(const Replica& r, double batch, double context) {
  const auto& m = r.model;
  const double kv_reads = r.kv_read_once_per_group || m.spec().multi_latent_attention
                              ? 1.0
                              : static_cast<double>(m.spec().num_attention_heads) / m.kv_heads();
  return batch * context * kv_bytes_per_token(m, r.kv_cache).value() * kv_reads / kv_shards(r);
}

// The GEMMs of a step over `rows` token rows: the dense layers at the GEMM share, the experts on
// their few rows each.
Seconds step_gemm_compute(const Replica& r, double rows) {
  return core::Flops(2 * dense_active_params(r.model) * rows) /
             (peak(r) * (gemm_share(r) * r.tensor_parallel)) +
         expert_compute(r, rows);
}

// Sequences one scheduler handles in a step: all of them, except under attention DP, where every
// rank runs its own executor over its 1/TP of the sequences (TensorRT-LLM enable_attention_dp:
// `max_batch_size` is per rank, 896 x 8 ranks = concurrency 7168 in
// docs/source/blogs/Best_perf_practice_on_DeepSeek-R1_in_TensorRT-LLM.md) and the ranks' host work
// runs side by side.
double sequences_per_scheduler(const Replica& r, double batch) {
  return r.attention_data_parallel ? batch / r.tensor_parallel : batch;
}

// One forward step. The GEMM kernels stream the weights while they compute, so they take the
// longer of the two; the attention kernels that read the KV cache run after them, in their own
// kernels, and add (FlashDecoding / XQA: memory-bound on the KV bytes at any batch, streaming
// at serving_kv_bandwidth of HBM, a copy's rate, where the GEMMs reach serving_decode_bandwidth).
// Prefill rows in the same step (`prefill_rows` of prompts `prefill_seq` long: chunked prefill /
// in-flight batching) share the weight reads and add their causal attention.
Seconds forward_step(const Replica& r, double batch, double context, double per_seq,
                     double prefill_rows, double prefill_seq) {
  const auto& m = r.model;
  const auto bw = r.gpu.memory_bandwidth * r.efficiency.serving_decode_bandwidth;
  const double decode_rows = batch * per_seq;
  const double rows = decode_rows + prefill_rows;
  const Seconds weights = Bytes(step_weight_bytes(r, rows)) / bw;
  // The decode attention reads the cache at a copy's rate unless its matmuls take longer: never
  // for GQA (2 n_h / g FLOPs a cached FP8 byte), but MLA's absorbed heads all score the shared
  // latent, 2 x 128 x 1,088 FLOPs per 576 cached bytes a query token for DeepSeek-V3 (FlashMLA is
  // compute-bound on Hopper and Blackwell).
  const Seconds kv =
      std::max(Seconds(Bytes(step_kv_bytes(r, batch, context)) /
                       (r.gpu.memory_bandwidth * r.efficiency.serving_kv_bandwidth)),
               Seconds(attention_flops(m, true, decode_rows, context) / attention_rate(r)));
  Seconds attention(0);
  if (prefill_rows > 0) {
    attention = attention_flops(m, false, prefill_rows, prefill_seq / 2) / attention_rate(r);
  }
  return std::max(weights, step_gemm_compute(r, rows)) + kv + attention + expert_overhead(r, rows) +
         expert_permute(r, rows) + tp_comm(r, rows) +
         r.efficiency.serving_layer_overhead * m.layers() +
         r.efficiency.serving_sequence_overhead * sequences_per_scheduler(r, batch);
}

// A target step over `batch` sequences of `per_seq` new tokens each.
Seconds target_step(const Replica& r, double batch, double context, double per_seq) {
  return forward_step(r, batch, context, per_seq, 0, 0);
}

}  // namespace

double Speculation::tokens_per_step() const {
  if (draft_tokens <= 0) return 1;
  if (acceptance >= 1) return draft_tokens + 1;
  return (1 - std::pow(acceptance, draft_tokens + 1)) / (1 - acceptance);
}

Seconds decode_step_time(const Replica& r, double batch, double context) {
  const auto& sp = r.speculation;
  if (sp.draft_tokens <= 0) return target_step(r, batch, context, 1);
  const Seconds verify = target_step(r, batch, context, sp.draft_tokens + 1);
  const Seconds draft = target_step(r, batch, context, 1) * (sp.draft_cost * sp.draft_tokens);
  return (verify + draft) / sp.tokens_per_step();
}

Seconds continuous_step_time(const Replica& r, double batch, double input, double output) {
  // Each sequence lives `output` steps, so batch / output new ones join per step, each with
  // `input` prompt tokens prefilled in the step (chunks of long prompts spread the same work).
  return forward_step(r, batch, input + (output + 1) / 2, 1, batch * input / output, input);
}

BatchResult run_batch(const Replica& r, double batch, double input, double output) {
  BatchResult b;
  b.prefill = prefill_time(r, batch * input, input);
  // The context grows by one token per step: the mean context over the steps is exact for a
  // step time linear in context.
  b.decode = decode_step_time(r, batch, input + (output + 1) / 2) * output;
  b.tpot_s = output > 0 ? b.decode.value() / output : 0;
  b.output_tokens_per_s = batch * output / (b.prefill + b.decode).value();
  return b;
}

core::Status check(const Replica& r) {
  if (!r.gpu.peak(r.weights) && r.weights != Precision::kInt8 && r.weights != Precision::kFp4) {
    return core::make_error(
        core::ErrorCode::kInvalidInput,
        r.gpu.id + " has no " + catalog::to_string(r.weights) + " tensor cores");
  }
  if (kv_capacity_tokens(r) <= 0) {
    return core::make_error(core::ErrorCode::kInfeasible,
                            "the weights (" +
                                std::to_string(weight_bytes_per_gpu(r).value() / 1e9) +
                                " GB per GPU) do not fit on " + r.gpu.id +
                                " with tensor parallel " + std::to_string(r.tensor_parallel));
  }
  return {};
}

Replica slowed(Replica r, double ratio) {
  auto& e = r.efficiency;
  e.serving_prefill_mfu /= ratio;
  e.serving_decode_bandwidth /= ratio;
  e.serving_kv_bandwidth /= ratio;
  e.serving_layer_overhead = e.serving_layer_overhead * ratio;
  e.serving_sequence_overhead = e.serving_sequence_overhead * ratio;
  e.serving_expert_overhead = e.serving_expert_overhead * ratio;
  e.serving_allreduce_latency = e.serving_allreduce_latency * ratio;
  return r;
}

}  // namespace aicost::serving
