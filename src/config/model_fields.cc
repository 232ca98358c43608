// The architecture keys shared by model presets (data/models.yaml) and inline plan models.
#include "aicost/catalog/catalog.h"
#include "yaml_source.h"

namespace aicost::config {

core::Status read_model_fields(MapReader& r, catalog::ModelSpec& m) {
  r.alias("num_hidden_layers", "num_layers");
  r.alias("num_experts", "num_moe_experts");
  r.alias("share_embeddings_and_output_weights", "tie_embeddings");
  r.alias("max_position_embeddings", "seq_length");
  r.alias("head_dim", "kv_channels");
  const std::pair<const char*, int*> ints[] = {
      {"num_layers", &m.num_layers},
      {"hidden_size", &m.hidden_size},
      {"num_attention_heads", &m.num_attention_heads},
      {"num_query_groups", &m.num_query_groups},
      {"kv_channels", &m.kv_channels},
      {"ffn_hidden_size", &m.ffn_hidden_size},
      {"vocab_size", &m.vocab_size},
      {"seq_length", &m.seq_length},
      {"num_moe_experts", &m.num_moe_experts},
      {"moe_router_topk", &m.moe_router_topk},
      {"moe_ffn_hidden_size", &m.moe_ffn_hidden_size},
      {"moe_shared_expert_intermediate_size", &m.moe_shared_expert_intermediate_size},
      {"moe_first_dense_layers", &m.moe_first_dense_layers},
      {"moe_layer_freq", &m.moe_layer_freq},
      {"q_lora_rank", &m.q_lora_rank},
      {"kv_lora_rank", &m.kv_lora_rank},
      {"qk_head_dim", &m.qk_head_dim},
      {"qk_pos_emb_head_dim", &m.qk_pos_emb_head_dim},
      {"v_head_dim", &m.v_head_dim},
      {"mtp_num_layers", &m.mtp_num_layers}};
  for (const auto& [key, field] : ints) TRY_ASSIGN(*field, r.integer(key));
  TRY_ASSIGN(m.tie_embeddings, r.boolean("tie_embeddings"));
  TRY_ASSIGN(m.multi_latent_attention, r.boolean("multi_latent_attention"));
  std::optional<std::string> activation;
  TRY_ASSIGN(activation, r.string("activation"));
  if (activation) {
    const std::string a = catalog::normalize_name(*activation);
    if (a == "gelu") {
      m.activation = catalog::Activation::kGelu;
    } else if (a == "swiglu" || a == "silu") {
      m.activation = catalog::Activation::kSwiglu;
    } else if (a == "squared-relu" || a == "relu2") {
      m.activation = catalog::Activation::kSquaredRelu;
    } else {
      return r.source().error(
          r.node("activation").Mark(),
          "activation must be gelu, swiglu or squared-relu, got '" + *activation + "'");
    }
  }
  std::optional<std::string> position;
  TRY_ASSIGN(position, r.string("position_embedding"));
  if (position) {
    if (*position != "rope" && *position != "learned" && *position != "alibi" &&
        *position != "none") {
      return r.source().error(r.node("position_embedding").Mark(),
                              "position_embedding must be rope, learned, alibi or none");
    }
    m.learned_position_embeddings = *position == "learned";
  }
  // GPT-3-era models use dropout; the default follows the family unless a preset said otherwise.
  if (r.has("hidden_dropout")) {
    auto v = r.node("hidden_dropout");
    bool flag = false;
    double p = 0;
    if (YAML::convert<bool>::decode(v, flag)) {
      m.hidden_dropout = flag;
    } else if (YAML::convert<double>::decode(v, p) && p >= 0 && p < 1) {
      m.hidden_dropout = p > 0;
    } else {
      return r.source().error(v.Mark(), "hidden_dropout must be true/false or a rate in [0, 1)");
    }
  } else {
    m.hidden_dropout = m.activation == catalog::Activation::kGelu && m.learned_position_embeddings;
  }
  return {};
}

}  // namespace aicost::config
