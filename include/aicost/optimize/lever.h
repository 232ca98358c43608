// A lever: one kind of change to a training or serving plan (docs/OPTIMIZE.md lists them). Given
// the plan as it stands, a lever proposes a Change with its risk and how to roll it out, or says
// why it does not apply or cannot be priced. It never prices itself: the optimiser estimates the
// changed plan (optimize.h) and the saving is the difference of two estimates.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "aicost/catalog/catalog.h"
#include "aicost/core/result.h"
#include "aicost/costing/cost_model.h"
#include "aicost/optimize/change.h"
#include "aicost/optimize/guardrails.h"
#include "aicost/perf/estimate.h"
#include "aicost/serving/fleet.h"
#include "aicost/workload/training_job.h"

namespace aicost::optimize {

// A serving plan's estimate: the typed plan and the fleet the serving models make of it
// (serving/fleet.h); `fleet.best` is always set (a plan no deployment serves is an error).
struct ServingEvaluation {
  serving::PlanSpec plan;
  serving::Fleet fleet;
  const serving::Deployment& deployment() const { return *fleet.best; }
  const serving::DeploymentOption& option() const { return plan.options[fleet.best->option]; }
};

// The deployment in words, replicas and GPUs told apart: "4 replicas of h100-sxm-80gb TP2 (8 GPUs)
// fp8, max batch 128".
std::string deployment_text(const ServingEvaluation& s);
// One replica of it: "h100-sxm-80gb TP2 fp8, max batch 128".
std::string replica_text(const ServingEvaluation& s);

// One estimate of a plan: what was read and what the models made of it. A training plan fills
// job, inputs, perf and cost; a serving plan fills `serving` (its total is the fleet's monthly
// cost, 730 h, and it has no wall time).
struct Evaluation {
  workload::TrainingJob job;
  costing::CostInputs inputs;
  perf::TrainingEstimate perf;
  costing::CostEstimate cost;
  std::optional<ServingEvaluation> serving;
  std::vector<std::string> warnings;
  double total_usd() const { return serving ? serving->fleet.monthly.value() : cost.total.value(); }
  double wall_days() const { return serving ? 0 : core::in_days(cost.wall_time); }
};

// Estimates the ORIGINAL plan with `change` applied (a change is always relative to the plan as
// written). Errors when the changed plan is not valid (a size that does not divide, ...).
// Implemented by the caller (config::PlanEditor for a plan file); must be deterministic.
using Evaluator = std::function<core::Result<Evaluation>(const Change&)>;

// Limits the plan itself sets, in its `search:` section (docs/SEARCH.md).
struct PlanLimits {
  std::optional<double> deadline_days;  // wall-clock, failures included
  int max_gpus = 0;                     // 0: four times the plan's GPUs
  double memory_headroom = 0.05;        // share of GPU memory a searched layout keeps free
};

struct Risk {
  RiskLevel level = RiskLevel::kLow;
  std::vector<std::string>
      kinds;  // convergence, availability, recovery, quality, cost-commitment, ...
  std::string why;
};

// How to try a change small first, what proves it, and when to roll it back.
struct Rollout {
  std::string validation;
  std::string metric;
  std::string stop_loss;
};

struct Proposal {
  enum class Kind {
    kChange,         // `change` is proposed
    kNothingToDo,    // applies, but the plan already has it (why says so)
    kNotPriced,      // would apply, but the model cannot price it (why names the missing term)
    kNotApplicable,  // does not apply to this plan (why says so)
  };
  Kind kind = Kind::kChange;
  std::string why;
  Change change;
  Risk risk;
  Rollout rollout;
  std::vector<std::string> notes;  // figures worth knowing (break-even utilisation, assumptions)
};

struct LeverContext {
  const catalog::Catalog& catalog;
  const Evaluation& plan;  // the plan as it stands: the original, or the combination so far
  const Change& applied;   // the edits that made `plan` from the original plan
  const Evaluator& evaluate;
  const PlanLimits& limits;
  const Guardrails& guardrails;
  int threads = 1;  // for levers that search
};

struct Lever {
  std::string id;        // stable, part of the JSON contract ("parallelism", "pricing-spot", ...)
  std::string category;  // compute | pricing | reliability | storage | network | serving
  // Levers of one group exclude each other (spot vs reserved); empty for none.
  std::string group;
  std::function<Proposal(const LeverContext&)> propose;
};

// Every training lever of this milestone, in a fixed order (ties in the ranking keep it).
std::vector<Lever> training_levers();
// Every serving lever (docs/OPTIMIZE.md "Serving plans"), in a fixed order.
std::vector<Lever> serving_levers();

}  // namespace aicost::optimize
