#include "aicost/perf/flops.h"

namespace aicost::perf {

ForwardFlopsPerToken forward_flops_per_token(const workload::Model& m, int seq,
                                             FlopConvention convention) {
  const auto& s = m.spec();
  const double h = m.hidden();
  const double causal = convention == FlopConvention::kCausal ? 0.5 : 1.0;
  ForwardFlopsPerToken f;
  double linear_per_layer = 0;
  double core_per_layer = 0;
  if (s.multi_latent_attention) {
    // training-model.md §1.3 MLA: forward = 2 x MACs.
    const double a = m.heads();
    const double qk = s.qk_head_dim + s.qk_pos_emb_head_dim;
    const double q_macs = s.q_lora_rank > 0 ? s.q_lora_rank * (h + a * qk) : h * a * qk;
    const double kv_macs =
        s.kv_lora_rank * (h + a * (s.qk_head_dim + s.v_head_dim)) + h * s.qk_pos_emb_head_dim;
    linear_per_layer = 2 * (q_macs + kv_macs + a * s.v_head_dim * h);
    core_per_layer = 2 * a * (qk + s.v_head_dim) * seq * causal;
  } else {
    const double q = m.q_width();
    const double kv = m.kv_width();
    linear_per_layer = 2 * h * (q + 2 * kv) + 2 * q * h;
    core_per_layer = 4 * q * seq * causal;
  }
  const int layers = m.layers() + s.mtp_num_layers;
  f.attention_linear = layers * linear_per_layer;
  f.attention_core = layers * core_per_layer;
  const double gamma = m.mlp_matrices();
  const double dense = 2 * gamma * h * s.ffn_hidden_size;
  const double moe = 2 * gamma * h *
                     (static_cast<double>(s.moe_router_topk) * s.moe_ffn_hidden_size +
                      s.moe_shared_expert_intermediate_size);
  const int moe_layers = m.moe_layers() + (m.is_moe() ? s.mtp_num_layers : 0);
  const int dense_layers = layers - moe_layers;
  f.mlp = dense_layers * dense + moe_layers * moe;
  f.logits = 2 * h * m.vocab() * (1 + s.mtp_num_layers);
  return f;
}

double training_flops_per_token(const workload::Model& m, int seq, FlopConvention convention) {
  return 3 * forward_flops_per_token(m, seq, convention).total();
}

double korthikanti_model_flops_per_token(const workload::Model& m, int seq) {
  const double h = m.hidden();
  const double L = m.layers();
  return 72.0 * L * h * h * (1 + seq / (6 * h) + m.vocab() / (12 * h * L));
}

}  // namespace aicost::perf
