// A model architecture with its derived shapes and parameter counts.
// Parameter formulas: Megatron-LM megatron/training/theoretical_memory_usage.py and the per-layer
// shapes of ../shared/reference/training-model.md §1.3 (GQA, SwiGLU, MoE, MLA). Biases are ignored;
// the two layer norms per layer are counted. MTP layers are not part of params_total() (DeepSeek-V3
// reports 671B without its 14B MTP module) but are part of the FLOPs.
#pragma once

#include "aicost/catalog/model_spec.h"
#include "aicost/core/result.h"

namespace aicost::workload {

class Model {
 public:
  Model() = default;  // an empty placeholder; use create() for a real model
  // Checks the spec (positive sizes, heads divide, MoE fields consistent) and derives shapes.
  static core::Result<Model> create(catalog::ModelSpec spec);

  const catalog::ModelSpec& spec() const { return spec_; }
  int layers() const { return spec_.num_layers; }
  int hidden() const { return spec_.hidden_size; }
  int heads() const { return spec_.num_attention_heads; }
  int kv_heads() const { return kv_heads_; }
  int head_dim() const { return head_dim_; }
  int q_width() const { return heads() * head_dim_; }     // query projection width
  int kv_width() const { return kv_heads_ * head_dim_; }  // key (= value) projection width
  int vocab() const { return spec_.vocab_size; }
  bool is_moe() const { return spec_.num_moe_experts > 0; }
  int moe_layers() const { return moe_layers_; }
  int dense_layers() const { return layers() - moe_layers_; }
  // 3 for gated (SwiGLU) MLPs, 2 otherwise.
  int mlp_matrices() const { return spec_.activation == catalog::Activation::kSwiglu ? 3 : 2; }

  // Parameters of one layer's attention block (projections + 2 norms).
  double attention_params() const;
  // Parameters of one dense MLP.
  double dense_mlp_params() const;
  // Parameters of one routed expert / of all shared experts of one MoE layer.
  double expert_params() const;
  double shared_expert_params() const;
  double embedding_params() const;  // input embedding (+ learned positions)
  double output_params() const;     // 0 when tied

  // All parameters (without MTP layers), and those active per token (top-k experts).
  double params_total() const;
  double params_active() const;
  // Parameters of all routed experts (they shard over expert parallelism).
  double params_experts() const;

 private:
  explicit Model(catalog::ModelSpec spec) : spec_(std::move(spec)) {}
  catalog::ModelSpec spec_;
  int kv_heads_ = 0;
  int head_dim_ = 0;
  int moe_layers_ = 0;
};

}  // namespace aicost::workload
