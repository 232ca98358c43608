// The `efficiency:` section of a catalog file (data/efficiency.yaml): one profile per GPU
// generation, every key given or taken from a `base:` profile read before (docs/CATALOG.md).
#include "efficiency_catalog.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "owned_catalog.h"  // read_provenance

namespace aicost::config {

using core::UnitKind;

namespace {

// Every key of an efficiency profile; a profile without `base:` must give them all.
// fp4_gemm_relative is the exception: only generations with an FP4 peak (Blackwell) have one.
const std::vector<std::string>& efficiency_keys() {
  static const std::vector<std::string> keys = {"gemm_max",
                                                "gemm_half_dim",
                                                "fp8_gemm_relative",
                                                "fp8_gemm_half_k",
                                                "fp8_cast_bytes",
                                                "attention_flash",
                                                "attention_unfused",
                                                "attention_flash_backward",
                                                "attention_unfused_backward",
                                                "memory_bound",
                                                "elementwise_bytes_per_hidden",
                                                "scale_up_bus",
                                                "scale_out_bus",
                                                "all_to_all_bus",
                                                "flex_dispatch_bus",
                                                "collective_latency",
                                                "layer_overhead",
                                                "moe_sync_expert_overhead",
                                                "step_overhead",
                                                "tp_overlap",
                                                "ep_overlap",
                                                "dp_overlap",
                                                "optimizer_bytes_per_param",
                                                "memory_overhead",
                                                "memory_overhead_share",
                                                "serving_prefill_mfu",
                                                "serving_fp8_prefill_relative",
                                                "serving_prefill_half_tokens",
                                                "serving_expert_overhead",
                                                "serving_decode_bandwidth",
                                                "serving_kv_bandwidth",
                                                "serving_layer_overhead",
                                                "serving_sequence_overhead",
                                                "serving_allreduce_latency",
                                                "serving_workspace"};
  return keys;
}

}  // namespace

core::Status read_efficiency(MapReader& r, catalog::Catalog& cat) {
  catalog::EfficiencyProfile e;
  // `base: <generation>`: start from a profile read before (ours, or an earlier entry) and
  // override what this entry gives.
  std::optional<std::string> base;
  TRY_ASSIGN(base, r.string("base"));
  if (base) {
    auto from = cat.efficiency(*base);
    if (!from) return r.source().error(r.node("base").Mark(), from.error().message);
    e = **from;
    e.provenance = {};
  }
  TRY_ASSIGN(e.generation, r.string("generation"));
  if (!base) {
    std::string missing;
    for (const auto& k : efficiency_keys()) {
      if (!r.has(k)) missing += (missing.empty() ? "" : ", ") + k;
    }
    if (!missing.empty()) {
      std::string profiles;
      for (const auto& p : cat.efficiencies())
        profiles += (profiles.empty() ? "" : ", ") + p.generation;
      return r.source().error(
          r.self().Mark(),
          "efficiency profile '" + e.generation + "' lacks " + missing +
              ": give every key, or 'base: <generation>' to take the others from a profile" +
              (profiles.empty() ? std::string() : " (" + profiles + ")"));
    }
  }
  const std::pair<const char*, double*> ratios[] = {
      {"gemm_max", &e.gemm_max},
      {"fp8_gemm_relative", &e.fp8_gemm_relative},
      {"fp4_gemm_relative", &e.fp4_gemm_relative},
      {"attention_flash", &e.attention_flash},
      {"attention_unfused", &e.attention_unfused},
      {"memory_bound", &e.memory_bound},
      {"scale_up_bus", &e.scale_up_bus},
      {"scale_out_bus", &e.scale_out_bus},
      {"all_to_all_bus", &e.all_to_all_bus},
      {"flex_dispatch_bus", &e.flex_dispatch_bus},
      {"tp_overlap", &e.tp_overlap},
      {"ep_overlap", &e.ep_overlap},
      {"dp_overlap", &e.dp_overlap},
      {"memory_overhead_share", &e.memory_overhead_share},
      {"serving_prefill_mfu", &e.serving_prefill_mfu},
      {"serving_fp8_prefill_relative", &e.serving_fp8_prefill_relative},
      {"serving_decode_bandwidth", &e.serving_decode_bandwidth},
      {"serving_kv_bandwidth", &e.serving_kv_bandwidth}};
  for (const auto& [key, field] : ratios) TRY_ASSIGN(*field, r.quantity(key, UnitKind::kPercent));
  TRY_ASSIGN(e.gemm_half_dim, r.quantity("gemm_half_dim", UnitKind::kCount));
  TRY_ASSIGN(e.fp8_gemm_half_k, r.quantity("fp8_gemm_half_k", UnitKind::kCount));
  TRY_ASSIGN(e.attention_flash_backward, r.quantity("attention_flash_backward", UnitKind::kCount));
  TRY_ASSIGN(e.attention_unfused_backward,
             r.quantity("attention_unfused_backward", UnitKind::kCount));
  TRY_ASSIGN(e.elementwise_bytes_per_hidden,
             r.quantity("elementwise_bytes_per_hidden", UnitKind::kBytes));
  TRY_ASSIGN(e.optimizer_bytes_per_param,
             r.quantity("optimizer_bytes_per_param", UnitKind::kBytes));
  TRY_ASSIGN(e.fp8_cast_bytes, r.quantity("fp8_cast_bytes", UnitKind::kBytes));
  AICOST_TRY_STATUS(r.read("memory_overhead", UnitKind::kBytes, e.memory_overhead));
  AICOST_TRY_STATUS(r.read("serving_workspace", UnitKind::kBytes, e.serving_workspace));
  AICOST_TRY_STATUS(r.read("collective_latency", UnitKind::kDuration, e.collective_latency));
  AICOST_TRY_STATUS(r.read("layer_overhead", UnitKind::kDuration, e.layer_overhead));
  AICOST_TRY_STATUS(
      r.read("moe_sync_expert_overhead", UnitKind::kDuration, e.moe_sync_expert_overhead));
  AICOST_TRY_STATUS(r.read("step_overhead", UnitKind::kDuration, e.step_overhead));
  AICOST_TRY_STATUS(
      r.read("serving_layer_overhead", UnitKind::kDuration, e.serving_layer_overhead));
  AICOST_TRY_STATUS(
      r.read("serving_sequence_overhead", UnitKind::kDuration, e.serving_sequence_overhead));
  AICOST_TRY_STATUS(
      r.read("serving_expert_overhead", UnitKind::kDuration, e.serving_expert_overhead));
  AICOST_TRY_STATUS(
      r.read("serving_allreduce_latency", UnitKind::kDuration, e.serving_allreduce_latency));
  TRY_ASSIGN(e.serving_prefill_half_tokens,
             r.quantity("serving_prefill_half_tokens", UnitKind::kCount));
  AICOST_TRY_STATUS(read_provenance(r, e.provenance));
  cat.add(std::move(e));
  return {};
}

}  // namespace aicost::config
