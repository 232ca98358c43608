#include "aicost/config/serving_plan.h"

#include <algorithm>
#include <filesystem>

#include "aicost/config/catalog_loader.h"
#include "aicost/core/text.h"
#include "plan_sections.h"
#include "yaml_source.h"

namespace aicost::config {

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
    const auto v = positive_int(s);
    if (!v) {
      return r.source().error(r.node(key).Mark(),
                              "'" + key + "' must be whole numbers >= 1, got '" + s + "'");
    }
    out.push_back(*v);
  }
  return out;
}

// {draft_tokens, acceptance, draft_cost}, all three required (serving.speculative and
// serving.levers.speculative).
core::Result<serving::Speculation> read_speculation(const YAML::Node& n, const std::string& path,
                                                    const Source& src) {
  serving::Speculation speculation;
  MapReader sp(n, path, src);
  if (!n.IsMap()) return sp.not_a_map();
  std::optional<int> draft;
  TRY_ASSIGN(draft, sp.integer("draft_tokens"));
  TRY_ASSIGN(speculation.acceptance, sp.quantity("acceptance", UnitKind::kPercent));
  TRY_ASSIGN(speculation.draft_cost, sp.quantity("draft_cost", UnitKind::kPercent));
  for (const char* k : {"draft_tokens", "acceptance", "draft_cost"})
    if (!sp.has(k)) return src.error(n.Mark(), path + "." + k + " is required");
  speculation.draft_tokens = draft.value_or(0);
  if (speculation.draft_tokens < 1 || speculation.draft_tokens > 16)
    return src.error(sp.node("draft_tokens").Mark(), path + ".draft_tokens must be 1 to 16");
  if (speculation.acceptance < 0 || speculation.acceptance >= 1)
    return src.error(sp.node("acceptance").Mark(),
                     path + ".acceptance must be at least 0 % and below 100 %");
  if (speculation.draft_cost < 0 || speculation.draft_cost >= 1)
    return src.error(
        sp.node("draft_cost").Mark(),
        path +
            ".draft_cost is a draft step's share of a target step: at least 0 % and below 100 %");
  AICOST_TRY_STATUS(sp.finish());
  return speculation;
}

// A share of 0 % up to (not including) 100 % at `key` of `r`, into `out` when given.
core::Status read_share(MapReader& r, const std::string& key, std::optional<double>& out) {
  std::optional<double> v;
  TRY_ASSIGN(v, r.quantity(key, UnitKind::kPercent));
  if (v && (*v < 0 || *v >= 1)) {
    return r.source().error(r.node(key).Mark(),
                            r.path() + "." + key + " must be at least 0 % and below 100 %");
  }
  out = v;
  return {};
}

// serving.levers: what a prefix cache, a response cache or a draft model would give on this
// traffic (serving/plan.h LeverFigures).
core::Status read_lever_figures(MapReader& s, serving::LeverFigures& out) {
  if (!s.has("levers")) return {};
  MapReader l(s.node("levers"), "serving.levers", s.source());
  if (!l.self().IsMap()) return l.not_a_map();
  AICOST_TRY_STATUS(read_share(l, "prefix_cache_hit", out.prefix_cache_hit));
  AICOST_TRY_STATUS(read_share(l, "response_cache_hit", out.response_cache_hit));
  core::UsdPerSecond cost(-1);
  AICOST_TRY_STATUS(l.read("response_cache_cost", UnitKind::kMoneyRate, cost));
  if (cost.value() >= 0) out.response_cache_cost = cost;
  if (l.has("speculative")) {
    auto sp = read_speculation(l.node("speculative"), "serving.levers.speculative", s.source());
    if (!sp) return sp.error();
    out.speculation = *sp;
  }
  return l.finish();
}

}  // namespace

bool is_serving_plan(const std::string& path) {
  auto text = read_file(path);
  return text && is_serving_text(*text);
}

bool is_serving_text(const std::string& text) {
  try {
    const YAML::Node root = YAML::Load(text);
    return root.IsMap() && root["serving"];
  } catch (...) {
    return false;
  }
}

core::Result<ServingPlan> load_serving_plan(const std::string& path, const catalog::Catalog& cat) {
  auto text = read_file(path);
  if (!text) return text.error();
  return parse_serving_plan(*text, path, std::filesystem::path(path).parent_path().string(), cat);
}

core::Result<ServingPlan> parse_serving_plan(const std::string& text, const std::string& origin,
                                             const std::string& base_dir,
                                             const catalog::Catalog& cat) {
  const Source src = Source::from_text(origin, text);
  auto root = parse_yaml(src, text);
  if (!root) return root.error();
  MapReader top(*root, "", src);
  if (!root->IsMap()) return top.not_a_map();
  ServingPlan plan;
  plan.values = flatten(*root, {"name"});
  TRY_ASSIGN(plan.name, top.string("name"));
  if (plan.name.empty()) plan.name = std::filesystem::path(origin).stem().string();

  // Model: as in training plans (preset, hf_config or inline).
  MapReader m(top.node("model"), "model", src);
  if (!m.self().IsMap()) return src.error(root->Mark(), "the plan has no 'model' section");
  auto model = read_model(m, cat, base_dir, plan.notes);
  if (!model) return model.error();

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
  serving::Speculation speculation;
  if (s.has("speculative")) {
    auto sp = read_speculation(s.node("speculative"), "serving.speculative", src);
    if (!sp) return sp.error();
    speculation = *sp;
  }
  auto batches = ints(s, "max_batch");
  if (!batches) return batches.error();
  plan.batches = batches->empty() ? std::vector<int>{8, 16, 32, 64, 128, 256} : *batches;
  // A length is a mean, or {mean, p90} of a log-normal distribution.
  auto length = [&](const char* key, double& mean, double& p90) -> core::Status {
    auto n = s.node(key);
    if (n && n.IsMap()) {
      MapReader l(n, std::string("serving.") + key, src);
      TRY_ASSIGN(mean, l.quantity("mean", UnitKind::kCount));
      TRY_ASSIGN(p90, l.quantity("p90", UnitKind::kCount));
      if (p90 > 0 && p90 < mean) {
        return src.error(l.node("p90").Mark(), std::string(key) + ".p90 must be at least the mean");
      }
      return l.finish();
    }
    TRY_ASSIGN(mean, s.quantity(key, UnitKind::kCount));
    return {};
  };
  double input_p90 = 0, output_p90 = 0;
  AICOST_TRY_STATUS(length("input_tokens", plan.traffic.input_tokens, input_p90));
  AICOST_TRY_STATUS(length("output_tokens", plan.traffic.output_tokens, output_p90));
  double requests_per_s = 0;
  TRY_ASSIGN(requests_per_s, s.quantity("requests_per_s", UnitKind::kCount));
  plan.traffic.request_rate = core::PerSecond(requests_per_s);
  std::optional<double> hit;
  AICOST_TRY_STATUS(read_share(s, "prefix_cache_hit", hit));
  plan.traffic.prefix_cache_hit = hit.value_or(0);
  AICOST_TRY_STATUS(read_share(s, "response_cache_hit", hit));
  plan.traffic.response_cache_hit = hit.value_or(0);
  AICOST_TRY_STATUS(s.read("response_cache_cost", UnitKind::kMoneyRate, plan.response_cache_cost));
  AICOST_TRY_STATUS(read_lever_figures(s, plan.levers));
  for (const char* k : {"input_tokens", "output_tokens", "requests_per_s"}) {
    if (!s.has(k)) return src.error(s.self().Mark(), std::string("serving.") + k + " is required");
  }
  MapReader sla(s.node("sla"), "serving.sla", src);
  if (!sla.self().IsNull() && !sla.self().IsMap()) return sla.not_a_map();
  double v = 0;
  TRY_ASSIGN(v, sla.quantity("ttft", UnitKind::kDuration));
  plan.sla.ttft = core::Seconds(v);
  v = 0;
  TRY_ASSIGN(v, sla.quantity("tpot", UnitKind::kDuration));
  plan.sla.tpot = core::Seconds(v);
  v = 0;
  TRY_ASSIGN(v, sla.quantity("e2e", UnitKind::kDuration));
  plan.sla.e2e = core::Seconds(v);
  TRY_ASSIGN(plan.sla.percentile, sla.quantity("percentile", UnitKind::kPercent));
  if (plan.sla.percentile <= 0 || plan.sla.percentile >= 1) {
    return src.error(sla.node("percentile").Mark(), "percentile must be between 0 % and 100 %");
  }
  AICOST_TRY_STATUS(sla.finish());
  if (input_p90 > 0) {
    plan.traffic.input_tail_tokens =
        serving::lognormal_quantile(plan.traffic.input_tokens, input_p90, plan.sla.percentile);
    plan.traffic.input_cv2 = serving::lognormal_cv2(plan.traffic.input_tokens, input_p90);
  }
  if (output_p90 > 0) {
    plan.traffic.output_tail_tokens =
        serving::lognormal_quantile(plan.traffic.output_tokens, output_p90, plan.sla.percentile);
    plan.traffic.output_cv2 = serving::lognormal_cv2(plan.traffic.output_tokens, output_p90);
  }
  AICOST_TRY_STATUS(read_traffic_profile(s, base_dir, plan));
  AICOST_TRY_STATUS(s.finish());
  plan.peak_rate =
      plan.series.rps.empty()
          ? plan.traffic.request_rate
          : core::PerSecond(*std::max_element(plan.series.rps.begin(), plan.series.rps.end()));

  MapReader pricing(top.node("pricing"), "pricing", src);
  if (!pricing.self().IsNull() && !pricing.self().IsMap()) return pricing.not_a_map();
  core::UsdPerSecond gpu_hour(0);
  AICOST_TRY_STATUS(pricing.read("gpu_hour", UnitKind::kMoneyRate, gpu_hour, true));
  std::optional<std::string> mode_name;
  TRY_ASSIGN(mode_name, pricing.string("mode"));
  auto mode = catalog::pricing_mode_from_string(mode_name.value_or("on-demand"));
  if (!mode)
    return src.error(pricing.node("mode").Mark(),
                     "pricing.mode must be on-demand, spot, reserved-1y or reserved-3y");
  // A share of the fleet on spot: reclaimed replicas are simulated over the traffic profile.
  double spot_share = 0;
  TRY_ASSIGN(spot_share, pricing.quantity("spot_share", UnitKind::kPercent));
  if (pricing.has("spot_share")) {
    if (spot_share < 0 || spot_share > 1) {
      return src.error(pricing.node("spot_share").Mark(),
                       "pricing.spot_share must be 0 % to 100 %");
    }
    if (plan.series.rps.empty()) {
      return src.error(pricing.node("spot_share").Mark(),
                       "pricing.spot_share needs a serving.traffic_profile: spot reclaims are "
                       "simulated over it");
    }
    if (*mode == catalog::PricingMode::kSpot && spot_share > 0) {
      return src.error(pricing.node("spot_share").Mark(),
                       "pricing.spot_share mixes spot into an on-demand or reserved fleet; with "
                       "pricing.mode: spot the whole fleet is spot already");
    }
  }
  plan.policy.spot_share = spot_share;
  plan.policy.name = serving::to_string(plan.policy.kind);
  if (spot_share > 0) {
    plan.policy.name += core::sprintf(" + %.0f%% spot", spot_share * 100);
  }
  if (gpu_hour.value() > 0) plan.gpu_hour = gpu_hour;
  plan.mode = *mode;
  AICOST_TRY_STATUS(pricing.finish());
  top.accept("model");
  top.accept("serving");
  top.accept("pricing");
  AICOST_TRY_STATUS(top.finish());

  plan.gpus = gpus;
  plan.tensor_parallel_sizes = *tps;
  plan.speculation = speculation;
  for (const auto& pname : precisions) {
    auto p = catalog::precision_from_string(pname);
    if (!p)
      return src.error(s.node("precision").Mark(),
                       "unknown precision '" + pname + "'; use bf16, fp16, fp8, int8 or fp4");
    plan.precisions.push_back(*p);
  }
  if (kv) {
    auto k = catalog::precision_from_string(*kv);
    if (!k)
      return src.error(s.node("kv_cache_precision").Mark(), "unknown precision '" + *kv + "'");
    plan.kv_cache_precision = *k;
  }
  for (const auto& id : gpus) {
    auto g = cat.gpu(id);
    if (!g) return src.error(s.node("gpu").Mark(), g.error().message, g.error().code);
    auto eff = cat.efficiency((*g)->generation);
    if (!eff)
      return core::make_error(core::ErrorCode::kNotFound,
                              "no efficiency profile for " + (*g)->generation, origin);
    // Price of one GPU: the plan's, else the cheapest catalogued instance under the mode.
    costing::ComputePricing price;
    if (gpu_hour.value() > 0) {
      price = gpu_hour_pricing(gpu_hour);
    } else {
      const catalog::Instance* best = nullptr;
      for (const auto& i : cat.instances()) {
        if (catalog::normalize_name(i.gpu) != catalog::normalize_name((*g)->id) || !i.price(*mode))
          continue;
        if (!best || *i.price(*mode) / i.gpus < *best->price(*mode) / best->gpus) best = &i;
      }
      if (!best) {
        plan.notes.push_back((*g)->id + " skipped: no catalogued " + catalog::to_string(*mode) +
                             " price (give pricing.gpu_hour)");
        continue;
      }
      price = instance_pricing(*best, *mode);
    }
    for (const catalog::Precision p : plan.precisions) {
      for (int tp : *tps) {
        // Tensor parallelism runs inside one NVLink domain (a single-superchip GH200 has none).
        if (model->heads() % tp != 0 || tp > (*g)->scale_up_domain) continue;
        serving::DeploymentOption o;
        o.replica.model = *model;
        o.replica.gpu = **g;
        o.replica.efficiency = **eff;
        o.replica.tensor_parallel = tp;
        o.replica.weights = p;
        o.replica.kv_cache = plan.kv_cache_precision.value_or(p);
        o.replica.speculation = speculation;
        o.price_per_gpu = price.per_gpu;
        o.price_basis = price.basis;
        o.instance = price.instance;
        plan.options.push_back(std::move(o));
      }
    }
  }
  bool any_fits = false;
  for (const auto& o : plan.options)
    any_fits = any_fits || static_cast<bool>(serving::check(o.replica));
  if (!any_fits) {
    return core::make_error(core::ErrorCode::kInfeasible,
                            "the model (" + core::sprintf("%.0f", model->params_total() / 1e9) +
                                "B parameters) fits on none of the listed GPUs at the listed "
                                "tensor-parallel sizes and precisions; allow a larger "
                                "tensor_parallel_size, fp8/int4 weights, or a GPU with more memory",
                            origin);
  }
  return plan;
}

}  // namespace aicost::config
