// The serving model's multi-latent attention and attention-DP terms in closed form
// (src/serving/replica.cc attention_width, tp_comm).
#include <gtest/gtest.h>

#include <cmath>

#include "aicost/serving/measurement.h"
#include "aicost/serving/replica.h"
#include "replica_support.h"

namespace aicost::serving {
namespace {

using catalog::Precision;
using testing::deepseek_b200;

// The attention matmuls run at the FP8 cache's rate over the 8 GPUs (replica.cc attention_rate).
double fp8_attention_rate(const Replica& r) {
  const auto& e = r.efficiency;
  return r.gpu.peak(Precision::kFp8)->value() * e.serving_prefill_mfu *
         e.serving_fp8_prefill_relative * 8;
}

// A prompt's attention with MLA runs on the decompressed heads: per key, 128 x (128 + 64) for the
// scores and 128 x 128 for the values, 40,960 multiply-adds a layer (GQA's formula, 2 x q_width
// = 2 x 7,168, would count 14,336). A causal prompt of s tokens averages s / 2 keys, so a prefill
// of T = 16,384 tokens in prompts of s2 = 16,384 rather than s1 = 1,024 adds
// 2 x 61 x 40,960 x (s2 - s1) / 2 x T FLOPs at the attention rate x T / (T + 128) (the rows'
// share); the GEMMs, the weight read (the prefill is compute-bound) and the fixed costs are the
// same at both lengths.
TEST(Mla, PromptAttentionRunsOnTheDecompressedHeads) {
  const auto r = deepseek_b200();
  const double t = 16384, s1 = 1024, s2 = 16384;
  const double flops = 2.0 * 61 * 128 * (128 + 64 + 128) * (s2 - s1) / 2 * t;
  const double rate = fp8_attention_rate(r) * t / (t + 128);
  const double got = prefill_time(r, t, s2).value() - prefill_time(r, t, s1).value();
  EXPECT_NEAR(got, flops / rate, 1e-9);
  EXPECT_GT(flops / rate, 0.01);  // about 35 ms: the term is not lost in the tolerance
}

// In decode the up-projections are absorbed (DeepSeek-V2 §2.1.3): each of the 128 heads scores
// the 576-value latent (512 + 64 RoPE) and sums 512 of it, 2 x 128 x 1,088 = 278,528 FLOPs per
// cached token and layer for 576 cached bytes (FP8). Under attention DP a GPU holds 1/8 of the
// sequences' latents, so per cached token and layer the matmuls take 278,528 / (8 x rate) and the
// read 576 / (8 x 7.7 TB/s x serving_kv_bandwidth): 1.5e-11 s against 1.05e-11 s at the
// calibrated shares (rate 2.3 PFLOP/s a GPU, 89 %), compute-bound. Growing the context of 64
// sequences by 1,000 tokens then adds 64 x 1,000 x 61 x 278,528 / rate, and nothing else in the
// step depends on the context.
TEST(Mla, AbsorbedDecodeAttentionIsBoundByItsMatmuls) {
  const auto r = deepseek_b200();
  const double batch = 64, c1 = 1000, c2 = 2000;
  const double flops = batch * (c2 - c1) * 61 * 2.0 * 128 * (512 + 64 + 512);
  const double read =
      batch * (c2 - c1) * 61 * 576 / 8 / (7.7e12 * r.efficiency.serving_kv_bandwidth);
  ASSERT_GT(flops / fp8_attention_rate(r), read);
  const double got =
      decode_step_time(r, batch, c2).value() - decode_step_time(r, batch, c1).value();
  EXPECT_NEAR(got, flops / fp8_attention_rate(r), 1e-9);
}

// Under attention DP the attention needs no all-reduce; the MLP / experts gather the ranks' tokens
// and scatter their sums back, (t - 1) / t of the B x 7,168 x 2 B message each: two collectives a
// layer but one all-reduce's bytes, half of plain TP's two all-reduces. Doubling the NVLink
// bandwidth therefore saves 61 x 2 x (7/8) x msg / (2 x bw) under attention DP, twice that under
// TP (the step's other terms do not depend on the link).
TEST(Mla, AttentionDataParallelMovesOneAllReducesBytesPerLayer) {
  auto dp = deepseek_b200();
  auto tp = dp;
  tp.attention_data_parallel = false;
  const double batch = 1024, msg = batch * 7168 * 2;
  const double bw = dp.gpu.scale_up_bandwidth.value() * dp.efficiency.scale_up_bus;
  const double dp_saving = 61 * 2 * (7.0 / 8) * msg / (2 * bw);
  const auto saving = [&](Replica r) {
    const double slow = decode_step_time(r, batch, 2048).value();
    r.gpu.scale_up_bandwidth = r.gpu.scale_up_bandwidth * 2.0;
    return slow - decode_step_time(r, batch, 2048).value();
  };
  EXPECT_NEAR(saving(dp), dp_saving, 1e-9);
  EXPECT_NEAR(saving(tp), 2 * dp_saving, 1e-9);
}

// Under attention DP every rank schedules its own sequences and the engine's limit is a rank's
// (TensorRT-LLM: max_batch_size 896 on 8 ranks runs concurrency 7,168). Short requests, so that
// the KV cache holds far more than the cap either way: the replica runs 896 x 8 under attention
// DP, 896 under TP. Long ones are bound by the cache alone, which attention DP splits by sequence
// (a rank holds its own latents, where TP replicates them): floor(capacity / (1,024 + 2,048)).
TEST(Mla, EngineSequenceCapIsPerRankUnderAttentionDataParallel) {
  auto dp = deepseek_b200();
  auto tp = dp;
  tp.attention_data_parallel = false;
  EXPECT_DOUBLE_EQ(max_load_batch(dp, 8, 8, 896), 896 * 8);
  EXPECT_DOUBLE_EQ(max_load_batch(tp, 8, 8, 896), 896);
  const double held = std::floor(kv_capacity_tokens(dp) / (1024 + 2048));
  ASSERT_LT(held, 2048 * 8);
  ASSERT_GT(held, 2048);  // the per-rank cap lets more than one rank's 2,048 run
  EXPECT_DOUBLE_EQ(max_load_batch(dp, 1024, 2048), held);
}

}  // namespace
}  // namespace aicost::serving
