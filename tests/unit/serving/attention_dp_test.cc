// Attention DP's load imbalance in closed form (src/serving/capacity.cc attention_dp_imbalance,
// src/serving/replica.cc prompt_attention_on_one_gpu): a prompt's attention module runs whole on
// one rank and a step lasts as long as its busiest rank.
#include <gtest/gtest.h>

#include "aicost/serving/capacity.h"
#include "aicost/serving/replica.h"
#include "replica_support.h"

namespace aicost::serving {
namespace {

using catalog::Precision;
using testing::deepseek_b200;

// One prompt of s = 1,024 tokens through the attention module on one GPU: the projections,
// 2 FLOPs a parameter and token, at the FP4 GEMM rate, and the attention matmuls over s / 2 keys on
// average, 2 x 61 x 128 x (128 + 64 + 128) FLOPs a key and token, at the FP8 cache's rate; both
// at the rows' share s / (s + 128) of their rate.
constexpr double kPrompt = 1024;
double one_gpu_attention(const Replica& r) {
  const auto& e = r.efficiency;
  const double rows = kPrompt / (kPrompt + e.serving_prefill_half_tokens);
  const double gemm =
      r.gpu.peak(Precision::kFp4)->value() * e.serving_prefill_mfu * e.fp4_gemm_relative * rows;
  const double attention = r.gpu.peak(Precision::kFp8)->value() * e.serving_prefill_mfu *
                           e.serving_fp8_prefill_relative * rows;
  return 2 * r.model.attention_params() * 61 * kPrompt / gemm +
         2.0 * 61 * 128 * (128 + 64 + 128) * kPrompt / 2 * kPrompt / attention;
}

TEST(AttentionDp, PromptAttentionOnOneGpuMatchesItsFlops) {
  const auto r = deepseek_b200();
  const double a = one_gpu_attention(r);
  EXPECT_NEAR(prompt_attention_on_one_gpu(r, kPrompt, kPrompt).value(), a, 1e-9 * a);
  EXPECT_GT(a, 1e-3);  // about 3 ms: the term is not lost in the tolerance
}

// Round-robin over t = 8 ranks, n prompts a step: the busiest rank runs max(n / 8, min(n, 1))
// prompts where an even split runs n / 8, and the difference is shared by the n prompts.
// n = 0.5 (a prompt every other step): in a step that has one, it runs alone, 1 - 1/8 = 7/8 of A
// extra. n = 2: the busiest runs 1 where the split runs 2/8; 6/8 of A over 2 prompts, 3/8 each.
// n = 4: (1 - 4/8) / 4 = 1/8 each.
TEST(AttentionDp, BusiestRankRunsAWholePromptWhenPromptsAreFewerThanRanks) {
  const auto r = deepseek_b200();
  const double a = one_gpu_attention(r);
  const auto extra = [&](double n) {
    return attention_dp_imbalance(r, n, kPrompt, kPrompt).value();
  };
  EXPECT_NEAR(extra(0.5), 7.0 / 8 * a, 1e-9 * a);
  EXPECT_NEAR(extra(1), 7.0 / 8 * a, 1e-9 * a);
  EXPECT_NEAR(extra(2), 3.0 / 8 * a, 1e-9 * a);
  EXPECT_NEAR(extra(4), 1.0 / 8 * a, 1e-9 * a);
  EXPECT_NEAR(extra(0), 7.0 / 8 * a, 1e-9 * a);  // the limit of a lone prompt
}

// With a multiple of the ranks every rank runs n / t prompts: the even split, nothing added.
// Without attention DP (tensor parallel attention splits every prompt over the ranks) or on one
// rank there is no imbalance.
TEST(AttentionDp, NoImbalanceWithAMultipleOfTheRanksOrWithoutAttentionDp) {
  const auto r = deepseek_b200();
  EXPECT_EQ(attention_dp_imbalance(r, 8, kPrompt, kPrompt).value(), 0);
  EXPECT_EQ(attention_dp_imbalance(r, 24, kPrompt, kPrompt).value(), 0);
  auto tp = r;
  tp.attention_data_parallel = false;
  EXPECT_EQ(attention_dp_imbalance(tp, 1, kPrompt, kPrompt).value(), 0);
  auto one = r;
  one.tensor_parallel = 1;
  EXPECT_EQ(attention_dp_imbalance(one, 1, kPrompt, kPrompt).value(), 0);
}

// One client: no queue and no other prompt, so its TTFT is its prefill with its attention module
// whole on one rank, prefill_time + 7/8 A; without attention DP, prefill_time alone.
TEST(AttentionDp, LoneClientWaitsForItsWholeAttentionOnOneRank) {
  const auto r = deepseek_b200();
  const Traffic lengths{core::PerSecond(0), kPrompt, 256};
  const double prefill = prefill_time(r, kPrompt, kPrompt).value();
  const auto p = closed_loop(r, 64, lengths, 1);
  EXPECT_NEAR(p.ttft.value(), prefill + 7.0 / 8 * one_gpu_attention(r), 1e-9);
  auto tp = r;
  tp.attention_data_parallel = false;
  EXPECT_NEAR(closed_loop(tp, 64, lengths, 1).ttft.value(),
              prefill_time(tp, kPrompt, kPrompt).value(), 1e-12);
}

}  // namespace
}  // namespace aicost::serving
