#include "aicost/perf/flops.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <cmath>

// Closed forms of training-model.md §1.2-§1.3. Per token, training = 3 x forward, 2 FLOPs/MAC.

namespace aicost::perf {
namespace {

using workload::Model;

using testing::classic_gpt;

Model make(const catalog::ModelSpec& s) {
  auto m = Model::create(s);
  EXPECT_TRUE(m) << (m ? "" : m.error().what());
  return m ? *m : Model{};
}

TEST(TrainingFlops, FullSquareEqualsKorthikantiClosedForm) {
  // GPT-3 175B shape: L=96, h=12288, a=96, V=51200, s=2048.
  // Per token: 3 * [L (8h^2 + 4hs + 16h^2) + 2hV] = 72 L h^2 (1 + s/(6h) + V/(12 h L)).
  const double L = 96, h = 12288, s = 2048, V = 51200;
  const Model m = make(classic_gpt(96, 12288, 96, 51200));
  const double expected = 72 * L * h * h * (1 + s / (6 * h) + V / (12 * h * L));
  EXPECT_NEAR(training_flops_per_token(m, 2048, FlopConvention::kFullSquare), expected,
              expected * 1e-12);
}

TEST(TrainingFlops, CausalHalvesAttentionScoreTerm) {
  // §1.3 sanity check: causal mask gives 72 L h^2 (1 + s/(12h) + V/(12 h L)).
  const double L = 24, h = 2048, s = 4096, V = 50304;
  const Model m = make(classic_gpt(24, 2048, 16, 50304));
  const double expected = 72 * L * h * h * (1 + s / (12 * h) + V / (12 * h * L));
  EXPECT_NEAR(training_flops_per_token(m, 4096, FlopConvention::kCausal), expected,
              expected * 1e-12);
}

TEST(TrainingFlops, KorthikantiHelperMatchesFullSquare) {
  const Model m = make(classic_gpt(128, 25600, 160, 51200));
  const double full = training_flops_per_token(m, 2048, FlopConvention::kFullSquare);
  EXPECT_NEAR(korthikanti_model_flops_per_token(m, 2048), full, full * 1e-12);
}

TEST(TrainingFlops, GqaReducesAttentionProjections) {
  // h=4096, a=32, d_h=128. MHA: kv=4096 -> linear per layer per token 2h(q+2kv) + 2qh = 8h^2.
  // GQA with g=8: kv=1024 -> 2h(4096 + 2048) + 2*4096*h = 2h*6144 + 8192h = 20480h.
  // Core attention depends only on q (4 q s non-causal), so it is unchanged.
  auto spec = classic_gpt(2, 4096, 32, 32000);
  const Model mha = make(spec);
  spec.num_query_groups = 8;
  const Model gqa = make(spec);
  const double h = 4096;
  const auto f_mha = forward_flops_per_token(mha, 1024, FlopConvention::kFullSquare);
  const auto f_gqa = forward_flops_per_token(gqa, 1024, FlopConvention::kFullSquare);
  EXPECT_NEAR(f_mha.attention_linear, 2 * 8 * h * h, 1e-6);
  EXPECT_NEAR(f_gqa.attention_linear, 2 * 20480 * h, 1e-6);
  EXPECT_DOUBLE_EQ(f_gqa.attention_core, f_mha.attention_core);
  EXPECT_NEAR(f_gqa.attention_core, 2 * 4 * 4096.0 * 1024, 1e-6);
}

TEST(TrainingFlops, MoeCountsTopKExpertsOnly) {
  // Mixtral-like: h=4096, 8 experts of f_e=14336, top-2, SwiGLU (gamma 3), all layers MoE.
  // MLP forward per token per layer = 2 * 3 * h * (k f_e) = 6 * 4096 * 2 * 14336.
  catalog::ModelSpec s = classic_gpt(4, 4096, 32, 32000);
  s.activation = catalog::Activation::kSwiglu;
  s.ffn_hidden_size = 14336;
  s.num_moe_experts = 8;
  s.moe_router_topk = 2;
  s.moe_ffn_hidden_size = 14336;
  const Model m = make(s);
  const auto f = forward_flops_per_token(m, 4096, FlopConvention::kCausal);
  EXPECT_NEAR(f.mlp, 4 * 6.0 * 4096 * 2 * 14336, 1e-3);
  // Doubling the number of experts at fixed top-k does not change FLOPs.
  s.num_moe_experts = 16;
  const auto f16 = forward_flops_per_token(make(s), 4096, FlopConvention::kCausal);
  EXPECT_DOUBLE_EQ(f16.mlp, f.mlp);
}

TEST(TrainingFlops, LogitsOncePerToken) {
  // Output layer 2hV forward, independent of L.
  const Model m = make(classic_gpt(3, 512, 8, 1000));
  EXPECT_DOUBLE_EQ(forward_flops_per_token(m, 128, FlopConvention::kCausal).logits,
                   2.0 * 512 * 1000);
}

}  // namespace
}  // namespace aicost::perf
