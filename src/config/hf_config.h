// Hugging Face config.json -> ModelSpec (Megatron-Core field names).
// The field traps per family are listed in /work/shared/reference/ecosystem.md section (i).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "aicost/catalog/model_spec.h"
#include "aicost/core/result.h"

namespace aicost::config {

// The model_type values parse_hf_config understands, in a stable order (for help texts and
// "did you mean"). "<type>_text" (the LM inside a multimodal wrapper) is accepted for each.
const std::vector<std::string>& supported_hf_model_types();

// Reads a Hugging Face config.json into a ModelSpec. `origin` names the file in messages.
//
// - The LM is the top level or, when that has no `num_hidden_layers`, the first of
//   `text_config`, `language_config`, `llm_config`, `decoder_config` (multimodal wrappers).
// - JSON null for an optional field means absent.
// - Defaults: num_key_value_heads = num_attention_heads; tie_word_embeddings = false (true for
//   gemma/gemma2, as in transformers); seq_length = 0 without max_position_embeddings.
// - head_dim becomes kv_channels even when it is not hidden_size / num_attention_heads (Qwen3).
// - MLA (kv_lora_rank present): head_dim and num_key_value_heads are ignored;
//   num_query_groups = num_attention_heads, kv_channels = 0.
// - activation: kSwiglu for every family whose MLP is gated (all but nemotron), whatever
//   hidden_act says (Gemma's gelu is GeGLU); nemotron: relu2 -> kSquaredRelu, gelu* -> kGelu.
// - name: last path component of `_name_or_path` (the wrapper's first), else the file stem of
//   `origin` (its folder when the file is config.json); id: catalog::normalize_name(name).
//
// Errors: kParse (malformed JSON: message says line and column, context "origin:line:col", and the
// message shows the offending line with a caret under the column), kInvalidInput (a required field
// missing or of the wrong type: names the field and the model_type), kNotFound (unknown model_type,
// with "did you mean" among the supported ones and a hint to describe the architecture inline).
// Warnings (non-fatal approximations: mlp_only_layers, MoE layer placement, sliding windows,
// an unread quantization_config) are appended to `warnings`, each prefixed with "origin: ".
// Thread-safe: no shared state.
core::Result<catalog::ModelSpec> parse_hf_config(std::string_view json_text,
                                                 std::string_view origin,
                                                 std::vector<std::string>* warnings = nullptr);

}  // namespace aicost::config
