// A transformer's architecture as plain data, in Megatron-Core field names. Presets in
// data/models.yaml and Hugging Face config.json files both become a ModelSpec.
// workload::Model derives parameter counts and shapes from it.
#pragma once

#include <string>
#include <vector>

#include "aicost/catalog/provenance.h"

namespace aicost::catalog {

enum class Activation { kGelu, kSwiglu, kSquaredRelu };
const char* to_string(Activation a);

struct ModelSpec {
  std::string id;
  std::string name;
  std::vector<std::string> aliases;

  int num_layers = 0;
  int hidden_size = 0;
  int num_attention_heads = 0;
  int num_query_groups = 0;  // KV heads; 0 means = num_attention_heads (MHA)
  int kv_channels = 0;       // head dim; 0 means hidden_size / num_attention_heads
  int ffn_hidden_size = 0;   // dense MLP width
  int vocab_size = 0;
  Activation activation = Activation::kGelu;
  bool tie_embeddings = false;
  bool learned_position_embeddings = false;
  int seq_length = 0;  // pre-training context; 0 = unknown
  // Dropout after attention and MLP (1-byte masks kept for backward): GPT-3/Megatron GPT yes,
  // Llama-era models no.
  bool hidden_dropout = false;

  // Mixture of experts (num_moe_experts == 0: dense).
  int num_moe_experts = 0;
  int moe_router_topk = 0;
  int moe_ffn_hidden_size = 0;
  int moe_shared_expert_intermediate_size = 0;  // total width of the shared experts
  int moe_first_dense_layers = 0;               // DeepSeek first_k_dense_replace
  int moe_layer_freq = 1;                       // every k-th layer (after the dense ones) is MoE

  // Multi-latent attention (DeepSeek-V2/V3).
  bool multi_latent_attention = false;
  int q_lora_rank = 0;
  int kv_lora_rank = 0;
  int qk_head_dim = 0;          // nope part
  int qk_pos_emb_head_dim = 0;  // rope part
  int v_head_dim = 0;
  int mtp_num_layers = 0;

  // Published counts, for cross-checks (0 = not published).
  double published_params = 0;
  double published_active_params = 0;
  Provenance provenance;
};

}  // namespace aicost::catalog
