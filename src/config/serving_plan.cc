#include "aicost/config/serving_plan.h"

#include <filesystem>

#include "aicost/config/catalog_loader.h"
#include "aicost/core/text.h"
#include "plan_sections.h"
#include "yaml_source.h"

namespace aicost::config {

core::Status read_model_fields(MapReader& r, catalog::ModelSpec& m);

namespace {

using core::UnitKind;

// A scalar or a list of scalars.
std::vector<std::string> items(const YAML::Node& n) {
  std::vector<std::string> out;
  if (!n || n.IsNull()) return out;
  if (n.IsSequence()) {
    for (const auto& e : n) out.push_back(e.Scalar());
  } else {
    out.push_back(n.Scalar());
  }
  return out;
}

core::Result<std::vector<int>> ints(MapReader& r, const std::string& key) {
  std::vector<int> out;
  for (const auto& s : items(r.node(key))) {
    size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(s, &used);
    } catch (...) {
      used = 0;
    }
    if (used != s.size() || v < 1) {
      return r.source().error(r.node(key).Mark(), "'" + key + "' must be whole numbers >= 1");
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace

bool is_serving_plan(const std::string& path) {
  auto text = read_file(path);
  if (!text) return false;
  try {
    const YAML::Node root = YAML::Load(*text);
    return root.IsMap() && root["serving"];
  } catch (...) {
    return false;
  }
}

core::Result<ServingPlan> load_serving_plan(const std::string& path, const catalog::Catalog& cat) {
  auto text = read_file(path);
  if (!text) return text.error();
  const Source src = Source::from_text(path, *text);
  auto root = parse_yaml(src, *text);
  if (!root) return root.error();
  MapReader top(*root, "", src);
  if (!root->IsMap()) return top.not_a_map();
  ServingPlan plan;
  TRY_ASSIGN(plan.name, top.string("name"));
  if (plan.name.empty()) plan.name = std::filesystem::path(path).stem().string();

  // Model: a preset or inline fields (as in training plans; hf_config is not read here yet).
  MapReader m(top.node("model"), "model", src);
  if (!m.self().IsMap()) return src.error(root->Mark(), "the plan has no 'model' section");
  catalog::ModelSpec spec;
  std::optional<std::string> preset;
  TRY_ASSIGN(preset, m.string("preset"));
  if (preset) {
    auto p = cat.model(*preset);
    if (!p) return src.error(m.node("preset").Mark(), p.error().message, p.error().code);
    spec = **p;
  }
  AICOST_TRY_STATUS(read_model_fields(m, spec));
  AICOST_TRY_STATUS(m.finish());
  auto model = workload::Model::create(spec);
  if (!model) return src.error(m.self().Mark(), model.error().message);

  MapReader s(top.node("serving"), "serving", src);
  if (!s.self().IsMap()) return s.not_a_map();
  std::vector<std::string> gpus = items(s.node("gpu"));
  if (gpus.empty()) return src.error(s.self().Mark(), "serving.gpu is required (one or a list)");
  auto tps = ints(s, "tensor_parallel_size");
  if (!tps) return tps.error();
  if (tps->empty()) *tps = {1, 2, 4, 8};
  std::vector<std::string> precisions = items(s.node("precision"));
  if (precisions.empty()) precisions = {"bf16"};
  std::optional<std::string> kv;
  TRY_ASSIGN(kv, s.string("kv_cache_precision"));
  auto batches = ints(s, "max_batch");
  if (!batches) return batches.error();
  plan.batches = batches->empty() ? std::vector<int>{8, 16, 32, 64, 128, 256} : *batches;
  TRY_ASSIGN(plan.traffic.input_tokens, s.quantity("input_tokens", UnitKind::kCount));
  TRY_ASSIGN(plan.traffic.output_tokens, s.quantity("output_tokens", UnitKind::kCount));
  TRY_ASSIGN(plan.traffic.requests_per_s, s.quantity("requests_per_s", UnitKind::kCount));
  for (const char* k : {"input_tokens", "output_tokens", "requests_per_s"}) {
    if (!s.has(k)) return src.error(s.self().Mark(), std::string("serving.") + k + " is required");
  }
  MapReader sla(s.node("sla"), "serving.sla", src);
  if (!sla.self().IsNull() && !sla.self().IsMap()) return sla.not_a_map();
  double v = 0;
  TRY_ASSIGN(v, sla.quantity("ttft", UnitKind::kDuration));
  plan.sla.ttft_s = v;
  v = 0;
  TRY_ASSIGN(v, sla.quantity("tpot", UnitKind::kDuration));
  plan.sla.tpot_s = v;
  TRY_ASSIGN(plan.sla.percentile, sla.quantity("percentile", UnitKind::kPercent));
  if (plan.sla.percentile <= 0 || plan.sla.percentile >= 1) {
    return src.error(sla.node("percentile").Mark(), "percentile must be between 0 % and 100 %");
  }
  AICOST_TRY_STATUS(sla.finish());
  AICOST_TRY_STATUS(s.finish());

  MapReader pricing(top.node("pricing"), "pricing", src);
  if (!pricing.self().IsNull() && !pricing.self().IsMap()) return pricing.not_a_map();
  core::UsdPerSecond gpu_hour(0);
  AICOST_TRY_STATUS(pricing.read("gpu_hour", UnitKind::kMoneyRate, gpu_hour, true));
  std::optional<std::string> mode_name;
  TRY_ASSIGN(mode_name, pricing.string("mode"));
  auto mode = catalog::pricing_mode_from_string(mode_name.value_or("on-demand"));
  if (!mode) return src.error(pricing.node("mode").Mark(), "pricing.mode must be on-demand, spot, reserved-1y or reserved-3y");
  AICOST_TRY_STATUS(pricing.finish());
  top.accept("model");
  top.accept("serving");
  top.accept("pricing");
  AICOST_TRY_STATUS(top.finish());

  for (const auto& id : gpus) {
    auto g = cat.gpu(id);
    if (!g) return src.error(s.node("gpu").Mark(), g.error().message, g.error().code);
    auto eff = cat.efficiency((*g)->generation);
    if (!eff) return core::make_error(core::ErrorCode::kNotFound, "no efficiency profile for " + (*g)->generation, path);
    // Price of one GPU: the plan's, else the cheapest catalogued instance under the mode.
    costing::ComputePricing price;
    if (gpu_hour.value() > 0) {
      price = gpu_hour_pricing(gpu_hour);
    } else {
      const catalog::Instance* best = nullptr;
      for (const auto& i : cat.instances()) {
        if (catalog::normalize_name(i.gpu) != catalog::normalize_name((*g)->id) || !i.price(*mode)) continue;
        if (!best || *i.price(*mode) / i.gpus < *best->price(*mode) / best->gpus) best = &i;
      }
      if (!best) {
        plan.notes.push_back((*g)->id + " skipped: no catalogued " + catalog::to_string(*mode) +
                             " price (give pricing.gpu_hour)");
        continue;
      }
      price = instance_pricing(*best, *mode);
    }
    for (const auto& pname : precisions) {
      auto p = catalog::precision_from_string(pname);
      if (!p) return src.error(s.node("precision").Mark(), "unknown precision '" + pname + "'; use bf16, fp16, fp8, int8 or fp4");
      for (int tp : *tps) {
        if (model->heads() % tp != 0) continue;
        serving::DeploymentOption o;
        o.replica.model = *model;
        o.replica.gpu = **g;
        o.replica.efficiency = **eff;
        o.replica.tensor_parallel = tp;
        o.replica.weights = *p;
        o.replica.kv_cache = *p;
        if (kv) {
          auto k = catalog::precision_from_string(*kv);
          if (!k) return src.error(s.node("kv_cache_precision").Mark(), "unknown precision '" + *kv + "'");
          o.replica.kv_cache = *k;
        }
        o.price_per_gpu_hour = core::per_hour(price.per_gpu);
        o.price_basis = price.basis;
        plan.options.push_back(std::move(o));
      }
    }
  }
  bool any_fits = false;
  for (const auto& o : plan.options) any_fits = any_fits || static_cast<bool>(serving::check(o.replica));
  if (!any_fits) {
    return core::make_error(core::ErrorCode::kInfeasible,
                            "the model (" + core::sprintf("%.0f", model->params_total() / 1e9) +
                                "B parameters) fits on none of the listed GPUs at the listed "
                                "tensor-parallel sizes and precisions; allow a larger "
                                "tensor_parallel_size, fp8/int4 weights, or a GPU with more memory",
                            path);
  }
  return plan;
}

}  // namespace aicost::config
