// `aicost optimize` for a training or serving plan: every lever is proposed on the plan, the
// changed plan is estimated through the caller's Evaluator, the saving is the difference of the two
// estimates, and each change is held against the red lines. The accepted ones are then combined,
// low risk first, each kept only if the combined plan (estimated as one plan) still gets cheaper
// and stays inside the red lines. Deterministic; thread-safe on different inputs
// (docs/OPTIMIZE.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aicost/optimize/lever.h"

namespace aicost::optimize {

enum class LeverStatus {
  kAccepted,       // saves money and crosses no red line
  kRejected,       // would save money but crosses a red line (red_line says which, by how much)
  kNoSaving,       // applies, but the changed plan is not cheaper (or there is nothing to change)
  kNotPriced,      // the model cannot price it yet (why names the missing term)
  kNotApplicable,  // does not apply to this plan (why says so)
};
const char* to_string(LeverStatus status);  // "accepted", "rejected", "no-saving", ...
// A status's place in a ranking (docs/OPTIMIZE.md "Statuses"): accepted and rejected together (0,
// then by saving), no-saving, not-priced, not-applicable.
int status_rank(LeverStatus status);

struct RedLineCheck {
  bool ok = true;
  std::string why;  // the line crossed and by how much; empty when ok
};

// What a change to a serving plan does to its latency and capacity: shown where a training
// plan shows wall days (docs/OPTIMIZE.md "SLA effect"). Of the changed plan, and its difference
// from the original.
struct SlaEffect {
  double ttft_tail_s = 0, ttft_tail_delta_s = 0;  // TTFT at the SLA percentile, design load
  double tpot_s = 0, tpot_delta_s = 0;            // time per output token
  // Share of requests over the SLA (arriving while ready replicas fall short) across the
  // traffic profile; nullopt without one.
  std::optional<double> over_sla_share, over_sla_delta;
  double capacity_buffer = 0, capacity_buffer_delta = 0;  // serving::capacity_buffer
};

struct LeverResult {
  std::string id, category;
  std::string
      subject;  // ledger levers: the instance family or host it is about; "" for plan levers
  LeverStatus status = LeverStatus::kNotApplicable;
  std::string why;
  // Of the changed plan against the original, when it was estimated.
  std::optional<double> saving_usd, saving_pct, wall_days_delta, total_usd, wall_days;
  std::optional<double> mfu_bf16;       // of the changed plan (see mfu_bf16() below)
  std::optional<SlaEffect> sla_effect;  // serving plans (then wall_days* are nullopt)
  Risk risk;
  RedLineCheck red_line;
  Change change;
  Rollout rollout;
  std::vector<std::string> notes;
};

struct CombinedStep {
  std::string id;
  double total_usd = 0;   // of the combined plan after this lever
  double saving_usd = 0;  // against the combination before it
  double wall_days = 0;
  bool retuned = false;  // the second pass: proposed again on the combination of the first
};

struct Combined {
  double total_usd = 0;
  double wall_days = 0;
  double saving_usd = 0;
  double sum_of_savings = 0;  // of the levers taken, each alone: what adding them up would claim
  std::vector<std::string> levers;  // in the order applied
  std::vector<CombinedStep> steps;
  std::vector<std::pair<std::string, std::string>> skipped;  // lever id, why
  Change change;                        // from the original plan to the combined one
  RiskLevel risk = RiskLevel::kLow;     // the highest of the levers taken
  std::optional<SlaEffect> sla_effect;  // serving plans
  Evaluation plan;
};

struct OptimizeResult {
  std::string plan;
  Evaluation baseline;
  std::vector<LeverResult> levers;  // ranked: by saving, then the rest (see docs/OPTIMIZE.md)
  Combined combined;
  Guardrails guardrails;
  PlanLimits limits;
  std::vector<std::string> warnings;
  int evaluations = 0;  // estimates run
};

struct OptimizeInputs {
  std::string plan_name;
  const catalog::Catalog* catalog = nullptr;
  Evaluator evaluate;
  PlanLimits limits;
  Guardrails guardrails;
  int threads = 1;
  // Empty: training_levers(), or serving_levers() for a serving plan. Tests add their own.
  std::vector<Lever> levers;
};

// Errors: the plan itself cannot be estimated (the Evaluator's error for an empty change).
core::Result<OptimizeResult> optimize(const OptimizeInputs& inputs);

// The red lines a changed plan crosses that the original did not (or crosses further), and the
// risk above the allowed level. `candidate` and `baseline` are estimates of the changed and the
// original plan.
RedLineCheck check_red_lines(const Evaluation& candidate, const Evaluation& baseline,
                             const Risk& risk, const Guardrails& guardrails,
                             const PlanLimits& limits);

// The red lines the plan itself crosses (the changes are judged against it).
std::vector<std::string> lines_crossed_by_plan(const Evaluation& plan, const Guardrails& guardrails,
                                               const PlanLimits& limits);

// A serving plan changed against the original (both serving evaluations).
SlaEffect sla_effect(const Evaluation& changed, const Evaluation& original);
// The most of a serving plan's requests that may go over its SLA for want of ready replicas:
// the guardrails' max_over_sla, else a tenth of what the SLA percentile allows to miss anyway
// (P90: 1 %).
double over_sla_limit(const Evaluation& serving_plan, const Guardrails& guardrails);

// Expected recovery per interrupt: lost work (back to the last checkpoint) + restart.
core::Seconds recovery_per_interrupt(const Evaluation& e);
// Model FLOP/s per GPU over the GPU's BF16 dense peak (the precision's own peak when it has none).
double mfu_bf16(const Evaluation& e);
// The share of a step the GPUs wait for data (perf's data_loading part over the step time).
double data_stall_share(const Evaluation& e);
// The span the retained checkpoints cover: checkpoints_retained x checkpoint interval.
core::Seconds checkpoint_span(const Evaluation& e);

}  // namespace aicost::optimize
