// A GPU model's datasheet figures and the per-generation efficiency parameters of the step model.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "aicost/catalog/precision.h"
#include "aicost/catalog/provenance.h"
#include "aicost/core/quantity.h"

namespace aicost::catalog {

struct GpuSpec {
  std::string id;  // e.g. "h100-sxm-80gb"
  std::string name;
  std::vector<std::string> aliases;
  std::string vendor;  // nvidia | amd
  std::string
      generation;  // ampere | hopper | blackwell | ada | cdna3; selects the EfficiencyProfile
  core::Bytes memory;
  core::BytesPerSecond memory_bandwidth;
  // Dense tensor-core peak per precision; 0 where the GPU has no such math.
  std::array<core::FlopsPerSecond, kPrecisionCount> peak_dense{};
  core::BytesPerSecond scale_up_bandwidth;   // NVLink/xGMI per GPU per direction
  int scale_up_domain = 8;                   // GPUs per NVLink/xGMI domain
  core::BytesPerSecond scale_out_bandwidth;  // NIC per GPU per direction
  int gpus_per_node = 8;
  core::Watts tdp;
  Provenance provenance;

  std::optional<core::FlopsPerSecond> peak(Precision p) const {
    const auto v = peak_dense[static_cast<int>(p)];
    if (v.value() <= 0) return std::nullopt;
    return v;
  }
};

// Achieved-vs-peak parameters of the step and serving models, one set per GPU generation.
// data/efficiency.yaml is their only source: every field here is "no value" (0) until the catalog
// reader fills it, and a profile of a user's catalog must give every key or name the profile it
// inherits the others from (`base: hopper`). Which values are fitted to published runs and how:
// perf/calibration.h and docs/VALIDATION.md; the others are set from principles or
// micro-benchmarks, each with its reason in the YAML. See perf/estimate.h and serving/replica.h.
struct EfficiencyProfile {
  std::string generation;
  // GEMM efficiency = gemm_max * s(M) * s(N) * s(K), s(x) = x / (x + gemm_half_dim):
  // tile/wave quantisation makes narrow matrices slow (Calculon's size-dependent efficiency).
  double gemm_max = 0;
  double gemm_half_dim = 0;
  // Low-precision (fp8) GEMMs reach a smaller share of their (doubled) peak: casts, scaling.
  double fp8_gemm_relative = 0;
  // ... times K / (K + fp8_gemm_half_k): each output tile's epilogue (scaling, amax, the 16-bit
  // store) takes as long as in BF16 while the K loop runs twice as fast, so short-K FP8 GEMMs
  // gain less over BF16 than long-K ones (training GEMMs; a K-length, a count).
  double fp8_gemm_half_k = 0;
  // FP4 (NVFP4 / MXFP4 block-scaled) GEMMs likewise, relative to the FP4 peak (serving).
  double fp4_gemm_relative = 0;
  // HBM bytes moved per element of each FP8 GEMM operand to quantise it (training): read the
  // 16-bit tensor, write its row-wise and column-wise (transposed) FP8 copies, plus scales or an
  // amax pass by recipe. Forward inputs and backward output gradients of every FP8 GEMM pay it.
  double fp8_cast_bytes = 0;
  // Fused (flash) attention kernel efficiency relative to the dense peak of its precision.
  double attention_flash = 0;
  // Unfused attention (2021-era Megatron): the softmax and dropout run memory-bound.
  double attention_unfused = 0;
  // Backward attention time as a multiple of the forward: flash recomputes the scores (~2.5x),
  // the unfused kernels keep them (~2x).
  double attention_flash_backward = 0;
  double attention_unfused_backward = 0;
  // Fraction of HBM bandwidth reached by element-wise kernels (norms, activations, residuals).
  double memory_bound = 0;
  // HBM bytes moved per hidden element per layer per token by element-wise kernels (forward).
  double elementwise_bytes_per_hidden = 0;
  // NCCL bus bandwidth as a fraction of link bandwidth, inside (scale_up) and across nodes.
  double scale_up_bus = 0;
  double scale_out_bus = 0;
  // All-to-all across nodes reaches this share of the ring bus bandwidth (many small messages).
  double all_to_all_bus = 0;
  // The flex dispatcher (DeepEP/HybridEP) drives the scale-out NICs at this share of their line
  // rate: one RDMA write per token and destination NVLink domain, forwarded inside it by NVLink.
  double flex_dispatch_bus = 0;
  core::Seconds collective_latency{0};
  // Fixed time per transformer layer per micro-batch (forward + backward): kernel launches,
  // synchronisation and small ops that do not scale with the layer's size. It is what makes
  // small models reach a lower share of peak than large ones on the same GPU.
  core::Seconds layer_overhead{0};
  // Megatron's alltoall token dispatcher reads the token counts back to the host before its
  // all-to-all (a stream synchronisation per MoE layer, token_dispatcher.py "before_ep_alltoall"),
  // so the GPU waits while the host launches the layer's expert work: this much per local expert
  // per MoE layer per micro-batch (its grouped GEMMs, forward and backward, and their casts).
  core::Seconds moe_sync_expert_overhead{0};
  // Fixed time per optimizer step: optimizer and grad-norm kernels over many tensors, loss
  // reduction, scheduling and logging on the host. Matters when a step has few micro-batches.
  core::Seconds step_overhead{0};
  // Fraction of TP communication hidden behind GEMMs with tp_comm_overlap on.
  double tp_overlap = 0;
  // Fraction of expert all-to-all hidden behind other micro-batches' compute with
  // ep_comm_overlap on (DeepSeek-V3 report §3.2.1: DualPipe hides nearly all of it).
  double ep_overlap = 0;
  // Fraction of DP gradient reduction / parameter gathering hidden with overlap flags on
  // (the last bucket of each step is always exposed).
  double dp_overlap = 0;
  // HBM bytes per parameter of the Adam update on its local shard: read fp32 master, m, v, grad
  // and write master, m, v and the 16-bit copy (30), plus grad-norm and zeroing passes.
  double optimizer_bytes_per_param = 0;
  // Training memory beyond weights, gradients, optimizer states and activations: a fixed part per
  // GPU (CUDA context, cuBLAS workspaces, NCCL buffers) plus this share of the rest (allocator
  // caching and fragmentation).
  core::Bytes memory_overhead{0};
  double memory_overhead_share = 0;
  // Serving (inference-model.md §1.12): prefill reaches serving_prefill_mfu of the dense peak
  // of its precision on long prompts (half of it at serving_prefill_half_tokens tokens); decode
  // streams weights and KV at serving_decode_bandwidth of HBM; each decode step pays
  // serving_layer_overhead per layer (kernel launches, norms, sampling not hidden by graphs).
  double serving_prefill_mfu = 0;
  // FP8 prefill GEMMs reach this share of the doubled FP8 peak relative to BF16 ones (calibrated
  // with serving_prefill_mfu on the serving rows; training's fp8_gemm_relative is fitted apart).
  double serving_fp8_prefill_relative = 0;
  double serving_prefill_half_tokens = 0;
  // Fixed time per routed expert a GPU runs per MoE layer per forward step, whatever the
  // expert's size: the grouped GEMMs schedule each expert as a problem of its own (descriptor
  // set-up, a tile wave that does not fill the SMs, the block-scale prologue of low-precision
  // weights), so a layer of 128 small experts costs more than one of 8 large ones.
  core::Seconds serving_expert_overhead{0};
  double serving_decode_bandwidth = 0;
  // Share of HBM bandwidth the attention kernels of a decode step (FlashDecoding, XQA, paged
  // attention) read the KV cache at: plain streaming reads of contiguous pages, no GEMM tiles
  // waiting on them, so nearer a copy's rate than the weight-streaming GEMMs' share.
  double serving_kv_bandwidth = 0;
  core::Seconds serving_layer_overhead{0};
  // Fixed time per running sequence per forward step, whatever the model: the engine's work for
  // each request in each step (scheduling, building its block table and input metadata,
  // sampling, detokenising and streaming its token) that grows with the batch, where
  // serving_layer_overhead is paid once per layer whatever the batch.
  core::Seconds serving_sequence_overhead{0};
  // One tensor-parallel all-reduce of a small message inside an NVLink node at serving time:
  // engines use one-shot custom all-reduce kernels under CUDA graphs (TensorRT-LLM, vLLM), not
  // NCCL's ring, so the fixed cost is a few microseconds rather than collective_latency x 2.
  core::Seconds serving_allreduce_latency{0};
  // HBM per GPU a serving engine keeps beyond weights and KV cache: activations, CUDA graphs.
  core::Bytes serving_workspace{0};
  Provenance provenance;
};

}  // namespace aicost::catalog
