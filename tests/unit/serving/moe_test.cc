// The serving model's mixture-of-experts terms in closed form (src/serving/replica.cc).
#include <gtest/gtest.h>

#include <cmath>

#include "aicost/serving/replica.h"
#include "replica_support.h"

namespace aicost::serving {
namespace {

using catalog::Precision;

// Mixtral-8x7B (32 MoE layers, 8 experts, top 2) in FP8 on one H100, with every fixed cost off so
// that a step is max(weight read, GEMMs) plus the term under test.
Replica mixtral_h100() {
  Replica r = testing::replica_of("mixtral-8x7b", "h100-sxm-80gb", "hopper");
  r.weights = r.kv_cache = Precision::kFp8;
  r.efficiency.serving_layer_overhead = core::Seconds(0);
  r.efficiency.serving_sequence_overhead = core::Seconds(0);
  r.efficiency.serving_expert_overhead = core::Seconds(0);
  return r;
}

// The distinct experts a step touches per MoE layer, E (1 - (1 - k/E)^B), seen through the fixed
// cost per expert (5 us): k = 2 at B = 1 (32 x 2 x 5 us = 320 us), 8 (1 - 0.75^2) = 3.5 at B = 2
// (560 us), and all E = 8 once the batch is large (0.75^512 ~ 1e-64: 32 x 8 x 5 us = 1.28 ms).
TEST(Moe, DistinctExpertsGrowFromTopKToAllExperts) {
  auto r = mixtral_h100();
  auto slow = r;
  slow.efficiency.serving_expert_overhead = core::Seconds(5e-6);
  const auto extra = [&](double batch) {
    return decode_step_time(slow, batch, 0).value() - decode_step_time(r, batch, 0).value();
  };
  EXPECT_NEAR(extra(1), 32 * 2 * 5e-6, 1e-12);
  EXPECT_NEAR(extra(2), 32 * 3.5 * 5e-6, 1e-12);
  EXPECT_NEAR(extra(512), 32 * 8 * 5e-6, 1e-12);
}

// Routing moves each token's activations around the grouped GEMM: 2k + 2 hidden vectors of 16-bit
// values per token and MoE layer (read the token, write its k copies; read the k outputs, write
// their sum), streamed at serving_kv_bandwidth. Mixtral at batch 64 on one GPU:
// 64 x 2 B x 4,096 x (2 x 2 + 2) x 32 layers = 100.66 MB a step. With no context there is no KV
// read, so halving the copy share from 100 % to 50 % adds exactly 100.66e6 / 3.35e12 = 30.05 us.
TEST(Moe, RoutingMovesEachTokensActivationsLikeACopy) {
  auto r = mixtral_h100();
  ASSERT_NEAR(r.gpu.memory_bandwidth.value(), 3.35e12, 1e9);
  const double bytes = 64 * 2.0 * 4096 * (2 * 2 + 2) * 32;
  const auto extra = [](Replica a, double batch) {
    a.efficiency.serving_kv_bandwidth = 1.0;
    auto half = a;
    half.efficiency.serving_kv_bandwidth = 0.5;
    return decode_step_time(half, batch, 0).value() - decode_step_time(a, batch, 0).value();
  };
  EXPECT_NEAR(extra(r, 64), bytes / 3.35e12, 1e-12);
  // Under attention DP a rank of four routes its own quarter of the tokens.
  r.tensor_parallel = 4;
  r.attention_data_parallel = true;
  EXPECT_NEAR(extra(r, 64), bytes / 4 / 3.35e12, 1e-12);
  // A dense model routes nothing: Llama 3 8B's step does not depend on the copy share without
  // context.
  auto dense = mixtral_h100();
  dense.model = testing::preset("llama3-8b");
  EXPECT_NEAR(extra(dense, 64), 0, 1e-15);
}

// The attention matmuls run in the wider of the weights' and the KV cache's precision: an NVFP4
// checkpoint with an FP8 cache runs attention at FP8's rate, not FP4's. Llama 3 70B (80 layers,
// 64 query heads of 128) on a B200: prefilling 8,192 tokens of prompts 4,096 tokens longer adds
// 2 x 80 x 8,192 x 4,096 x 8,192 = 4.40e13 FLOPs of causal attention, at the FP8 peak x
// serving_prefill_mfu x serving_fp8_prefill_relative x 8,192 / (8,192 + 128).
TEST(Prefill, AttentionRunsInTheWiderOfWeightAndCachePrecision) {
  Replica r = testing::replica_of("llama3-70b", "b200", "blackwell");
  r.weights = Precision::kFp4;
  r.kv_cache = Precision::kFp8;
  const auto& e = r.efficiency;
  const double flops = 2.0 * 80 * 8192 * 4096 * 8192;
  const double rate = r.gpu.peak(Precision::kFp8)->value() * e.serving_prefill_mfu *
                      e.serving_fp8_prefill_relative * 8192 / (8192 + 128);
  const auto longer = [](const Replica& a) {
    return prefill_time(a, 8192, 8192).value() - prefill_time(a, 8192, 4096).value();
  };
  EXPECT_NEAR(longer(r), flops / rate, 1e-9);
  // A 16-bit cache: attention at the BF16 rate.
  r.kv_cache = Precision::kBf16;
  const double bf16 = r.gpu.peak(Precision::kBf16)->value() * e.serving_prefill_mfu * 8192 / 8320;
  EXPECT_NEAR(longer(r), flops / bf16, 1e-9);
}

}  // namespace
}  // namespace aicost::serving
