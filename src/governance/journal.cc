// The change journal's arithmetic: windows, Welch's interval, the metric, guardrails and verdict
// (include/aicost/governance/journal.h).
#include "aicost/governance/journal.h"

#include <algorithm>
#include <cmath>

#include "aicost/core/stats.h"

namespace aicost::governance {
namespace {

struct MeanVar {
  double mean = 0, var = 0;
};

MeanVar mean_var(std::span<const double> v) {
  MeanVar m;
  for (double x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= static_cast<double>(v.size() - 1);
  return m;
}

// A day's value of `m`, or nullopt when the day has none of the metric's units.
std::optional<double> unit_value(const ScopeDay& d, UnitMetric m) {
  switch (m) {
    case UnitMetric::kPerMillionTokens:
      if (d.tokens > 0) return d.cost / (d.tokens / 1e6);
      return std::nullopt;
    case UnitMetric::kPerUsefulGpuHour:
      // The cost of a GPU-hour over the share of it the GPUs were busy (hosts with telemetry).
      if (d.gpu_hours > 0 && d.observed_gpu_hours > 0 && d.useful_gpu_hours > 0)
        return d.cost / d.gpu_hours / (d.useful_gpu_hours / d.observed_gpu_hours);
      return std::nullopt;
    case UnitMetric::kPerGpuHour:
      if (d.gpu_hours > 0) return d.cost / d.gpu_hours;
      return std::nullopt;
    case UnitMetric::kPerDay: return d.cost;
  }
  return std::nullopt;
}

struct Sides {
  std::vector<double> before, after;
};

Sides values(std::span<const ScopeDay> before, std::span<const ScopeDay> after, UnitMetric m) {
  Sides s;
  for (const auto& d : before)
    if (auto v = unit_value(d, m)) s.before.push_back(*v);
  for (const auto& d : after)
    if (auto v = unit_value(d, m)) s.after.push_back(*v);
  return s;
}

// Mean SM activity over the days: useful over observed GPU-hours; nullopt without telemetry.
std::optional<double> activity(std::span<const ScopeDay> days) {
  double observed = 0, useful = 0;
  for (const auto& d : days) {
    observed += d.observed_gpu_hours;
    useful += d.useful_gpu_hours;
  }
  if (observed <= 0) return std::nullopt;
  return useful / observed;
}

}  // namespace

std::optional<Effect> welch_effect(std::span<const double> before, std::span<const double> after,
                                   double confidence) {
  if (before.size() < 2 || after.size() < 2) return std::nullopt;
  const auto b = mean_var(before), a = mean_var(after);
  if (b.mean == 0) return std::nullopt;
  Effect e;
  e.before = b.mean;
  e.after = a.mean;
  e.effect = (a.mean - b.mean) / b.mean;
  const double nb = static_cast<double>(before.size()), na = static_cast<double>(after.size());
  const double vb = b.var / nb, va = a.var / na;
  const double se2 = vb + va;
  e.lo = e.hi = e.effect;
  if (se2 <= 0) return e;
  // Welch (1947); Satterthwaite's degrees of freedom.
  e.df = se2 * se2 / (vb * vb / (nb - 1) + va * va / (na - 1));
  const double half =
      core::student_t_quantile(0.5 + confidence / 2, e.df) * std::sqrt(se2) / std::fabs(b.mean);
  e.lo = e.effect - half;
  e.hi = e.effect + half;
  return e;
}

const char* unit_metric_name(UnitMetric m) {
  switch (m) {
    case UnitMetric::kPerMillionTokens: return "cost_per_1m_tokens";
    case UnitMetric::kPerUsefulGpuHour: return "cost_per_useful_gpu_hour";
    case UnitMetric::kPerGpuHour: return "cost_per_gpu_hour";
    case UnitMetric::kPerDay: return "cost_per_day";
  }
  return "?";
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kKept: return "kept";
    case Verdict::kNoEffect: return "no_effect";
    case Verdict::kStopLoss: return "stop_loss";
    case Verdict::kTooEarly: return "too_early";
  }
  return "?";
}

ChangeResult measure_change(const ledger::Change& change, std::span<const ScopeDay> days,
                            const ChangeOptions& o) {
  ChangeResult r;
  r.change = change;
  const ledger::Day from = change.day - o.window_days,
                    end = std::min(change.day + o.window_days, o.as_of);
  r.window_complete = change.day + o.window_days <= o.as_of;
  std::vector<ScopeDay> before, after;
  for (const auto& d : days) {
    if (d.day >= from && d.day < change.day) before.push_back(d);
    if (d.day >= change.day && d.day < end) after.push_back(d);
  }
  // The best metric both sides can be measured on.
  Sides v;
  for (auto m : {UnitMetric::kPerMillionTokens, UnitMetric::kPerUsefulGpuHour,
                 UnitMetric::kPerGpuHour, UnitMetric::kPerDay}) {
    r.metric = m;
    v = values(before, after, m);
    if (v.before.size() >= 2 && v.after.size() >= 2) break;
  }
  r.days_before = static_cast<int>(v.before.size());
  r.days_after = static_cast<int>(v.after.size());
  r.effect = welch_effect(v.before, v.after, o.confidence);

  bool crossed = false;
  std::vector<ledger::Guardrail> limits = change.guardrails;
  for (const auto& g : o.guardrails)
    if (std::none_of(change.guardrails.begin(), change.guardrails.end(),
                     [&g](const auto& own) { return own.kind == g.kind; }))
      limits.push_back(g);
  for (const auto& g : limits) {
    GuardrailResult gr{g, std::nullopt, std::nullopt, false};
    if (g.kind == ledger::GuardrailKind::kMaxUnitCostRise) {
      if (r.effect) {
        gr.after = r.effect->effect;
        gr.crossed = r.effect->effect > g.limit;
      }
    } else {
      gr.before = activity(before);
      gr.after = activity(after);
      gr.crossed = gr.after && !after.empty() && *gr.after < g.limit;
    }
    crossed |= gr.crossed;
    r.guardrails.push_back(gr);
  }
  if (crossed) {
    r.verdict = Verdict::kStopLoss;
  } else if (r.effect && r.window_complete && r.effect->lo > 0) {
    r.verdict = Verdict::kStopLoss;
    r.why = "the unit cost rose";
  } else if (!r.window_complete || !r.effect) {
    r.verdict = Verdict::kTooEarly;
    if (r.window_complete) r.why = "fewer than 2 days with a value on a side";
  } else {
    r.verdict = r.effect->hi < 0 ? Verdict::kKept : Verdict::kNoEffect;
  }
  return r;
}

}  // namespace aicost::governance
