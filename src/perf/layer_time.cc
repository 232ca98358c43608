#include "layer_time.h"

#include <algorithm>

#include "aicost/perf/comm.h"

namespace aicost::perf {

using catalog::Activation;
using catalog::Precision;
using workload::AttentionKernel;
using workload::Recompute;

namespace {

core::FlopsPerSecond peak_of(const workload::TrainingJob& job, Precision p) {
  auto v = job.cluster.gpu.peak(p);
  if (!v) v = job.cluster.gpu.peak(Precision::kBf16);
  return v ? *v : core::FlopsPerSecond(1);
}

// Size-dependent GEMM efficiency: narrow matrices leave tiles and waves partly idle.
double gemm_efficiency(const catalog::EfficiencyProfile& e, double m, double n, double k) {
  auto s = [&](double x) { return x / (x + e.gemm_half_dim); };
  return e.gemm_max * s(m) * s(n) * s(k);
}

core::Seconds memory_time(const workload::TrainingJob& job, double bytes) {
  return core::Bytes(bytes) / (job.cluster.gpu.memory_bandwidth * job.efficiency.memory_bound);
}

}  // namespace

bool runs_low_precision(const workload::TrainingJob& job) {
  const Precision p = job.precision;
  return (p == Precision::kFp8 || p == Precision::kInt8 || p == Precision::kFp4) &&
         job.cluster.gpu.peak(p).has_value();
}

core::Seconds gemm_time(const workload::TrainingJob& job, double m, double n, double k,
                        bool low_precision) {
  const auto& e = job.efficiency;
  double eff = gemm_efficiency(e, m, n, k);
  Precision p = job.precision;
  if (p == Precision::kFp8 || p == Precision::kInt8 || p == Precision::kFp4) {
    if (low_precision && runs_low_precision(job)) {
      // Each output tile's epilogue (scaling, amax, the 16-bit store) takes as long as in BF16
      // while the K loop runs twice as fast: it costs fp8_gemm_half_k of K.
      eff *= e.fp8_gemm_relative * k / (k + e.fp8_gemm_half_k);
    } else {
      p = Precision::kBf16;
    }
  }
  return core::Flops(2 * m * n * k) / (peak_of(job, p) * eff);
}

LayerTime layer_time(const workload::TrainingJob& job, bool moe_layer) {
  const auto& m = job.model;
  const auto& spec = m.spec();
  const auto& par = job.parallel;
  const auto& e = job.efficiency;
  const double t = par.tensor;
  const double c = par.context;
  const double s = job.seq_length;
  const double tokens = par.micro_batch * s / c;  // GEMM rows on this GPU
  const double h = m.hidden();
  const double gated = spec.activation == Activation::kSwiglu ? 2.0 : 1.0;

  // --- forward GEMMs and their FLOPs; the backward pass runs each GEMM twice more with its
  // dimensions permuted (data gradient: K = N; weight gradient: K = rows), which matters where
  // the efficiency depends on K alone (FP8).
  core::Seconds gemm_fwd(0), gemm_bwd(0);
  double gemm_flops = 0;
  // FP8: each GEMM's forward input (rows x k) and backward output gradient (rows x n) are
  // quantised by a memory-bound cast (fp8_cast_bytes per element); weights are cast once per
  // step and not counted. Attention (flash) and the output layer stay BF16.
  double cast_elements = 0;
  const bool low_precision = runs_low_precision(job);
  auto gemm = [&](double rows, double n, double k) {
    const core::Seconds fwd = gemm_time(job, rows, n, k);
    gemm_fwd += fwd;
    // In BF16 the efficiency is symmetric in the three dimensions: backward is twice forward.
    gemm_bwd += low_precision ? gemm_time(job, rows, k, n) + gemm_time(job, n, k, rows) : fwd * 2;
    gemm_flops += 2 * rows * n * k;
    cast_elements += rows * (n + k);
  };
  double q_width = m.q_width();
  if (spec.multi_latent_attention) {
    const double a = m.heads();
    const double qk = spec.qk_head_dim + spec.qk_pos_emb_head_dim;
    const double in_macs = (spec.q_lora_rank > 0 ? spec.q_lora_rank * (h + a * qk) : h * a * qk) +
                           spec.kv_lora_rank * (h + a * (spec.qk_head_dim + spec.v_head_dim)) +
                           h * spec.qk_pos_emb_head_dim;
    gemm(tokens, in_macs / h / t, h);
    q_width = a * spec.v_head_dim;
  } else {
    gemm(tokens, (m.q_width() + 2.0 * m.kv_width()) / t, h);
  }
  gemm(tokens, h, q_width / t);  // output projection
  auto mlp = [&](double rows, double f, double shards) {
    gemm(rows, gated * f / shards, h);
    gemm(rows, h, f / shards);
  };
  double ew_bytes = 0;  // element-wise HBM traffic, forward
  const double sp = par.sequence_parallel ? t : 1.0;
  ew_bytes += e.elementwise_bytes_per_hidden * h * tokens / sp;
  if (moe_layer) {
    const double k = spec.moe_router_topk;
    const double experts = spec.num_moe_experts;
    const double etp = job.expert_tensor();
    // Balanced routing: each GPU runs k/t of its tokens' expert work; rows per local expert.
    const double routed = tokens * k / t;
    const double rows_per_expert = std::max(1.0, routed * par.expert / experts * etp);
    const double local_experts = experts / par.expert;
    const core::Seconds before = gemm_fwd, bwd_before = gemm_bwd;
    const double flops_before = gemm_flops;
    const double cast_before = cast_elements;
    mlp(rows_per_expert, spec.moe_ffn_hidden_size, etp);
    gemm_fwd = before + (gemm_fwd - before) * (local_experts);
    gemm_bwd = bwd_before + (gemm_bwd - bwd_before) * local_experts;
    gemm_flops = flops_before + (gemm_flops - flops_before) * local_experts;
    cast_elements = cast_before + (cast_elements - cast_before) * local_experts;
    if (spec.moe_shared_expert_intermediate_size > 0) {
      mlp(tokens, spec.moe_shared_expert_intermediate_size, t);
    }
    // Router, token permutation and un-permutation.
    ew_bytes += 2.0 * routed * h * 4 + 2.0 * (gated + 1) * routed * spec.moe_ffn_hidden_size / etp;
  } else {
    mlp(tokens, spec.ffn_hidden_size, t);
    ew_bytes += 2.0 * (gated + 1) * tokens * spec.ffn_hidden_size / t;
  }

  // --- core attention: causal with flash kernels; full s x s (masked afterwards) when unfused
  const bool flash = par.attention == AttentionKernel::kFlash;
  const double attn_flops_fwd =
      4.0 * q_width / t * s * tokens * (flash ? 0.5 : 1.0) *
      (spec.multi_latent_attention
           ? (spec.qk_head_dim + spec.qk_pos_emb_head_dim + spec.v_head_dim) /
                 (2.0 * spec.v_head_dim)
           : 1.0);
  const double attn_eff = flash ? e.attention_flash : e.attention_unfused;
  const core::Seconds attn_fwd =
      core::Flops(attn_flops_fwd) / (peak_of(job, Precision::kBf16) * attn_eff);
  // Flash backward recomputes the scores: ~2.5x forward; unfused backward ~2x.
  const core::Seconds attn_bwd =
      attn_fwd * (flash ? e.attention_flash_backward : e.attention_unfused_backward);

  const core::Seconds ew_fwd = memory_time(job, ew_bytes);
  const core::Seconds casts =
      low_precision ? memory_time(job, cast_elements * e.fp8_cast_bytes) : core::Seconds(0);
  LayerTime lt;
  lt.compute = gemm_fwd + gemm_bwd + attn_fwd + attn_bwd + ew_fwd * 3 + casts + e.layer_overhead;
  lt.hardware_flops = 3 * (gemm_flops + attn_flops_fwd);
  if (par.recompute == Recompute::kFull) {
    lt.recompute = gemm_fwd + attn_fwd + ew_fwd;
    lt.hardware_flops += gemm_flops + attn_flops_fwd;
  } else if (par.recompute == Recompute::kSelective) {
    lt.recompute = attn_fwd;
    lt.hardware_flops += attn_flops_fwd;
  }

  // --- TP / SP collectives: 2 per block in forward, 2 in backward, 2 more when recomputing all.
  const bool mlp_tp = !moe_layer || job.expert_tensor() == par.tensor;
  const double blocks = mlp_tp ? 2.0 : 1.0;
  const double collectives = blocks * (par.recompute == Recompute::kFull ? 3.0 : 2.0);
  const core::Bytes act(tokens * h * 2);
  if (par.tensor > 1) {
    const core::Seconds one =
        collective_time(job, Collective::kAllReduce, Group{par.tensor, 1}, act);
    lt.tp = one * collectives * (par.tp_comm_overlap ? 1.0 - e.tp_overlap : 1.0);
  }
  // --- CP: ring attention (Liu et al. 2023, "Ring Attention with Blockwise Transformers", §3).
  // The attention runs in c steps of one K/V block each; while step i computes, the next block
  // travels (Transformer Engine AttnFuncWithCPAndKVP2P: step i waits for block i, sends it on,
  // then computes). So each of the c-1 hops hides only behind one step, attention / c, and what
  // exceeds it is exposed. The backward passes K/V and dK/dV (twice the bytes) behind its own
  // steps; recomputing attention (selective or full) runs the forward ring again.
  if (par.context > 1) {
    const double kv = spec.multi_latent_attention ? q_width : m.kv_width();
    const core::Bytes chunk(2.0 * tokens * kv / t * 2);
    // The ring moves in lockstep, so at its slowest hop: one leaves the NVLink domain as soon as
    // the ring's c x t GPUs do not fit in it (send/recv alone judges a hop by its stride).
    const Group ring{par.context, par.tensor};
    const bool leaves = local_ranks(job, ring) < ring.size;
    const Group link{ring.size,
                     leaves ? std::max(ring.stride, job.cluster.scale_up_domain) : ring.stride};
    const core::Seconds hop = collective_time(job, Collective::kSendRecv, link, chunk);
    auto exposed = [](core::Seconds comm, core::Seconds hide) {
      return comm > hide ? comm - hide : core::Seconds(0);
    };
    const core::Seconds fwd = exposed(hop, attn_fwd / c) * (c - 1);
    const core::Seconds bwd = exposed(hop * 2, attn_bwd / c) * (c - 1);
    lt.cp = fwd * (par.recompute == Recompute::kNone ? 1.0 : 2.0) + bwd;
  }
  // --- EP: dispatch + combine, forward and backward (+ forward again if full).
  if (moe_layer && par.expert > 1) {
    // FP8 training dispatches tokens in fp8 (1 byte) and combines in bf16 (DeepSeek-V3 §3.3);
    // otherwise both directions carry 16-bit activations.
    const double dispatch_bytes = job.precision == Precision::kFp8 ? 1.0 : 2.0;
    const core::Bytes tokens_out(tokens / t * h);
    const Group ep{par.expert, job.expert_tensor()};
    const double k = spec.moe_router_topk;
    const double experts = spec.num_moe_experts;
    const core::Seconds dispatch = dispatch_time(job, ep, experts, k, tokens_out * dispatch_bytes);
    const core::Seconds combine = dispatch_time(job, ep, experts, k, tokens_out * 2.0);
    lt.ep = (dispatch + combine) * (par.recompute == Recompute::kFull ? 3.0 : 2.0) *
            (par.ep_comm_overlap ? 1.0 - e.ep_overlap : 1.0);
    // Megatron's alltoall dispatcher reads the token counts back to the host before its
    // all-to-all (token_dispatcher.py, "before_ep_alltoall"): the GPU idles while the host then
    // launches the local experts' work. Once per forward dispatch (again when recomputing). The
    // flex dispatchers also learn their received counts on the host (DeepEP docs/legacy.md), but
    // their recipes capture router and preprocessing in CUDA graphs and their runs show no such
    // stall, so it is not charged to them.
    if (par.moe_dispatcher == workload::MoeDispatcher::kAllToAll) {
      const double local_experts = experts / par.expert;
      lt.compute += e.moe_sync_expert_overhead * local_experts *
                    (par.recompute == Recompute::kFull ? 2.0 : 1.0);
    }
  }
  return lt;
}

LayerTime logits_time(const workload::TrainingJob& job) {
  const auto& par = job.parallel;
  const double tokens = par.micro_batch * static_cast<double>(job.seq_length) / par.context;
  const double v = job.model.vocab();
  LayerTime lt;
  // Output GEMM (forward + 2 backward; BF16 even in FP8 training: Megatron's output layer is not
  // a Transformer Engine FP8 module) and an fp32 softmax cross-entropy read/written ~4 times.
  lt.compute = gemm_time(job, tokens, v / par.tensor, job.model.hidden(), false) * 3 +
               memory_time(job, 4.0 * 4 * tokens * v / par.tensor);
  lt.hardware_flops = 6.0 * tokens * v / par.tensor * job.model.hidden();
  return lt;
}

}  // namespace aicost::perf
