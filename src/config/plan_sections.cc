#include "plan_sections.h"

#include <algorithm>

#include "aicost/core/text.h"

namespace aicost::config {

using core::UnitKind;

namespace {

core::Error at(MapReader& r, const std::string& key, const std::string& message,
               core::ErrorCode code = core::ErrorCode::kInvalidInput) {
  return r.source().error(r.node(key).Mark(), message, code);
}

template <class Enum, size_t N>
core::Status choice(MapReader& r, const std::string& key,
                    const std::array<std::pair<const char*, Enum>, N>& options, Enum& out) {
  std::optional<std::string> v;
  TRY_ASSIGN(v, r.string(key));
  if (!v) return {};
  std::string list;
  for (const auto& [name, value] : options) {
    if (catalog::normalize_name(*v) == name) {
      out = value;
      return {};
    }
    list += (list.empty() ? "" : ", ") + std::string(name);
  }
  return at(r, key, key + " must be one of " + list + ", got '" + *v + "'");
}

// Each value beside its name (workload's to_string), for choice().
template <class Enum, size_t N>
std::array<std::pair<const char*, Enum>, N> named(const std::array<Enum, N>& all) {
  std::array<std::pair<const char*, Enum>, N> out;
  for (size_t i = 0; i < N; ++i) out[i] = {workload::to_string(all[i]), all[i]};
  return out;
}

}  // namespace

const std::vector<KeyAlias>& key_aliases() {
  // Megatron-Core names are canonical; other tools' spellings of parallelism keys are accepted
  // with a warning (docs/PLAN_FORMAT.md "Aliases").
  static const std::vector<KeyAlias> table = {
      {"training", "global_batch", "global_batch_size", false},
      {"training", "seq_len", "seq_length", false},
      {"cluster", "nvlink_domain", "scale_up_domain", false},
      {"parallelism", "tp", "tensor_model_parallel_size", true},
      {"parallelism", "pp", "pipeline_model_parallel_size", true},
      {"parallelism", "vpp", "virtual_pipeline_model_parallel_size", true},
      {"parallelism", "cp", "context_parallel_size", true},
      {"parallelism", "ep", "expert_model_parallel_size", true},
      {"parallelism", "etp", "expert_tensor_parallel_size", true},
      {"parallelism", "tensor_parallel_size", "tensor_model_parallel_size", true},
      {"parallelism", "pipeline_parallel_size", "pipeline_model_parallel_size", true},
      {"parallelism", "tensor_parallel_degree", "tensor_model_parallel_size", true},
      {"parallelism", "pipeline_parallel_degree", "pipeline_model_parallel_size", true},
      {"parallelism", "context_parallel_degree", "context_parallel_size", true},
      {"parallelism", "expert_parallel_degree", "expert_model_parallel_size", true},
      {"parallelism", "train_micro_batch_size_per_gpu", "micro_batch_size", true},
      {"parallelism", "activations_checkpoint_granularity", "recompute_granularity", true},
      {"parallelism", "overlap_moe_expert_parallel_comm", "ep_comm_overlap", true},
      {"parallelism", "moe_token_dispatcher_type", "moe_dispatcher", false},
  };
  return table;
}

core::Status read_training(MapReader& r, workload::TrainingJob& job) {
  if (!r.self().IsMap()) return r.not_a_map();
  for (const auto& a : key_aliases()) {
    if (std::string_view(a.section) == "training") r.alias(a.alias, a.key);
  }
  TRY_ASSIGN(job.tokens, r.quantity("tokens", UnitKind::kCount));
  TRY_ASSIGN(job.seq_length, r.integer("seq_length"));
  TRY_ASSIGN(job.global_batch, r.integer("global_batch_size"));
  r.accept("trainable_share");  // read with the storage inputs (plan.cc)
  if (job.seq_length == 0) job.seq_length = job.model.spec().seq_length;
  for (const char* key : {"tokens", "seq_length", "global_batch_size"}) {
    if (!r.has(key) && !(std::string(key) == "seq_length" && job.seq_length > 0)) {
      return r.source().error(r.self().Mark(), std::string("training.") + key + " is required");
    }
  }
  std::optional<std::string> precision;
  TRY_ASSIGN(precision, r.string("precision"));
  if (precision) {
    auto p = catalog::precision_from_string(*precision);
    if (!p || (*p != catalog::Precision::kBf16 && *p != catalog::Precision::kFp16 &&
               *p != catalog::Precision::kFp8)) {
      return at(r, "precision", "precision must be bf16, fp16 or fp8, got '" + *precision + "'");
    }
    job.precision = *p;
  }
  return r.finish();
}

core::Status read_cluster(MapReader& r, const catalog::Catalog& cat, workload::TrainingJob& job) {
  if (!r.self().IsMap()) return r.not_a_map();
  std::optional<std::string> gpu;
  TRY_ASSIGN(gpu, r.string("gpu"));
  if (!gpu) return r.source().error(r.self().Mark(), "cluster.gpu is required, e.g. h100-sxm-80gb");
  auto spec = cat.gpu(*gpu);
  if (!spec) return at(r, "gpu", spec.error().message, spec.error().code);
  auto& c = job.cluster;
  c = workload::Cluster::of(**spec, 0);
  TRY_ASSIGN(c.gpus, r.integer("gpus"));
  if (!r.has("gpus")) return r.source().error(r.self().Mark(), "cluster.gpus is required");
  TRY_ASSIGN(c.gpus_per_node, r.integer("gpus_per_node"));
  for (const auto& a : key_aliases()) {
    if (std::string_view(a.section) == "cluster") r.alias(a.alias, a.key);
  }
  TRY_ASSIGN(c.scale_up_domain, r.integer("scale_up_domain"));
  AICOST_TRY_STATUS(
      r.read("intra_node_bandwidth", UnitKind::kBandwidth, c.intra_node_bandwidth, true));
  AICOST_TRY_STATUS(
      r.read("inter_node_bandwidth", UnitKind::kBandwidth, c.inter_node_bandwidth, true));
  if (c.gpus_per_node < 1) return at(r, "gpus_per_node", "gpus_per_node must be >= 1");
  if (c.scale_up_domain < 1) return at(r, "scale_up_domain", "scale_up_domain must be >= 1");
  return r.finish();
}

core::Status read_parallelism(MapReader& r, workload::TrainingJob& job,
                              std::vector<std::string>& warnings,
                              const catalog::SoftwareEra* software) {
  if (software) workload::apply_software(*software, job.parallel);
  if (r.self().IsNull()) return {};
  if (!r.self().IsMap()) return r.not_a_map();
  for (const auto& a : key_aliases()) {
    if (std::string_view(a.section) != "parallelism") continue;
    r.alias(a.alias, a.key);
    if (a.warn && r.self()[a.alias]) {
      warnings.push_back(std::string("parallelism.") + a.alias + " read as " + a.key);
    }
  }
  auto& p = job.parallel;
  TRY_ASSIGN(p.tensor, r.integer("tensor_model_parallel_size"));
  TRY_ASSIGN(p.pipeline, r.integer("pipeline_model_parallel_size"));
  TRY_ASSIGN(p.virtual_pipeline, r.integer("virtual_pipeline_model_parallel_size"));
  TRY_ASSIGN(p.context, r.integer("context_parallel_size"));
  TRY_ASSIGN(p.expert, r.integer("expert_model_parallel_size"));
  TRY_ASSIGN(p.expert_tensor, r.integer("expert_tensor_parallel_size"));
  TRY_ASSIGN(p.micro_batch, r.integer("micro_batch_size"));
  TRY_ASSIGN(p.sequence_parallel, r.boolean("sequence_parallel"));
  TRY_ASSIGN(p.overlap_grad_reduce, r.boolean("overlap_grad_reduce"));
  TRY_ASSIGN(p.overlap_param_gather, r.boolean("overlap_param_gather"));
  TRY_ASSIGN(p.tp_comm_overlap, r.boolean("tp_comm_overlap"));
  TRY_ASSIGN(p.ep_comm_overlap, r.boolean("ep_comm_overlap"));
  using workload::MoeDispatcher;
  AICOST_TRY_STATUS(choice(r, "moe_dispatcher",
                           std::array{std::pair{"alltoall", MoeDispatcher::kAllToAll},
                                      std::pair{"flex", MoeDispatcher::kFlex}},
                           p.moe_dispatcher));
  TRY_ASSIGN(p.grad_reduce_in_fp32, r.boolean("grad_reduce_in_fp32"));
  AICOST_TRY_STATUS(choice(r, "optimizer_states",
                           std::array{std::pair{"fp32", false}, std::pair{"bf16", true}},
                           p.bf16_optimizer_states));
  TRY_ASSIGN(p.fp8_param_gather, r.boolean("fp8_param_gather"));
  if (p.fp8_param_gather && job.precision != catalog::Precision::kFp8) {
    return at(r, "fp8_param_gather",
              "fp8_param_gather keeps the weights in FP8, so it needs training.precision: fp8; "
              "set the precision to fp8 or remove fp8_param_gather");
  }
  using workload::Recompute;
  if (r.has("recompute_granularity") && r.node("recompute_granularity").IsNull()) {
    p.recompute = Recompute::kNone;  // NeMo writes `null` for none
  } else {
    AICOST_TRY_STATUS(
        choice(r, "recompute_granularity", named(workload::kRecomputes), p.recompute));
  }
  using workload::OptimizerSharding;
  std::optional<bool> distributed;
  TRY_ASSIGN(distributed, r.boolean("use_distributed_optimizer"));
  if (distributed) p.sharding = *distributed ? OptimizerSharding::kZero1 : OptimizerSharding::kNone;
  AICOST_TRY_STATUS(choice(r, "optimizer_sharding", named(workload::kShardings), p.sharding));
  AICOST_TRY_STATUS(choice(r, "data_parallel_sharding_strategy",
                           std::array{std::pair{"no-shard", OptimizerSharding::kNone},
                                      std::pair{"optim", OptimizerSharding::kZero1},
                                      std::pair{"optim-grads", OptimizerSharding::kZero2},
                                      std::pair{"optim-grads-params", OptimizerSharding::kZero3}},
                           p.sharding));
  using workload::AttentionKernel;
  AICOST_TRY_STATUS(choice(r, "attention_backend",
                           std::array{std::pair{"flash", AttentionKernel::kFlash},
                                      std::pair{"fused", AttentionKernel::kFlash},
                                      std::pair{"auto", AttentionKernel::kFlash},
                                      std::pair{"unfused", AttentionKernel::kUnfused},
                                      std::pair{"local", AttentionKernel::kUnfused}},
                           p.attention));
  // The era's sequence parallelism needs the plan's TP, read above.
  if (software && !r.has("sequence_parallel")) {
    p.sequence_parallel = software->sequence_parallel && p.tensor > 1;
  }
  std::optional<int> dp;
  TRY_ASSIGN(dp, r.integer("data_parallel_size"));
  AICOST_TRY_STATUS(r.finish());
  const int model_parallel = std::max(1, p.tensor * p.pipeline * p.context);
  if (dp && job.cluster.gpus % model_parallel == 0 && *dp != job.cluster.gpus / model_parallel) {
    return at(r, "data_parallel_size",
              "data_parallel_size is derived (gpus / (TP x PP x CP) = " +
                  std::to_string(job.cluster.gpus / model_parallel) + "), but the plan says " +
                  std::to_string(*dp) + "; remove it or fix cluster.gpus");
  }
  return {};
}

core::Status read_pricing(MapReader& r, const catalog::Catalog& cat,
                          const workload::TrainingJob& job, costing::ComputePricing& out,
                          std::optional<OwnedRequest>& owned, std::vector<std::string>& warnings) {
  if (!r.self().IsNull() && !r.self().IsMap()) return r.not_a_map();
  double gpu_hour = 0;
  TRY_ASSIGN(gpu_hour, r.quantity("gpu_hour", UnitKind::kMoneyRate));
  std::optional<std::string> instance, mode;
  TRY_ASSIGN(instance, r.string("instance"));
  TRY_ASSIGN(mode, r.string("mode"));
  std::optional<double> reuse;
  TRY_ASSIGN(reuse, r.quantity("reservation_reuse", UnitKind::kPercent));
  if (reuse && *reuse > 1) {
    return at(r, "reservation_reuse",
              "pricing.reservation_reuse is a share of the term, at most 100%");
  }
  const bool is_owned = mode && catalog::normalize_name(*mode) == "owned";
  std::string ignored;
  if (is_owned) {
    AICOST_TRY_STATUS(read_owned(r, cat, job, owned.emplace(), warnings));
  } else {
    for (const auto& k : owned_keys()) {
      if (!r.has(k)) continue;
      r.accept(k);
      ignored += (ignored.empty() ? "pricing." : ", pricing.") + k;
    }
  }
  AICOST_TRY_STATUS(r.finish());
  if (!ignored.empty()) warnings.push_back(ignored + ": no effect unless pricing.mode is owned");
  if (is_owned) {
    if (gpu_hour > 0)
      return at(r, "gpu_hour", "give either pricing.gpu_hour or pricing.mode owned, not both");
    if (reuse)
      warnings.push_back("pricing.reservation_reuse has no effect with pricing.mode owned");
    if (instance) {
      auto i = cat.instance(*instance);
      if (!i) return at(r, "instance", i.error().message, i.error().code);
      if (catalog::normalize_name((*i)->gpu) != catalog::normalize_name(job.cluster.gpu.id)) {
        return at(r, "instance",
                  "instance " + (*i)->id + " has " + (*i)->gpu + " GPUs but cluster.gpu is " +
                      job.cluster.gpu.id);
      }
      owned->rented = *i;
      out.provider = catalog::normalize_name((*i)->provider);
      out.instance = (*i)->id;
    }
    return {};
  }
  if (mode) {
    auto m = catalog::pricing_mode_from_string(*mode);
    if (!m) {
      return at(r, "mode",
                "pricing.mode must be on-demand, spot, reserved-1y, reserved-3y or owned");
    }
    out.mode = *m;
  }
  if (gpu_hour > 0 && instance) {
    return at(r, "instance", "give either pricing.gpu_hour or pricing.instance, not both");
  }
  if (gpu_hour > 0) {
    if (mode) warnings.push_back("pricing.mode is ignored when pricing.gpu_hour is given");
    out = gpu_hour_pricing(core::UsdPerSecond(gpu_hour));
    if (reuse) warnings.push_back("pricing.reservation_reuse has no effect with pricing.gpu_hour");
    return {};
  }
  const catalog::Instance* chosen = nullptr;
  if (instance) {
    auto i = cat.instance(*instance);
    if (!i) return at(r, "instance", i.error().message, i.error().code);
    chosen = *i;
    if (catalog::normalize_name(chosen->gpu) != catalog::normalize_name(job.cluster.gpu.id)) {
      return at(r, "instance",
                "instance " + chosen->id + " has " + chosen->gpu + " GPUs but cluster.gpu is " +
                    job.cluster.gpu.id);
    }
    if (!chosen->price(out.mode)) {
      return at(r, "instance",
                "instance " + chosen->id + " has no published " + catalog::to_string(out.mode) +
                    " price in the catalog");
    }
  } else {
    // No price given: the cheapest catalogued instance with this GPU under the mode.
    for (const auto& i : cat.instances()) {
      if (catalog::normalize_name(i.gpu) != catalog::normalize_name(job.cluster.gpu.id)) continue;
      auto p = i.price(out.mode);
      if (p && (!chosen || *p / i.gpus < *chosen->price(out.mode) / chosen->gpus)) chosen = &i;
    }
    if (!chosen) {
      return r.source().error(r.self().Mark(), "no pricing given and no catalogued " +
                                                   std::string(catalog::to_string(out.mode)) +
                                                   " instance has " + job.cluster.gpu.id +
                                                   "; add pricing.gpu_hour, e.g. 2.50USD/h");
    }
    warnings.push_back("no pricing in the plan: using the cheapest catalogued " +
                       std::string(catalog::to_string(out.mode)) + " instance, " + chosen->id);
  }
  out = instance_pricing(*chosen, out.mode);
  if (reuse) {
    if (out.term.value() > 0) {
      out.term_reuse = *reuse;
    } else {
      warnings.push_back(
          "pricing.reservation_reuse has no effect: the plan is not on a reserved price");
    }
  }
  return {};
}

}  // namespace aicost::config
