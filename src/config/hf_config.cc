#include "hf_config.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <filesystem>
#include <optional>

#include "aicost/catalog/catalog.h"
#include "aicost/core/suggest.h"
#include "json_error.h"

namespace aicost::config {
namespace {

using catalog::Activation;
using nlohmann::json;

struct Family {
  const char* model_type;
  const char* architecture;  // dispatches files that lack model_type
  bool gated_mlp;            // gate/up/down matrices whatever hidden_act says (Gemma's GeGLU too)
  bool tie_default;          // transformers' default for tie_word_embeddings
  bool requires_experts;
};

constexpr Family kFamilies[] = {
    {"llama", "LlamaForCausalLM", true, false, false},
    {"mistral", "MistralForCausalLM", true, false, false},
    {"mixtral", "MixtralForCausalLM", true, false, true},
    {"qwen2", "Qwen2ForCausalLM", true, false, false},
    {"qwen2_moe", "Qwen2MoeForCausalLM", true, false, true},
    {"qwen3", "Qwen3ForCausalLM", true, false, false},
    {"qwen3_moe", "Qwen3MoeForCausalLM", true, false, true},
    {"deepseek_v2", "DeepseekV2ForCausalLM", true, false, false},
    {"deepseek_v3", "DeepseekV3ForCausalLM", true, false, false},
    {"gemma", "GemmaForCausalLM", true, true, false},
    {"gemma2", "Gemma2ForCausalLM", true, true, false},
    {"phi3", "Phi3ForCausalLM", true, false, false},
    {"nemotron", "NemotronForCausalLM", false, false, false},  // up/down only, relu2
    {"granite", "GraniteForCausalLM", true, false, false},
    {"olmo", "OlmoForCausalLM", true, false, false},
    {"olmo2", "Olmo2ForCausalLM", true, false, false},
};

// Multimodal wrappers nest the LM here (ecosystem.md (i)); order is the search order.
constexpr const char* kNestedKeys[] = {"text_config", "language_config", "llm_config",
                                       "decoder_config"};

const Family* family_by_type(std::string_view type) {
  for (const auto& f : kFamilies) {
    if (type == f.model_type) return &f;
  }
  // Wrappers call their LM "<type>_text" (gemma3_text, qwen3_moe_text...).
  if (type.ends_with("_text")) return family_by_type(type.substr(0, type.size() - 5));
  return nullptr;
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

// Typed access to the LM's fields. Null means absent; the first error is kept so the caller
// can read every field and check once.
class Fields {
 public:
  Fields(const json& lm, const json* wrapper, std::string prefix, std::string_view origin)
      : lm_(lm), wrapper_(wrapper), prefix_(std::move(prefix)), origin_(origin) {}

  void set_model_type(std::string type) { model_type_ = std::move(type); }
  const std::optional<core::Error>& error() const { return error_; }

  const json* find(const char* key, bool look_in_wrapper = false) const {
    if (auto it = lm_.find(key); it != lm_.end() && !it->is_null()) return &*it;
    if (!look_in_wrapper || wrapper_ == nullptr) return nullptr;
    auto it = wrapper_->find(key);
    return it != wrapper_->end() && !it->is_null() ? &*it : nullptr;
  }
  bool has(const char* key) const { return find(key) != nullptr; }

  // An integer >= min (4096.0 counts as an integer); a required one must be present.
  std::optional<int> count(const char* key, bool required, int min = 0) {
    const json* v = find(key);
    if (v == nullptr) {
      if (required) fail(key, "required field '" + std::string(key) + "' is missing");
      return std::nullopt;
    }
    const bool integral =
        v->is_number_integer() ||
        (v->is_number_float() && std::trunc(v->get<double>()) == v->get<double>());
    if (!integral || v->get<double>() < min || v->get<double>() > INT_MAX) {
      fail(key, "field '" + std::string(key) + "' must be an integer >= " + std::to_string(min) +
                    ", not " + v->dump());
      return std::nullopt;
    }
    return static_cast<int>(v->get<double>());
  }
  std::optional<bool> flag(const char* key, bool look_in_wrapper = false) {
    return typed<bool>(key, look_in_wrapper, &json::is_boolean, "true or false");
  }
  std::optional<std::string> text(const char* key, bool look_in_wrapper = false) {
    return typed<std::string>(key, look_in_wrapper, &json::is_string, "a string");
  }
  void fail(const char* key, const std::string& message) {
    if (error_) return;
    error_ = core::make_error(core::ErrorCode::kInvalidInput,
                              message + " (model_type '" + model_type_ + "')",
                              std::string(origin_) + ": " + prefix_ + key);
  }

 private:
  const json& lm_;
  const json* wrapper_;
  std::string prefix_;
  std::string_view origin_;
  std::string model_type_ = "?";
  std::optional<core::Error> error_;

  template <class T>
  std::optional<T> typed(const char* key, bool look_in_wrapper, bool (json::*is)() const noexcept,
                         const char* what) {
    const json* v = find(key, look_in_wrapper);
    if (v == nullptr) return std::nullopt;
    if ((v->*is)()) return v->get<T>();
    fail(key, "field '" + std::string(key) + "' must be " + what + ", not " + v->dump());
    return std::nullopt;
  }
};

core::Result<const Family*> resolve_family(Fields& f, std::string_view origin,
                                           const std::string& prefix) {
  const auto type = f.text("model_type");
  if (f.error()) return *f.error();
  if (type) {
    if (const Family* fam = family_by_type(*type)) return fam;
    return core::make_error(
        core::ErrorCode::kNotFound,
        "model_type '" + *type + "' is not supported." +
            core::did_you_mean(*type, supported_hf_model_types()) +
            " Supported: " + join(supported_hf_model_types()) +
            ". For another architecture, describe it inline under model: (num_layers, "
            "hidden_size, num_attention_heads, ffn_hidden_size, vocab_size, ...) instead.",
        std::string(origin) + ": " + prefix + "model_type");
  }
  // No model_type (hand-trimmed files): the architectures list still names the class.
  if (const json* archs = f.find("architectures", true); archs && archs->is_array()) {
    for (const auto& a : *archs) {
      for (const auto& fam : kFamilies) {
        if (a.is_string() && a.get<std::string>() == fam.architecture) return &fam;
      }
    }
  }
  f.fail("model_type",
         "required field 'model_type' is missing and no supported class is named "
         "in 'architectures'");
  return *f.error();
}

// The last part of a path that names something ("a/b/" -> "b"); "" for ".", ".." or nothing.
std::string last_name(const std::filesystem::path& path) {
  std::filesystem::path p = path.lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  const std::string name = p.filename().string();
  return name == "." || name == ".." ? "" : name;
}

// "meta-llama/Llama-3.1-8B" -> "Llama-3.1-8B"; ".../Llama-3.1-8B/config.json" -> "Llama-3.1-8B";
// a config saved from a local folder ("_name_or_path": ".") or read from the current one
// ("config.json") takes the folder's real name.
std::string display_name(const std::optional<std::string>& name_or_path, std::string_view origin) {
  if (name_or_path) {
    if (std::string name = last_name(*name_or_path); !name.empty()) return name;
  }
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(std::filesystem::path(origin), ec);
  if (ec) p = std::filesystem::path(origin);
  p = p.lexically_normal();
  if (p.filename() == "config.json") {
    if (std::string name = last_name(p.parent_path()); !name.empty()) return name;
  }
  return p.stem().string();
}

void read_moe(Fields& f, const Family& fam, catalog::ModelSpec& m,
              std::vector<std::string>& notes) {
  std::optional<int> experts;
  for (const char* key : {"num_local_experts", "num_experts", "n_routed_experts"}) {
    if (f.has(key)) {
      experts = f.count(key, true);
      break;
    }
  }
  if (!experts) {
    if (fam.requires_experts) {
      f.fail("num_experts", "none of num_local_experts, num_experts, n_routed_experts is set");
    }
    return;
  }
  if (*experts == 0) return;
  m.num_moe_experts = *experts;
  m.moe_router_topk = f.count("num_experts_per_tok", true, 1).value_or(0);
  if (m.moe_router_topk > m.num_moe_experts) {
    f.fail("num_experts_per_tok", "num_experts_per_tok exceeds the number of experts");
  }
  // Mixtral has no separate expert width: every layer's MLP is the expert (ecosystem.md (i)).
  m.moe_ffn_hidden_size = std::string_view(fam.model_type) == "mixtral"
                              ? m.ffn_hidden_size
                              : f.count("moe_intermediate_size", true, 1).value_or(0);
  m.moe_shared_expert_intermediate_size =
      f.count("shared_expert_intermediate_size", false).value_or(0) +
      f.count("n_shared_experts", false).value_or(0) * m.moe_ffn_hidden_size;
  m.moe_first_dense_layers = f.count("first_k_dense_replace", false).value_or(0);
  if (m.moe_first_dense_layers > m.num_layers) {
    f.fail("first_k_dense_replace", "first_k_dense_replace exceeds num_hidden_layers");
  }

  // The workload puts MoE on layers first, first+freq, ...; the checkpoints do not quite.
  const auto deepseek_freq = f.count("moe_layer_freq", false, 1);
  const auto qwen_step = f.count("decoder_sparse_step", false, 1);
  m.moe_layer_freq = deepseek_freq.value_or(qwen_step.value_or(1));
  int actual = 0, modelled = 0;
  for (int i = m.moe_first_dense_layers; i < m.num_layers; ++i) {
    modelled += (i - m.moe_first_dense_layers) % m.moe_layer_freq == 0;
    // DeepSeek: i % freq == 0 after the dense ones; Qwen: (i + 1) % step == 0.
    actual += deepseek_freq ? i % m.moe_layer_freq == 0 : (i + 1) % m.moe_layer_freq == 0;
  }
  if (actual != modelled) {
    notes.push_back("the checkpoint has " + std::to_string(actual) +
                    " MoE layers; they are modelled as " + std::to_string(modelled) +
                    " (every moe_layer_freq-th layer from the first MoE layer)");
  }
  if (const json* dense = f.find("mlp_only_layers")) {
    if (!dense->is_array()) {
      f.fail("mlp_only_layers", "field 'mlp_only_layers' must be a list of layer indices");
    } else if (!dense->empty()) {
      notes.push_back("mlp_only_layers " + dense->dump() + " are dense in the checkpoint but " +
                      "treated as MoE layers (parameters and FLOPs are overestimated)");
    }
  }
}

}  // namespace

const std::vector<std::string>& supported_hf_model_types() {
  static const std::vector<std::string> kTypes = [] {
    std::vector<std::string> v;
    for (const auto& f : kFamilies) v.emplace_back(f.model_type);
    return v;
  }();
  return kTypes;
}

core::Result<catalog::ModelSpec> parse_hf_config(std::string_view json_text,
                                                 std::string_view origin,
                                                 std::vector<std::string>* warnings) {
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    return json_parse_error(json_text, origin, e.byte, e.what());
  } catch (const json::exception& e) {  // e.g. a number too large for any C++ type
    return core::make_error(core::ErrorCode::kParse, std::string("malformed JSON: ") + e.what(),
                            std::string(origin));
  }
  if (!doc.is_object()) {
    return core::make_error(
        core::ErrorCode::kInvalidInput,
        "a config.json must hold a JSON object, not " + std::string(doc.type_name()),
        std::string(origin));
  }

  const json* lm = &doc;
  std::string prefix;
  if (!doc.contains("num_hidden_layers")) {
    for (const char* key : kNestedKeys) {
      auto it = doc.find(key);
      if (it == doc.end() || !it->is_object()) continue;
      if (lm == &doc || it->contains("num_hidden_layers")) {
        lm = &*it;
        prefix = std::string(key) + ".";
      }
      if (it->contains("num_hidden_layers")) break;
    }
  }
  Fields f(*lm, lm == &doc ? nullptr : &doc, prefix, origin);
  auto fam_or = resolve_family(f, origin, prefix);
  if (!fam_or) return fam_or.error();
  const Family& fam = **fam_or;
  f.set_model_type(fam.model_type);

  catalog::ModelSpec m;
  std::vector<std::string> notes;
  m.num_layers = f.count("num_hidden_layers", true, 1).value_or(0);
  m.hidden_size = f.count("hidden_size", true, 1).value_or(0);
  m.num_attention_heads = f.count("num_attention_heads", true, 1).value_or(0);
  m.ffn_hidden_size = f.count("intermediate_size", true, 1).value_or(0);
  m.vocab_size = f.count("vocab_size", true, 1).value_or(0);
  m.seq_length = f.count("max_position_embeddings", false).value_or(0);
  m.tie_embeddings = f.flag("tie_word_embeddings", true).value_or(fam.tie_default);
  m.learned_position_embeddings = false;
  m.hidden_dropout = false;

  if (f.has("kv_lora_rank")) {
    // MLA: head_dim and num_key_value_heads describe transformers internals, not the cost.
    m.multi_latent_attention = true;
    m.num_query_groups = m.num_attention_heads;
    m.kv_channels = 0;
    m.q_lora_rank = f.count("q_lora_rank", false).value_or(0);
    m.kv_lora_rank = f.count("kv_lora_rank", true, 1).value_or(0);
    m.qk_head_dim = f.count("qk_nope_head_dim", true, 1).value_or(0);
    m.qk_pos_emb_head_dim = f.count("qk_rope_head_dim", true, 0).value_or(0);
    m.v_head_dim = f.count("v_head_dim", true, 1).value_or(0);
  } else {
    m.num_query_groups = f.count("num_key_value_heads", false, 1).value_or(m.num_attention_heads);
    if (m.num_query_groups > 0 && m.num_attention_heads % m.num_query_groups != 0) {
      f.fail("num_key_value_heads",
             "num_attention_heads must be a multiple of num_key_value_heads");
    }
    m.kv_channels = f.count("head_dim", false, 1).value_or(0);
  }
  m.mtp_num_layers = f.count("num_nextn_predict_layers", false).value_or(0);

  // Gemma's config says gelu but its MLP is gated (GeGLU): the cost is that of SwiGLU. The
  // enum's kSwiglu stands for any gated MLP (3 matrices).
  const auto act = f.has("hidden_activation") ? f.text("hidden_activation") : f.text("hidden_act");
  const std::string a = act.value_or(fam.gated_mlp ? "silu" : "relu2");
  if (fam.gated_mlp) {
    m.activation = Activation::kSwiglu;
  } else if (a == "relu2" || a.starts_with("gelu")) {
    m.activation = a == "relu2" ? Activation::kSquaredRelu : Activation::kGelu;
  } else {
    f.fail("hidden_act",
           "hidden_act '" + a + "' is not supported for an ungated MLP (relu2, gelu*)");
  }

  read_moe(f, fam, m, notes);

  const auto window = f.count("sliding_window", false);
  if (window && *window > 0 && f.flag("use_sliding_window").value_or(true) &&
      (m.seq_length == 0 || *window < m.seq_length)) {
    notes.push_back("sliding_window " + std::to_string(*window) +
                    " is ignored: attention is modelled as full causal attention (an upper "
                    "bound for sequences longer than the window)");
  }
  if (const json* q = f.find("quantization_config", true); q && q->is_object()) {
    const auto method = q->find("quant_method");
    notes.push_back("quantization_config (" +
                    (method != q->end() && method->is_string() ? method->get<std::string>() : "?") +
                    ") is not read: weights are costed at the plan's precision");
  }
  if (f.error()) return *f.error();

  // The wrapper's _name_or_path names the whole model; a nested one names only its LM base.
  std::optional<std::string> name_or_path;
  for (const json* j : {static_cast<const json*>(&doc), lm}) {
    auto it = j->find("_name_or_path");
    if (!name_or_path && it != j->end() && it->is_string() && *it != "") name_or_path = *it;
  }
  m.name = display_name(name_or_path, origin);
  m.id = catalog::normalize_name(m.name);
  m.provenance.source = "Hugging Face config.json (" + std::string(origin) + ")";
  if (const json* v = f.find("transformers_version", true); v && v->is_string()) {
    m.provenance.note = "transformers_version " + v->get<std::string>();
  }
  if (warnings) {
    for (auto& n : notes) warnings->push_back(std::string(origin) + ": " + std::move(n));
  }
  return m;
}

}  // namespace aicost::config
