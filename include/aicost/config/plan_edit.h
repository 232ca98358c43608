// A plan file under `aicost optimize`: applies plan-key edits (optimize/change.h) to the YAML as
// written and estimates the result with the normal plan reader and models, so a lever's saving
// is the difference of two real estimates and `--emit-plan` writes exactly the text that was
// estimated. A training plan is estimated as `aicost estimate` does (step, memory, reliability,
// cost); a serving plan (a top-level `serving:`) by the capacity search and its fleet
// (serving/fleet.h). Thread-safe for concurrent const calls.
#pragma once

#include <memory>
#include <string>

#include "aicost/catalog/catalog.h"
#include "aicost/core/result.h"
#include "aicost/optimize/lever.h"

namespace aicost::config {

class PlanEditor {
 public:
  // Reads the plan at `path` and checks that it is a valid training or serving plan (errors as
  // load_plan / load_serving_plan: file:line:col with a caret). The catalog must outlive the
  // editor.
  static core::Result<PlanEditor> open(const std::string& path, const catalog::Catalog& catalog);
  // The same for text; `origin` names it in messages, `base_dir` resolves model.hf_config.
  static core::Result<PlanEditor> from_text(const std::string& text, const std::string& origin,
                                            const std::string& base_dir,
                                            const catalog::Catalog& catalog);

  // The plan's YAML with `change` applied, in order: a value (a scalar, or a flow list of
  // scalars such as "[8, 16]") replaces the key (and every other spelling of it: aliases,
  // use_distributed_optimizer for optimizer_sharding), no value removes it; sections on the way
  // to a deeper key ("serving.autoscaling.policy") are made when missing.
  // parallelism.data_parallel_size, a derived check, is dropped when the layout or the GPU
  // count changes. Comments are not kept. kInvalidInput for a key path with an empty part, a
  // path through a value that is not a section, or a value that is not YAML.
  core::Result<std::string> render(const optimize::Change& change) const;

  // Reads render(change) as a plan and estimates it as `aicost estimate` does. Errors when the
  // changed plan is not valid (kInfeasible for a serving plan no deployment serves).
  core::Result<optimize::Evaluation> evaluate(const optimize::Change& change) const;

  // render(change) as a file for `out_dir`: `header` as a comment first, a relative
  // model.hf_config or serving.traffic_profile.csv rewritten to point at the same file.
  core::Result<std::string> emit(const optimize::Change& change, const std::string& out_dir,
                                 const std::string& header) const;

  // `change` without removals of keys the plan does not have (no-ops, kept out of reports).
  optimize::Change prune(const optimize::Change& change) const;

  // The limits in the plan's `search:` section (deadline, max_gpus, memory_headroom).
  core::Result<optimize::PlanLimits> limits() const;

  const std::string& name() const;

 private:
  core::Result<optimize::Evaluation> evaluate_serving(const std::string& text,
                                                      const std::string& origin) const;
  struct State;
  explicit PlanEditor(std::shared_ptr<const State> s) : s_(std::move(s)) {}
  std::shared_ptr<const State> s_;
};

}  // namespace aicost::config
