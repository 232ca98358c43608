// A serving plan in typed form (docs/SERVING.md): what it lists (GPUs, tensor-parallel sizes,
// precisions, batch limits: the space its capacity search weighs), how it is priced, its
// traffic and SLA, how it runs its fleet, and figures its `serving.levers:` section gives for
// changes it has not made yet. Built by config::load_serving_plan; no parser here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aicost/catalog/instance.h"
#include "aicost/catalog/precision.h"
#include "aicost/core/quantity.h"
#include "aicost/serving/capacity.h"
#include "aicost/serving/traffic.h"

namespace aicost::serving {

// `serving.levers:` figures measured on the service's own traffic (or a pilot): what a prefix
// cache, a response cache or a draft model would give. The models never assume them; they are
// what `aicost optimize` prices the prefix-caching, cdn and speculative-decoding levers with.
struct LeverFigures {
  std::optional<double> prefix_cache_hit;                 // share of prompt tokens
  std::optional<double> response_cache_hit;               // share of requests
  std::optional<core::UsdPerSecond> response_cache_cost;  // the cache's own cost
  std::optional<Speculation> speculation;
};

struct PlanSpec {
  // As listed in the plan (serving.gpu, tensor_parallel_size, precision, max_batch).
  std::vector<std::string> gpus;
  std::vector<int> tensor_parallel_sizes;
  std::vector<catalog::Precision> precisions;
  std::optional<catalog::Precision> kv_cache_precision;  // nullopt: the weights' precision
  std::vector<int> batches;
  // pricing.gpu_hour for every GPU, else each GPU's cheapest catalogued instance under `mode`.
  std::optional<core::UsdPerSecond> gpu_hour;
  catalog::PricingMode mode = catalog::PricingMode::kOnDemand;
  // GPU x TP x precision, with prices (GPUs without a price under `mode` are left out).
  std::vector<DeploymentOption> options;
  Traffic traffic;
  Sla sla;
  Speculation speculation;  // draft_tokens 0: off
  // How the plan runs its replicas over its traffic profile: serving.autoscaling.policy (default
  // static-peak) with its settings, and pricing.spot_share of them on spot.
  Policy policy;
  bool spot_price_given = false;  // serving.autoscaling.spot_price is in the plan
  core::PerSecond peak_rate{0};   // the traffic profile's busiest minute, else the plan's rate
  core::UsdPerSecond response_cache_cost{0};  // serving.response_cache_cost
  LeverFigures levers;
};

}  // namespace aicost::serving
