// A serving plan: a model, the GPUs, tensor-parallel sizes, precisions and batch limits to
// consider, the traffic and the latency SLA (docs/SERVING.md). `aicost estimate` recognises it by
// its `serving:` section.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "aicost/catalog/catalog.h"
#include "aicost/core/result.h"
#include "aicost/serving/plan.h"
#include "aicost/serving/traffic.h"

namespace aicost::config {

// The typed plan (options, batches, traffic, SLA, fleet policy, lever figures: serving/plan.h)
// and what only the estimate's report needs.
struct ServingPlan : serving::PlanSpec {
  std::string name;
  // Traffic over time (serving.traffic_profile: synthetic, or a CSV of requests/s per minute)
  // and the policies compared over it (serving.autoscaling); empty when not given.
  serving::TrafficSeries series;
  std::vector<serving::Policy> policies;
  std::vector<std::string> notes;
  // Every value the file gives but `name`, as for Plan::values (`aicost diff`).
  std::vector<std::pair<std::string, std::string>> values;
};

// Whether the YAML file has a top-level `serving:` section (false if unreadable).
bool is_serving_plan(const std::string& path);
// The same for a plan's text (false if it is not YAML).
bool is_serving_text(const std::string& text);

// Errors as for load_plan (file:line:col, did-you-mean); kInfeasible when the model fits on no
// listed GPU at any listed tensor-parallel size.
core::Result<ServingPlan> load_serving_plan(const std::string& path, const catalog::Catalog& cat);
// The same for text; `origin` names it in messages, `base_dir` resolves model.hf_config and a
// traffic_profile.csv.
core::Result<ServingPlan> parse_serving_plan(const std::string& text, const std::string& origin,
                                             const std::string& base_dir,
                                             const catalog::Catalog& cat);

}  // namespace aicost::config
