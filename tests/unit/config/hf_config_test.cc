#include "../../../src/config/hf_config.h"  // internal to config

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

// Expected values are the published config.json fields quoted in
// /work/shared/reference/ecosystem.md section (i); the fixtures are verbatim copies.

namespace aicost::config {
namespace {

using catalog::Activation;
using catalog::ModelSpec;
using core::ErrorCode;

std::string fixture_path(const std::string& name) {
  return std::string(AICOST_SOURCE_DIR) + "/data/hf_configs/" + name;
}

ModelSpec load_fixture(const std::string& name, std::vector<std::string>* warnings = nullptr) {
  std::ifstream in(fixture_path(name));
  EXPECT_TRUE(in) << "cannot open " << fixture_path(name);
  std::stringstream text;
  text << in.rdbuf();
  auto spec = parse_hf_config(text.str(), "data/hf_configs/" + name, warnings);
  EXPECT_TRUE(spec.has_value()) << (spec ? "" : spec.error().what());
  return spec ? *spec : ModelSpec{};
}

core::Error parse_error_of(std::string_view json) {
  auto spec = parse_hf_config(json, "cfg.json");
  EXPECT_FALSE(spec.has_value());
  return spec ? core::Error{} : spec.error();
}

// A minimal valid llama; tests splice in the field they are about.
std::string llama_with(const std::string& extra) {
  return R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
             "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100)" +
         extra + "}";
}

TEST(HfConfig, Llama31_8bMapsCoreFields) {
  const ModelSpec m = load_fixture("llama-3.1-8b.json");
  EXPECT_EQ(m.num_layers, 32);
  EXPECT_EQ(m.hidden_size, 4096);
  EXPECT_EQ(m.num_attention_heads, 32);
  EXPECT_EQ(m.num_query_groups, 8);
  EXPECT_EQ(m.kv_channels, 0);  // no head_dim: hidden / heads
  EXPECT_EQ(m.ffn_hidden_size, 14336);
  EXPECT_EQ(m.vocab_size, 128256);
  EXPECT_EQ(m.seq_length, 131072);
  EXPECT_FALSE(m.tie_embeddings);
  EXPECT_EQ(m.activation, Activation::kSwiglu);
  EXPECT_FALSE(m.learned_position_embeddings);
  EXPECT_FALSE(m.hidden_dropout);
  EXPECT_EQ(m.num_moe_experts, 0);
  EXPECT_FALSE(m.multi_latent_attention);
}

TEST(HfConfig, IdComesFromFileStemWithoutNameOrPath) {
  const ModelSpec m = load_fixture("llama-3.1-8b.json");
  EXPECT_EQ(m.id, "llama-3.1-8b");
  EXPECT_EQ(m.provenance.source, "Hugging Face config.json (data/hf_configs/llama-3.1-8b.json)");
}

TEST(HfConfig, Llama31_70bMapsCoreFields) {
  const ModelSpec m = load_fixture("llama-3.1-70b.json");
  EXPECT_EQ(m.num_layers, 80);
  EXPECT_EQ(m.hidden_size, 8192);
  EXPECT_EQ(m.num_attention_heads, 64);
  EXPECT_EQ(m.num_query_groups, 8);
  EXPECT_EQ(m.ffn_hidden_size, 28672);
  EXPECT_EQ(m.vocab_size, 128256);
  EXPECT_EQ(m.seq_length, 131072);
}

TEST(HfConfig, MixtralIntermediateSizeIsTheExpertWidth) {
  const ModelSpec m = load_fixture("mixtral-8x7b.json");
  EXPECT_EQ(m.num_moe_experts, 8);
  EXPECT_EQ(m.moe_router_topk, 2);
  EXPECT_EQ(m.moe_ffn_hidden_size, 14336);
  EXPECT_EQ(m.ffn_hidden_size, 14336);
  EXPECT_EQ(m.moe_shared_expert_intermediate_size, 0);
  EXPECT_EQ(m.moe_first_dense_layers, 0);
  EXPECT_EQ(m.moe_layer_freq, 1);
  EXPECT_EQ(m.num_query_groups, 8);
  EXPECT_EQ(m.vocab_size, 32000);
  EXPECT_EQ(m.seq_length, 32768);
}

TEST(HfConfig, Qwen2MoeSharedExpertIsOneMlpOfTotalWidth) {
  std::vector<std::string> warnings;
  const ModelSpec m = load_fixture("qwen2-57b-a14b.json", &warnings);
  EXPECT_EQ(m.num_layers, 28);
  EXPECT_EQ(m.hidden_size, 3584);
  EXPECT_EQ(m.num_attention_heads, 28);
  EXPECT_EQ(m.num_query_groups, 4);
  EXPECT_EQ(m.ffn_hidden_size, 18944);
  EXPECT_EQ(m.num_moe_experts, 64);
  EXPECT_EQ(m.moe_router_topk, 8);
  EXPECT_EQ(m.moe_ffn_hidden_size, 2560);
  EXPECT_EQ(m.moe_shared_expert_intermediate_size, 20480);
  EXPECT_EQ(m.moe_layer_freq, 1);
  EXPECT_EQ(m.vocab_size, 151936);
  // sliding_window 131072 with use_sliding_window false is not an approximation.
  EXPECT_TRUE(warnings.empty()) << warnings.front();
}

TEST(HfConfig, Qwen3UsesExplicitHeadDim) {
  const ModelSpec m = load_fixture("qwen3-30b-a3b.json");
  // head_dim 128 x 32 heads = 4096 != hidden_size 2048: the explicit value must win.
  EXPECT_EQ(m.kv_channels, 128);
  EXPECT_EQ(m.hidden_size, 2048);
  EXPECT_EQ(m.num_attention_heads, 32);
  EXPECT_EQ(m.num_query_groups, 4);
}

TEST(HfConfig, Qwen3MoeMapsExpertsWithoutSharedExpert) {
  std::vector<std::string> warnings;
  const ModelSpec m = load_fixture("qwen3-30b-a3b.json", &warnings);
  EXPECT_EQ(m.num_layers, 48);
  EXPECT_EQ(m.ffn_hidden_size, 6144);
  EXPECT_EQ(m.num_moe_experts, 128);
  EXPECT_EQ(m.moe_router_topk, 8);
  EXPECT_EQ(m.moe_ffn_hidden_size, 768);
  EXPECT_EQ(m.moe_shared_expert_intermediate_size, 0);
  EXPECT_EQ(m.seq_length, 40960);
  EXPECT_TRUE(warnings.empty());  // mlp_only_layers [] and sliding_window null
}

TEST(HfConfig, DeepSeekV3MlaIgnoresHeadDimAndKvHeads) {
  const ModelSpec m = load_fixture("deepseek-v3.json");
  EXPECT_TRUE(m.multi_latent_attention);
  EXPECT_EQ(m.num_attention_heads, 128);
  EXPECT_EQ(m.num_query_groups, 128);  // = heads, not copied from num_key_value_heads
  EXPECT_EQ(m.kv_channels, 0);
  EXPECT_EQ(m.q_lora_rank, 1536);
  EXPECT_EQ(m.kv_lora_rank, 512);
  EXPECT_EQ(m.qk_head_dim, 128);
  EXPECT_EQ(m.qk_pos_emb_head_dim, 64);
  EXPECT_EQ(m.v_head_dim, 128);
  EXPECT_EQ(m.mtp_num_layers, 1);
}

TEST(HfConfig, DeepSeekV3MapsMoeLayout) {
  const ModelSpec m = load_fixture("deepseek-v3.json");
  EXPECT_EQ(m.num_layers, 61);
  EXPECT_EQ(m.hidden_size, 7168);
  EXPECT_EQ(m.ffn_hidden_size, 18432);
  EXPECT_EQ(m.vocab_size, 129280);
  EXPECT_EQ(m.num_moe_experts, 256);
  EXPECT_EQ(m.moe_router_topk, 8);
  EXPECT_EQ(m.moe_ffn_hidden_size, 2048);
  EXPECT_EQ(m.moe_shared_expert_intermediate_size, 2048);  // 1 shared x 2048
  EXPECT_EQ(m.moe_first_dense_layers, 3);
  EXPECT_EQ(m.moe_layer_freq, 1);
}

TEST(HfConfig, DeepSeekV3WarnsThatFp8QuantizationIsNotRead) {
  std::vector<std::string> warnings;
  load_fixture("deepseek-v3.json", &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("fp8"), std::string::npos) << warnings[0];
}

TEST(HfConfig, MlaNullQLoraRankMeansNoQueryCompression) {
  auto m = parse_hf_config(llama_with(R"(, "kv_lora_rank": 512, "q_lora_rank": null,
      "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "head_dim": 64)"),
                           "lite.json");
  ASSERT_TRUE(m.has_value()) << m.error().what();
  EXPECT_EQ(m->q_lora_rank, 0);
  EXPECT_EQ(m->kv_channels, 0);
}

TEST(HfConfig, MalformedJsonReportsLineAndColumnWithCaret) {
  // Line 3 has a missing comma before "vocab_size": the error is at its first quote, column 3.
  const core::Error e = parse_error_of("{\n  \"hidden_size\": 64\n  \"vocab_size\": 100\n}\n");
  EXPECT_EQ(e.code, ErrorCode::kParse);
  EXPECT_EQ(e.context, "cfg.json:3:3");
  EXPECT_EQ(e.message.rfind("malformed JSON: ", 0), 0u) << e.message;
  EXPECT_NE(e.message.find("is a ',' missing before it?"), std::string::npos) << e.message;
  EXPECT_NE(e.what().find("\n      \"vocab_size\": 100\n      ^"), std::string::npos) << e.what();
}

TEST(HfConfig, TruncatedJsonPointsPastTheLastCharacter) {
  const core::Error e = parse_error_of("{\n  \"hidden_size\": 64,\n");
  EXPECT_EQ(e.code, ErrorCode::kParse);
  EXPECT_EQ(e.context, "cfg.json:2:21");  // just after the comma
}

TEST(HfConfig, UnknownModelTypeSuggestsClosest) {
  const core::Error e = parse_error_of(R"({"model_type": "lama", "num_hidden_layers": 2})");
  EXPECT_EQ(e.code, ErrorCode::kNotFound);
  EXPECT_NE(e.message.find("Did you mean 'llama'?"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("inline"), std::string::npos) << e.message;
}

TEST(HfConfig, MissingHiddenSizeNamesTheFieldAndModelType) {
  const core::Error e = parse_error_of(R"({"model_type": "qwen3", "num_hidden_layers": 2,
      "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100})");
  EXPECT_EQ(e.code, ErrorCode::kInvalidInput);
  EXPECT_NE(e.message.find("'hidden_size'"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("'qwen3'"), std::string::npos) << e.message;
  EXPECT_EQ(e.context, "cfg.json: hidden_size");
}

TEST(HfConfig, WrongTypeIsRejectedWithTheValue) {
  const core::Error e = parse_error_of(llama_with(R"(, "num_key_value_heads": "8")"));
  EXPECT_EQ(e.code, ErrorCode::kInvalidInput);
  EXPECT_NE(e.message.find("'num_key_value_heads' must be an integer >= 1, not \"8\""),
            std::string::npos)
      << e.message;
  EXPECT_NE(e.message.find("'llama'"), std::string::npos) << e.message;
}

TEST(HfConfig, NullOptionalFieldMeansAbsent) {
  auto m = parse_hf_config(llama_with(R"(, "num_key_value_heads": null, "head_dim": null)"), "x");
  ASSERT_TRUE(m.has_value()) << m.error().what();
  EXPECT_EQ(m->num_query_groups, 4);
  EXPECT_EQ(m->kv_channels, 0);
}

TEST(HfConfig, MultimodalWrapperUnwrapsTextConfig) {
  auto m = parse_hf_config(R"({"model_type": "llava", "_name_or_path": "org/Llava-Test",
      "vision_config": {"hidden_size": 1024, "num_hidden_layers": 24},
      "text_config": {"model_type": "mistral", "num_hidden_layers": 40, "hidden_size": 5120,
        "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
        "intermediate_size": 14336, "vocab_size": 131072}})",
                           "cfg.json");
  ASSERT_TRUE(m.has_value()) << m.error().what();
  EXPECT_EQ(m->num_layers, 40);
  EXPECT_EQ(m->hidden_size, 5120);
  EXPECT_EQ(m->kv_channels, 128);
  EXPECT_EQ(m->name, "Llava-Test");
  EXPECT_EQ(m->id, "llava-test");
}

TEST(HfConfig, NestedErrorNamesTheNestedKey) {
  const core::Error e =
      parse_error_of(R"({"model_type": "llava", "text_config": {"model_type": "llama"}})");
  EXPECT_EQ(e.code, ErrorCode::kInvalidInput);
  EXPECT_EQ(e.context, "cfg.json: text_config.num_hidden_layers");
}

TEST(HfConfig, TextSuffixedModelTypeIsAccepted) {
  auto m = parse_hf_config(R"({"text_config": {"model_type": "qwen3_text", "num_hidden_layers": 2,
      "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128,
      "vocab_size": 100}})",
                           "x");
  EXPECT_TRUE(m.has_value()) << m.error().what();
}

TEST(HfConfig, MissingModelTypeFallsBackToArchitectures) {
  auto m = parse_hf_config(R"({"architectures": ["MixtralForCausalLM"], "num_hidden_layers": 2,
      "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,
      "num_local_experts": 4, "num_experts_per_tok": 2})",
                           "x");
  ASSERT_TRUE(m.has_value()) << m.error().what();
  EXPECT_EQ(m->moe_ffn_hidden_size, 128);
}

TEST(HfConfig, MlpOnlyLayersWarnThatTheyAreTreatedAsMoe) {
  std::vector<std::string> warnings;
  auto m = parse_hf_config(R"({"model_type": "qwen3_moe", "num_hidden_layers": 4,
      "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,
      "num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
      "mlp_only_layers": [0, 3]})",
                           "q.json", &warnings);
  ASSERT_TRUE(m.has_value()) << m.error().what();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("mlp_only_layers [0,3]"), std::string::npos) << warnings[0];
}

TEST(HfConfig, DecoderSparseStepWarnsWhenLayerCountDiffers) {
  // Qwen: layer i is MoE when (i + 1) % 2 == 0 -> 1, 3 = 2 of 5; the workload counts 0, 2, 4 = 3.
  std::vector<std::string> warnings;
  auto m = parse_hf_config(R"({"model_type": "qwen2_moe", "num_hidden_layers": 5,
      "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,
      "num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
      "decoder_sparse_step": 2})",
                           "q.json", &warnings);
  ASSERT_TRUE(m.has_value()) << m.error().what();
  EXPECT_EQ(m->moe_layer_freq, 2);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("2 MoE layers; they are modelled as 3"), std::string::npos)
      << warnings[0];
}

TEST(HfConfig, UsedSlidingWindowWarns) {
  std::vector<std::string> warnings;
  auto m = parse_hf_config(llama_with(R"(, "max_position_embeddings": 32768,
      "sliding_window": 4096)"),
                           "m.json", &warnings);
  ASSERT_TRUE(m.has_value());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("m.json: sliding_window 4096", 0), 0u) << warnings[0];
}

TEST(HfConfig, GemmaGeluMlpIsGatedAndTied) {
  auto m = parse_hf_config(R"({"model_type": "gemma", "num_hidden_layers": 2, "hidden_size": 64,
      "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,
      "hidden_act": "gelu_pytorch_tanh", "head_dim": 32})",
                           "g.json");
  ASSERT_TRUE(m.has_value()) << m.error().what();
  EXPECT_EQ(m->activation, Activation::kSwiglu);
  EXPECT_TRUE(m->tie_embeddings);  // GemmaConfig defaults tie_word_embeddings to true
}

TEST(HfConfig, NemotronRelu2IsSquaredRelu) {
  auto m = parse_hf_config(R"({"model_type": "nemotron", "num_hidden_layers": 2,
      "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128,
      "vocab_size": 100, "hidden_act": "relu2"})",
                           "n.json");
  ASSERT_TRUE(m.has_value()) << m.error().what();
  EXPECT_EQ(m->activation, Activation::kSquaredRelu);
}

TEST(HfConfig, ConfigJsonInAFolderTakesTheFolderName) {
  auto m = parse_hf_config(llama_with(""), "/models/Llama-3.1-8B-Instruct/config.json");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->name, "Llama-3.1-8B-Instruct");
  EXPECT_EQ(m->id, "llama-3.1-8b-instruct");
}

// "hf_config: config.json" read from the current folder, or a config saved from a local folder
// (transformers writes "_name_or_path": "."), is named after that folder, not ".".
TEST(HfConfig, ConfigJsonInTheCurrentFolderTakesItsName) {
  const std::string folder = std::filesystem::current_path().filename().string();
  ASSERT_FALSE(folder.empty());
  for (const char* origin : {"config.json", "./config.json"}) {
    auto m = parse_hf_config(llama_with(""), origin);
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->name, folder) << origin;
  }
  auto dot =
      parse_hf_config(llama_with(R"(, "_name_or_path": ".")"), "/models/Qwen-Local/config.json");
  ASSERT_TRUE(dot.has_value());
  EXPECT_EQ(dot->name, "Qwen-Local");
  auto slash = parse_hf_config(llama_with(R"(, "_name_or_path": "org/Model-X/")"), "cfg.json");
  ASSERT_TRUE(slash.has_value());
  EXPECT_EQ(slash->name, "Model-X");
}

}  // namespace
}  // namespace aicost::config
