// The change journal measured on the bill (`aicost ledger changes`, docs/OPTIMIZE.md "Change
// journal"): for each recorded change, a unit cost's daily values over equal windows before and
// after its day, the effect with a 95 % confidence interval, the guardrails, and a verdict.
//
// The interval is Welch's (unequal variances) over the daily values, not a bootstrap: with 14
// values a side a percentile bootstrap's interval is too narrow (it resamples the few days there
// are), Welch's is exact under normal daily noise, deterministic without a seed, and a test can
// recompute it in closed form. The effect is relative to the mean before:
// (mean_after - mean_before) / mean_before, and its interval is the difference's interval over the
// same mean (the mean before taken as known).
//
// Pure functions of typed series (below), plus evaluate_changes, which reads them from a
// ledger::Store. Deterministic; thread-safe on different stores.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/ledger/change.h"
#include "aicost/ledger/store.h"

namespace aicost::governance {

// Welch's interval for the relative change of the mean from `before` to `after`.
struct Effect {
  double before = 0, after = 0;  // the means
  double effect = 0;             // (after - before) / before
  double lo = 0, hi = 0;         // its interval at `confidence`
  double df = 0;  // Welch-Satterthwaite degrees of freedom (0 when both variances are 0)
};
// nullopt when either side has fewer than 2 values or the mean before is 0.
std::optional<Effect> welch_effect(std::span<const double> before, std::span<const double> after,
                                   double confidence = 0.95);

// What a change is measured on, best first: cost per 1M tokens where the scope's charges carry
// token counts, else per useful GPU-hour (GPU-hours weighted by telemetry's SM activity) where its
// hosts have telemetry, else per GPU-hour, else the cost per day (not a unit cost: it moves with
// usage; said in the verdict's words).
enum class UnitMetric { kPerMillionTokens, kPerUsefulGpuHour, kPerGpuHour, kPerDay };
const char* unit_metric_name(UnitMetric m);  // "cost_per_1m_tokens", ...

// One day of a change's scope (effective cost in the currency measured).
struct ScopeDay {
  ledger::Day day = 0;
  double cost = 0;
  double gpu_hours = 0;
  double observed_gpu_hours = 0, useful_gpu_hours = 0;  // telemetry's (ledger::Sums)
  double tokens = 0;
};

enum class Verdict { kKept, kNoEffect, kStopLoss, kTooEarly };
const char* verdict_name(Verdict v);  // "kept", "no_effect", "stop_loss", "too_early"

struct GuardrailResult {
  ledger::Guardrail guardrail;
  std::optional<double> before, after;  // the guarded value (a relative rise, or an activity 0..1)
  bool crossed = false;
};

struct ChangeOptions {
  ledger::Day as_of = 0;  // days before it count
  int window_days = 14;   // each side
  double confidence = 0.95;
  // Limits every change is held to besides its own (a guardrails file: `--guardrails G.yaml`); a
  // change recorded with a limit of the same kind keeps its own.
  std::vector<ledger::Guardrail> guardrails;
};

struct ChangeResult {
  ledger::Change change;
  std::string currency;  // of the costs measured (the scope's largest)
  UnitMetric metric = UnitMetric::kPerDay;
  int days_before = 0, days_after = 0;  // days with a value on each side
  std::optional<Effect> effect;
  std::vector<GuardrailResult> guardrails;
  Verdict verdict = Verdict::kTooEarly;
  // Why the verdict: "the unit cost rose" (a stop-loss without a guardrail crossed), ...; "" when
  // the effect and guardrails say it.
  std::string why;
  // The after window reaches as_of: [day, day + window_days) is not all in the past.
  bool window_complete = false;
};

// A change measured on its scope's days: `days` sorted, any span around the change (those outside
// [day - window, min(day + window, as_of)) are ignored). The verdict: stop_loss when a guardrail
// is crossed (max_cost_rise: the measured rise above its limit; min_gpu_activity: the mean SM
// activity after the change below it) or the unit cost rose beyond doubt (the interval above 0);
// else too_early while the after window is incomplete or either side has fewer than 2 days; else
// kept when the interval lies below 0, no_effect when it holds 0. The rise beyond doubt counts
// only on a complete window; a guardrail counts from the first day after the change. The
// guardrails are the change's, then those of `o.guardrails` of a kind the change has none of.
ChangeResult measure_change(const ledger::Change& change, std::span<const ScopeDay> days,
                            const ChangeOptions& o);

// Every change of the journal measured on the store's charges and telemetry (one report per
// change, over its two windows), in the journal's order.
core::Result<std::vector<ChangeResult>> evaluate_changes(ledger::Store& store,
                                                         const ChangeOptions& o);

}  // namespace aicost::governance
