#include "aicost/config/plan.h"

#include <algorithm>
#include <filesystem>

#include "aicost/config/catalog_loader.h"
#include "aicost/core/text.h"
#include "hf_config.h"
#include "plan_sections.h"
#include "yaml_source.h"

namespace aicost::config {

core::Status read_model_fields(MapReader& r, catalog::ModelSpec& m);

using core::UnitKind;

core::Result<workload::Model> read_model(MapReader& r, const catalog::Catalog& cat,
                                         const std::string& base_dir,
                                         std::vector<std::string>& warnings) {
  catalog::ModelSpec spec;
  std::optional<std::string> preset, hf;
  TRY_ASSIGN(preset, r.string("preset"));
  TRY_ASSIGN(hf, r.string("hf_config"));
  if (preset && hf) {
    return r.source().error(r.node("hf_config").Mark(),
                            "give either model.preset or model.hf_config, not both");
  }
  if (preset) {
    auto m = cat.model(*preset);
    if (!m) return r.source().error(r.node("preset").Mark(), m.error().message, m.error().code);
    spec = **m;
  } else if (hf) {
    std::filesystem::path p(*hf);
    if (p.is_relative()) p = std::filesystem::path(base_dir) / p;
    auto m = load_hf_config(p.string(), &warnings);
    if (!m) {
      // The JSON file's own position leads; the plan line that named it follows.
      core::Error e = m.error();
      e.message += " (the file model.hf_config names at " +
                   r.source().where(r.node("hf_config").Mark()) + ")";
      return e;
    }
    spec = *m;
  } else {
    spec.id = "inline";
    spec.name = "inline architecture";
  }
  std::optional<std::string> name;
  TRY_ASSIGN(name, r.string("name"));
  if (name) spec.name = *name;
  AICOST_TRY_STATUS(read_model_fields(r, spec));
  AICOST_TRY_STATUS(r.finish());
  auto model = workload::Model::create(spec);
  if (!model) {
    return r.source().error(r.self().Mark(),
                            model.error().message + " (" + model.error().context + ")");
  }
  return model;
}

// training.trainable_share: the share of parameters the run updates (frozen-base and adapter
// training); it sets what an incremental checkpoint writes. The step and memory models still
// train every parameter, and a warning says so.
core::Status read_trainable_share(MapReader r, costing::StorageInputs& s,
                                  std::vector<std::string>& warnings) {
  double share = 1;
  TRY_ASSIGN(share, r.quantity("trainable_share", UnitKind::kPercent));
  if (share <= 0 || share > 1) {
    return r.source().error(r.node("trainable_share").Mark(),
                            "training.trainable_share is a share of the parameters in (0%, 100%]");
  }
  if (share < 1) {
    warnings.push_back(
        core::sprintf("training.trainable_share %.4g %%: only incremental checkpoints "
                      "use it; the step and memory models train every parameter",
                      share * 100));
  }
  s.trainable_share = share;
  return {};
}

core::Result<Plan> parse_plan(const std::string& text, const std::string& origin,
                              const std::string& base_dir, const catalog::Catalog& cat) {
  const Source src = Source::from_text(origin, text);
  auto root = parse_yaml(src, text);
  if (!root) return root.error();
  return parse_plan_root(*root, src, base_dir, cat);
}

core::Result<Plan> parse_plan_root(const YAML::Node& root_node, const Source& src,
                                   const std::string& base_dir, const catalog::Catalog& cat) {
  const std::string& origin = src.name;
  const YAML::Node* root = &root_node;
  MapReader top(*root, "", src);
  if (!root->IsMap()) return top.not_a_map();
  top.accept("search");  // read by `aicost search`; an estimate ignores it

  Plan plan;
  plan.path = origin;
  plan.values = flatten(*root, {"name", "search"});
  TRY_ASSIGN(plan.name, top.string("name"));
  if (plan.name.empty()) plan.name = std::filesystem::path(origin).stem().string();

  auto section = [&](const char* key) { return MapReader(top.node(key), key, src); };
  const char* required[] = {"model", "training", "cluster"};
  for (const char* key : required) {
    if (!top.has(key)) {
      return src.error(root->Mark(), std::string("the plan has no '") + key +
                                         "' section; see docs/PLAN_FORMAT.md");
    }
  }
  MapReader model_r = section("model");
  if (!model_r.self().IsMap()) return model_r.not_a_map();
  auto model = read_model(model_r, cat, base_dir, plan.warnings);
  if (!model) return model.error();

  workload::TrainingJob& job = plan.job;
  job.model = *model;  // Model has no default constructor: assign after creation
  MapReader training = section("training");
  AICOST_TRY_STATUS(read_training(training, job));
  MapReader cluster = section("cluster");
  AICOST_TRY_STATUS(read_cluster(cluster, cat, job));
  // `software: megatron-2021`: the era's kernels and overlaps (data/software.yaml), under the
  // plan's own parallelism keys.
  std::optional<std::string> software;
  TRY_ASSIGN(software, top.string("software"));
  const catalog::SoftwareEra* era = nullptr;
  if (software) {
    auto e = cat.software(*software);
    if (!e) return src.error(top.node("software").Mark(), e.error().message);
    era = *e;
    plan.software = era->id;
  }
  MapReader parallel = section("parallelism");
  AICOST_TRY_STATUS(read_parallelism(parallel, job, plan.warnings, era));

  auto eff = cat.efficiency(job.cluster.gpu.generation);
  if (!eff) {
    return core::make_error(core::ErrorCode::kNotFound,
                            "no efficiency profile for GPU generation '" +
                                job.cluster.gpu.generation + "'; add one to a catalog file",
                            origin);
  }
  job.efficiency = **eff;
  job.memory_margin = cat.memory_margin().margin;

  MapReader pricing = section("pricing");
  std::optional<OwnedRequest> owned;
  AICOST_TRY_STATUS(read_pricing(pricing, cat, job, plan.cost.compute, owned, plan.warnings));
  // Storage and network are priced at the compute's provider (AWS when only gpu_hour is given).
  const std::string provider =
      plan.cost.compute.provider.empty() ? "aws" : plan.cost.compute.provider;
  MapReader storage = section("storage");
  AICOST_TRY_STATUS(read_storage(storage, cat, provider, job, plan.cost.storage, plan.warnings));
  AICOST_TRY_STATUS(read_trainable_share(section("training"), plan.cost.storage, plan.warnings));
  MapReader network = section("network");
  AICOST_TRY_STATUS(read_network(network, cat, provider, plan.cost.network));
  MapReader ops = section("operations");
  AICOST_TRY_STATUS(read_operations(ops, plan.cost.operations));
  AICOST_TRY_STATUS(read_services(top, plan.cost.services));
  MapReader rel = section("reliability");
  AICOST_TRY_STATUS(
      read_reliability(rel, job, plan.cost.compute, plan.cost.reliability, plan.warnings));
  if (owned) {
    // The cluster bought holds the job's GPUs and its spare nodes.
    const int spares = std::max(0, plan.cost.reliability.spare_nodes) * job.cluster.gpus_per_node;
    plan.cost.compute = price_owned(std::move(*owned), job.cluster.gpus + spares, cat);
  }
  double contingency = plan.cost.contingency;
  TRY_ASSIGN(contingency, top.quantity("contingency", UnitKind::kPercent));
  plan.cost.contingency = contingency;
  AICOST_TRY_STATUS(top.finish());

  auto valid = workload::validate(job, &plan.warnings);
  if (!valid) {
    // Point at the key the error names when it is in the file.
    const std::string& ctx = valid.error().context;
    const auto dot = ctx.find('.');
    YAML::Node at = *root;
    if (dot != std::string::npos) {
      YAML::Node sec = (*root)[ctx.substr(0, dot)];
      if (sec && sec.IsMap() && sec[ctx.substr(dot + 1)]) at = sec[ctx.substr(dot + 1)];
    }
    return src.error(at.Mark(), valid.error().message);
  }
  return plan;
}

core::Result<Plan> load_plan(const std::string& path, const catalog::Catalog& cat) {
  auto text = read_file(path);
  if (!text) return text.error();
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return parse_plan(*text, path, dir.empty() ? "." : dir, cat);
}

core::Result<catalog::ModelSpec> load_hf_config(const std::string& path,
                                                std::vector<std::string>* warnings) {
  auto text = read_file(path);
  if (!text) return text.error();
  return parse_hf_config(*text, path, warnings);
}

}  // namespace aicost::config
