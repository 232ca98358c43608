#include "aicost/workload/model.h"

#include <string>

namespace aicost::workload {
namespace {

core::Error invalid(const std::string& field, const std::string& why) {
  return core::make_error(core::ErrorCode::kInvalidInput, why, "model." + field);
}

}  // namespace

core::Result<Model> Model::create(catalog::ModelSpec s) {
  const struct {
    const char* name;
    int value;
  } required[] = {{"num_layers", s.num_layers},
                  {"hidden_size", s.hidden_size},
                  {"num_attention_heads", s.num_attention_heads},
                  {"vocab_size", s.vocab_size}};
  for (const auto& r : required) {
    if (r.value <= 0) {
      return invalid(r.name, std::string(r.name) + " must be a positive integer, got " +
                                 std::to_string(r.value));
    }
  }
  if (s.ffn_hidden_size <= 0 && !(s.num_moe_experts > 0 && s.moe_first_dense_layers == 0)) {
    return invalid("ffn_hidden_size", "ffn_hidden_size must be a positive integer");
  }
  Model m(std::move(s));
  const auto& spec = m.spec_;
  m.kv_heads_ = spec.num_query_groups > 0 ? spec.num_query_groups : spec.num_attention_heads;
  if (spec.num_attention_heads % m.kv_heads_ != 0) {
    return invalid("num_query_groups", "num_query_groups " + std::to_string(m.kv_heads_) +
                                           " must divide num_attention_heads " +
                                           std::to_string(spec.num_attention_heads));
  }
  if (spec.kv_channels > 0) {
    m.head_dim_ = spec.kv_channels;
  } else if (spec.hidden_size % spec.num_attention_heads != 0) {
    return invalid("kv_channels", "hidden_size " + std::to_string(spec.hidden_size) +
                                      " is not a multiple of num_attention_heads " +
                                      std::to_string(spec.num_attention_heads) +
                                      "; give kv_channels (head_dim) explicitly");
  } else {
    m.head_dim_ = spec.hidden_size / spec.num_attention_heads;
  }
  if (spec.num_moe_experts > 0) {
    if (spec.moe_router_topk <= 0 || spec.moe_router_topk > spec.num_moe_experts) {
      return invalid("moe_router_topk", "moe_router_topk must be between 1 and num_moe_experts (" +
                                            std::to_string(spec.num_moe_experts) + ")");
    }
    if (spec.moe_ffn_hidden_size <= 0) {
      return invalid("moe_ffn_hidden_size", "an MoE model needs moe_ffn_hidden_size > 0");
    }
    const int freq = spec.moe_layer_freq > 0 ? spec.moe_layer_freq : 1;
    for (int i = spec.moe_first_dense_layers; i < spec.num_layers; ++i) {
      if ((i - spec.moe_first_dense_layers) % freq == 0) ++m.moe_layers_;
    }
  }
  if (spec.multi_latent_attention &&
      (spec.kv_lora_rank <= 0 || spec.qk_head_dim <= 0 || spec.v_head_dim <= 0)) {
    return invalid("kv_lora_rank",
                   "multi_latent_attention needs kv_lora_rank, qk_head_dim and v_head_dim");
  }
  return m;
}

double Model::attention_params() const {
  const double h = hidden();
  const double norms = 2 * h;
  if (spec_.multi_latent_attention) {
    // DeepSeek-V2 §2.1: low-rank query (q_lora) and joint KV compression (kv_lora) + decoupled
    // RoPE.
    const double a = heads();
    const double qk = spec_.qk_head_dim + spec_.qk_pos_emb_head_dim;
    const double q = spec_.q_lora_rank > 0
                         ? h * spec_.q_lora_rank + spec_.q_lora_rank * a * qk + spec_.q_lora_rank
                         : h * a * qk;
    const double kv = h * (spec_.kv_lora_rank + spec_.qk_pos_emb_head_dim) +
                      spec_.kv_lora_rank * a * (spec_.qk_head_dim + spec_.v_head_dim) +
                      spec_.kv_lora_rank;
    const double out = a * spec_.v_head_dim * h;
    return q + kv + out + norms;
  }
  return h * (q_width() + 2.0 * kv_width()) + static_cast<double>(q_width()) * h + norms;
}

double Model::dense_mlp_params() const {
  return static_cast<double>(mlp_matrices()) * hidden() * spec_.ffn_hidden_size;
}

double Model::expert_params() const {
  return static_cast<double>(mlp_matrices()) * hidden() * spec_.moe_ffn_hidden_size;
}

double Model::shared_expert_params() const {
  return static_cast<double>(mlp_matrices()) * hidden() * spec_.moe_shared_expert_intermediate_size;
}

double Model::embedding_params() const {
  double p = static_cast<double>(vocab()) * hidden();
  if (spec_.learned_position_embeddings) p += static_cast<double>(spec_.seq_length) * hidden();
  return p;
}

double Model::output_params() const {
  return spec_.tie_embeddings ? 0.0 : static_cast<double>(vocab()) * hidden();
}

double Model::params_experts() const {
  return static_cast<double>(moe_layers_) * spec_.num_moe_experts * expert_params();
}

double Model::params_total() const {
  const double router = static_cast<double>(hidden()) * spec_.num_moe_experts;
  return layers() * attention_params() + dense_layers() * dense_mlp_params() +
         moe_layers_ * (shared_expert_params() + router) + params_experts() + embedding_params() +
         output_params() + hidden() /* final norm */;
}

double Model::params_active() const {
  if (!is_moe()) return params_total();
  return params_total() - params_experts() +
         static_cast<double>(moe_layers_) * spec_.moe_router_topk * expert_params();
}

}  // namespace aicost::workload
