// The serving replica model in closed form (../shared/reference/inference-model.md §1).
#include <gtest/gtest.h>

#include <cmath>

#include "aicost/serving/replica.h"
#include "test_support.h"

namespace aicost::serving {
namespace {

using catalog::Precision;

workload::Model preset(const char* id) {
  auto spec = testing::builtin_catalog().model(id);
  EXPECT_TRUE(spec) << id;
  auto m = workload::Model::create(**spec);
  EXPECT_TRUE(m) << id;
  return *m;
}

constexpr double kKiB = 1024;

// 2 L g d_h bytes: Llama-2/3-70B 2 x 80 x 8 x 128 x 2 B = 320 KiB; 160 KiB with an fp8 cache.
TEST(KvCache, Llama3_70bIs320KiBPerToken) {
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(preset("llama3-70b"), Precision::kBf16).value(), 320 * kKiB);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(preset("llama3-70b"), Precision::kFp8).value(), 160 * kKiB);
}

// Mixtral-8x7B: 2 x 32 x 8 x 128 x 2 B = 128 KiB; Llama-2-7B (MHA): 2 x 32 x 32 x 128 x 2 = 512 KiB.
TEST(KvCache, MixtralAndLlama2_7b) {
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(preset("mixtral-8x7b"), Precision::kBf16).value(), 128 * kKiB);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(preset("llama2-7b"), Precision::kBf16).value(), 512 * kKiB);
}

// MLA caches the latent: 61 x (512 + 64) x 2 B = 70,272 B = 68.6 KiB, not 2 x 61 x 128 x 128 x 2.
TEST(KvCache, DeepSeekV3CachesTheLatent) {
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(preset("deepseek-v3"), Precision::kBf16).value(),
                   61.0 * (512 + 64) * 2);
}

Replica llama70b_h100(int tp) {
  Replica r;
  r.model = preset("llama3-70b");
  r.gpu = **testing::builtin_catalog().gpu("h100-sxm-80gb");
  r.efficiency = **testing::builtin_catalog().efficiency("hopper");
  r.tensor_parallel = tp;
  return r;
}

// 70.6B bf16 parameters = 141 GB: they do not fit on one 80 GiB H100, they do on two.
TEST(Capacity, WeightsDecideWhetherAReplicaFits) {
  EXPECT_FALSE(check(llama70b_h100(1)));
  ASSERT_TRUE(check(llama70b_h100(2)));
  // TP 2: per GPU 0.9 x 80 GiB - 70.6 GB - 2 GiB workspace free; KV heads split over 2 ranks
  // (160 KiB per token per GPU).
  const auto r = llama70b_h100(2);
  const double free = 0.9 * 80 * std::pow(1024.0, 3) - r.model.params_total() - 2 * std::pow(1024.0, 3);
  EXPECT_NEAR(kv_capacity_tokens(r), free / (160 * kKiB), 1);
}

// A decode step at batch 1 reads every weight once: at least weights / (HBM x share).
TEST(Decode, Batch1IsBoundByReadingTheWeights) {
  auto r = llama70b_h100(2);
  const double floor = r.model.params_total() * 2 / 2 /
                       (r.gpu.memory_bandwidth.value() * r.efficiency.serving_decode_bandwidth);
  const double step = decode_step_time(r, 1, 100).value();
  EXPECT_GE(step, floor);
  EXPECT_LT(step, floor * 1.2);  // KV of 100 tokens and two all-reduces per layer are small
}

// Leviathan et al.: 4 draft tokens accepted at 70 % give (1 - 0.7^5) / 0.3 = 2.7731 tokens a
// verify step. At batch 1 the verify step reads what a plain step reads (still bandwidth-bound),
// so a token costs (1 + 4 x 5 %) / 2.7731 = 0.4327 of a plain step.
TEST(Speculation, Batch1GainIsTokensPerStepOverDraftCost) {
  auto r = llama70b_h100(2);
  const double plain = decode_step_time(r, 1, 1000).value();
  r.speculation = {4, 0.7, 0.05};
  EXPECT_NEAR(r.speculation.tokens_per_step(), 2.77310, 1e-5);
  // Within 1 %: the verify step's all-reduces carry 5 tokens, still latency-bound.
  EXPECT_NEAR(decode_step_time(r, 1, 1000).value() / plain, 1.2 / 2.77310, 0.01);
}

// At a large batch the verify step is compute-bound: five times the GEMM work costs more than the
// 2.77 tokens it yields, and speculation slows decode down.
TEST(Speculation, LargeBatchesLoseTheGain) {
  auto r = llama70b_h100(2);
  r.weights = r.kv_cache = catalog::Precision::kFp8;
  auto speculating = r;
  speculating.speculation = {4, 0.7, 0.05};
  EXPECT_GT(decode_step_time(speculating, 512, 300).value(), decode_step_time(r, 512, 300).value());
  EXPECT_LT(decode_step_time(speculating, 1, 300).value(), decode_step_time(r, 1, 300).value());
}

// Static batch: throughput = batch x output / (prefill + output decode steps).
TEST(Batch, ThroughputIsTokensOverTime) {
  const auto r = llama70b_h100(2);
  const auto b = run_batch(r, 64, 512, 256);
  EXPECT_NEAR(b.output_tokens_per_s, 64.0 * 256 / (b.prefill + b.decode).value(), 1e-9);
  EXPECT_NEAR(b.tpot_s * 256, b.decode.value(), 1e-12);
  // Larger batches raise throughput while decode stays memory-bound.
  EXPECT_GT(run_batch(r, 128, 512, 256).output_tokens_per_s, b.output_tokens_per_s);
}

}  // namespace
}  // namespace aicost::serving

namespace aicost::serving {
namespace {

// slowed(r, k) on one GPU (no TP transfer): prefill = FLOPs / (peak x share) + layers x
// overhead, a decode step = bytes / (bandwidth x efficiency) + layers x overhead; dividing the
// efficiencies and multiplying the overheads by k multiplies both times by k exactly.
TEST(Slowed, TimesOfOneGpuGrowByTheRatio) {
  Replica r;
  r.model = preset("llama3-8b");
  r.gpu = **testing::builtin_catalog().gpu("h100-sxm-80gb");
  r.efficiency = **testing::builtin_catalog().efficiency("hopper");
  r.tensor_parallel = 1;
  const Replica s = slowed(r, 1.3);
  EXPECT_NEAR(prefill_time(s, 2048, 2048).value(), 1.3 * prefill_time(r, 2048, 2048).value(), 1e-12);
  EXPECT_NEAR(decode_step_time(s, 64, 4096).value(), 1.3 * decode_step_time(r, 64, 4096).value(),
              1e-12);
}

}  // namespace
}  // namespace aicost::serving
