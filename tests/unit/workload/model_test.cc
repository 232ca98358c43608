#include "aicost/workload/model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "aicost/catalog/catalog.h"
#include "aicost/config/catalog_loader.h"
#include "test_support.h"

// Parameter counts: hand formulas of training-model.md §1.3 (attention h(q+2kv)+qh, gated MLP 3hf,
// embeddings V*h, untied output V*h) and the published counts stored with each preset.

namespace aicost::workload {
namespace {

const catalog::Catalog& builtin() { return testing::builtin_catalog(); }

Model preset(const std::string& id) {
  auto spec = builtin().model(id);
  EXPECT_TRUE(spec) << id;
  if (!spec) return Model{};
  auto m = Model::create(**spec);
  EXPECT_TRUE(m) << (m ? "" : m.error().what());
  return m ? *m : Model{};
}

TEST(ModelParams, Llama31_70BMatchesHandFormula) {
  // L=80, h=8192, a=64 heads, g=8 KV heads, d_h=128 -> q=8192, kv=1024; f=28672 SwiGLU; V=128256.
  // attention = h(q+2kv) + qh = 8192*10240 + 8192*8192 = 150,994,944
  // MLP       = 3*h*f = 3*8192*28672                    = 704,643,072
  // norms     = 2h per layer = 16,384; final norm h = 8,192
  // per layer = 855,654,400; x80 = 68,452,352,000
  // embeddings (untied) 2*V*h = 2*128256*8192 = 2,101,346,304
  // total = 70,553,706,496 (~70.55B)
  const Model m = preset("llama3.1-70b");
  const double expected = 80.0 * (150994944.0 + 704643072.0 + 16384.0) + 2101346304.0 + 8192.0;
  EXPECT_NEAR(m.params_total(), expected, expected * 1e-12);
  EXPECT_NEAR(m.params_total() / 1e9, 70.55, 0.01);
}

TEST(ModelParams, Llama31_70BAttentionUsesGqaWidths) {
  // kv_width = 8 * 128 = 1024; attention projections = 150,994,944 (+ 2h norms).
  const Model m = preset("llama3.1-70b");
  EXPECT_EQ(m.kv_width(), 1024);
  EXPECT_EQ(m.q_width(), 8192);
  EXPECT_DOUBLE_EQ(m.attention_params(), 150994944.0 + 2 * 8192.0);
}

TEST(ModelParams, PresetsWithinFourPercentOfPublished) {
  // Every preset that publishes `params` must agree within 4 % (biases, padding, rounding).
  int checked = 0;
  for (const auto& spec : builtin().models()) {
    if (spec.published_params <= 0) continue;
    auto m = Model::create(spec);
    ASSERT_TRUE(m) << spec.id << ": " << m.error().what();
    EXPECT_NEAR(m->params_total(), spec.published_params, 0.04 * spec.published_params)
        << spec.id << " computed " << m->params_total() / 1e9 << "B vs published "
        << spec.published_params / 1e9 << "B";
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

TEST(ModelParams, MixtralActiveParams) {
  // L=32, h=4096, q=4096, kv=1024, 8 experts of width 14336, top-2, V=32000 untied.
  // attention = 4096*6144 + 4096*4096 = 41,943,040; expert = 3*4096*14336 = 176,160,768
  // total  = 32*(41.9M + 8*176.2M + router 32768) + 2*32000*4096 ~ 46.70B (published 46.7B)
  // active = 32*(41.9M + 2*176.2M) + 262,144,000 ~ 12.88B (published 12.9B)
  const Model m = preset("mixtral-8x7b");
  EXPECT_NEAR(m.params_total(), 46.7e9, 0.05 * 46.7e9);
  EXPECT_NEAR(m.params_active(), 12.9e9, 0.05 * 12.9e9);
  EXPECT_NEAR(m.expert_params(), 176160768.0, 1.0);
}

TEST(ModelParams, DeepSeekV3ActiveParams) {
  // DeepSeek-V3 technical report abstract: 671B total, 37B activated per token (MTP excluded).
  const Model m = preset("deepseek-v3");
  EXPECT_NEAR(m.params_total(), 671e9, 0.05 * 671e9);
  EXPECT_NEAR(m.params_active(), 37e9, 0.05 * 37e9);
  // 61 layers, first 3 dense -> 58 MoE layers.
  EXPECT_EQ(m.moe_layers(), 58);
}

catalog::ModelSpec tiny() { return testing::dense_spec(2, 64, 4, 256, 100); }

TEST(ModelCreate, ZeroLayersRejected) {
  auto s = tiny();
  s.num_layers = 0;
  auto m = Model::create(s);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, core::ErrorCode::kInvalidInput);
  EXPECT_NE(m.error().what().find("num_layers"), std::string::npos) << m.error().what();
}

TEST(ModelCreate, HeadsNotDivisibleByKvGroupsRejected) {
  // 4 heads cannot be split into 3 query groups.
  auto s = tiny();
  s.num_query_groups = 3;
  auto m = Model::create(s);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, core::ErrorCode::kInvalidInput);
  EXPECT_NE(m.error().what().find("num_query_groups"), std::string::npos) << m.error().what();
}

TEST(ModelCreate, MoeWithTopkZeroRejected) {
  auto s = tiny();
  s.num_moe_experts = 8;
  s.moe_router_topk = 0;
  s.moe_ffn_hidden_size = 128;
  auto m = Model::create(s);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, core::ErrorCode::kInvalidInput);
  EXPECT_NE(m.error().what().find("moe_router_topk"), std::string::npos) << m.error().what();
}

TEST(ModelCreate, TinyDenseHandCount) {
  // h=64, MHA q=kv=64: attention 64*192 + 64*64 + 2*64 = 16,512; GeLU MLP 2*64*256 = 32,768;
  // 2 layers = 98,560; embeddings 100*64 = 6,400 in and out (untied) = 12,800; final norm 64.
  // total = 111,424.
  auto m = Model::create(tiny());
  ASSERT_TRUE(m);
  EXPECT_DOUBLE_EQ(m->params_total(), 111424.0);
  EXPECT_DOUBLE_EQ(m->params_active(), m->params_total());
}

}  // namespace
}  // namespace aicost::workload
