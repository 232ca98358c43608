// The red lines of docs/OPTIMIZE.md, checked on a changed plan against the original: a line the
// original already crosses only rejects a change that makes it worse.
#include <algorithm>
#include <cmath>

#include "aicost/core/text.h"
#include "aicost/optimize/optimize.h"
#include "serving_levers.h"

namespace aicost::optimize {

using core::Seconds;

namespace {

std::string duration(Seconds s) {
  const double h = core::in_hours(s);
  if (h >= 24) return core::sprintf("%.1f d", h / 24);
  if (h >= 1) return core::sprintf("%.1f h", h);
  return core::sprintf("%.0f min", s.value() / 60);
}

// Log retention 0 means "kept for the run" (costing), i.e. the wall time.
Seconds log_retention(const Evaluation& e) {
  const Seconds r = e.inputs.storage.log_retention;
  return r.value() > 0 ? r : e.cost.wall_time;
}

}  // namespace

Seconds recovery_per_interrupt(const Evaluation& e) {
  const auto& f = e.cost.failures;
  const Seconds lost = f.expected_interruptions > 0 ? f.lost_work / f.expected_interruptions
                                                    : f.checkpoint_interval * 0.5;
  return lost + f.restart_per_interrupt;
}

double mfu_bf16(const Evaluation& e) {
  const auto peak = e.job.cluster.gpu.peak(catalog::Precision::kBf16);
  if (!peak) return e.perf.mfu;
  return e.perf.model_flops_per_gpu / *peak;
}

double data_stall_share(const Evaluation& e) {
  const double step = e.perf.step_time.value();
  return step > 0 ? e.perf.step.data_loading.value() / step : 0;
}

Seconds checkpoint_span(const Evaluation& e) {
  return e.cost.failures.checkpoint_interval *
         static_cast<double>(e.inputs.storage.checkpoints_retained);
}

namespace {

// A changed plan is worse on a line the original already crosses when it moves more than 1 %
// further across: the models' own noise (the last checkpoint segment of a shorter run, say) is
// not a change for the worse.
constexpr double kWorse = 0.01;

std::string risk_above(const Risk& risk, const Guardrails& g) {
  return std::string("risk ") + to_string(risk.level) + " is above the allowed " +
         to_string(g.max_risk);
}

// The lines `c` crosses. With `base`, a line `base` already crosses counts only when `c` is worse.
std::vector<std::string> crossed_lines(const Evaluation& c, const Evaluation* base,
                                       const Risk& risk, const Guardrails& g,
                                       const PlanLimits& limits) {
  std::vector<std::string> crossed;
  if (c.serving) {
    if (risk.level > g.max_risk) crossed.push_back(risk_above(risk, g));
    detail::serving_lines_crossed(c, base, g, kWorse, crossed);
    return crossed;
  }
  // A tight plan (over capacity within the memory model's error) may stay tight, but a change
  // must not make a fitting plan tight.
  const bool base_fits = base == nullptr || base->perf.memory.fits();
  if (c.perf.memory.refused() || (c.perf.memory.tight() && base_fits)) {
    crossed.push_back(core::sprintf("%s in GPU memory: %.1f GiB of %.1f GiB",
                                    c.perf.memory.refused() ? "does not fit" : "tight",
                                    core::in_gib(c.perf.memory.total()),
                                    core::in_gib(c.perf.memory.capacity)));
  }
  if (risk.level > g.max_risk) crossed.push_back(risk_above(risk, g));
  // A minimum: crossed when the candidate is below it and below the original.
  // A floor: crossed when `cand` is below it, unless the original is below it too and `cand` is
  // not worse by more than kWorse. A ceiling is the same with the signs turned.
  auto at_least = [&](double cand, double orig, double floor, const std::string& what) {
    if (cand < floor && (!base || orig >= floor || cand < orig * (1 - kWorse)))
      crossed.push_back(what);
  };
  auto at_most = [&](double cand, double orig, double ceiling, const std::string& what) {
    if (cand > ceiling && (!base || orig <= ceiling || cand > orig * (1 + kWorse)))
      crossed.push_back(what);
  };
  const Evaluation& b = base ? *base : c;
  for (const auto& [kind, min] : g.min_retention) {
    if (kind == "logs") {
      const Seconds r = log_retention(c);
      at_least(r.value(), log_retention(b).value(), min.value(),
               "log retention " + duration(r) + " is below the minimum " + duration(min) + " by " +
                   duration(min - r));
    } else if (kind == "checkpoints") {
      const Seconds s = checkpoint_span(c);
      at_least(
          s.value(), checkpoint_span(b).value(), min.value(),
          core::sprintf("retained checkpoints cover %s (%d x %.0f min), below the minimum %s by %s",
                        duration(s).c_str(), c.inputs.storage.checkpoints_retained,
                        c.cost.failures.checkpoint_interval.value() / 60, duration(min).c_str(),
                        duration(min - s).c_str()));
    }
  }
  if (g.max_recovery) {
    const Seconds r = recovery_per_interrupt(c);
    at_most(r.value(), recovery_per_interrupt(b).value(), g.max_recovery->value(),
            core::sprintf("recovery per interrupt %s (lost work + restart) is above the maximum %s "
                          "by %s",
                          duration(r).c_str(), duration(*g.max_recovery).c_str(),
                          duration(r - *g.max_recovery).c_str()));
  }
  if (g.min_mfu) {
    const double m = mfu_bf16(c);
    at_least(m, mfu_bf16(b), *g.min_mfu,
             core::sprintf("MFU %.1f %% (of the BF16 peak) is below the floor %.1f %% by %.1f pp",
                           100 * m, 100 * *g.min_mfu, 100 * (*g.min_mfu - m)));
  }
  {
    // The scalability trap: a cheap but slow storage tier makes every step wait for data.
    const double stall = data_stall_share(c);
    at_most(
        stall, data_stall_share(b), g.data_stall_limit(),
        core::sprintf("the GPUs wait for data %.1f %% of each step (%.2f s), above the %.1f %% "
                      "allowed (max_data_stall)",
                      100 * stall, c.perf.step.data_loading.value(), 100 * g.data_stall_limit()));
  }
  if (g.security_floor) {
    const double cut = b.inputs.services.security.value() - c.inputs.services.security.value();
    if (cut > 0) {
      crossed.push_back(core::sprintf("cuts security spend by %.0f USD/month (security floor)",
                                      cut * core::kSecondsPerMonth));
    }
  }
  if (limits.deadline_days) {
    const double d = c.wall_days();
    at_most(d, b.wall_days(), *limits.deadline_days,
            core::sprintf("%.1f wall days miss the plan's deadline of %.1f days by %.1f", d,
                          *limits.deadline_days, d - *limits.deadline_days));
  }
  return crossed;
}

}  // namespace

RedLineCheck check_red_lines(const Evaluation& candidate, const Evaluation& baseline,
                             const Risk& risk, const Guardrails& guardrails,
                             const PlanLimits& limits) {
  RedLineCheck out;
  for (const auto& s : crossed_lines(candidate, &baseline, risk, guardrails, limits)) {
    out.why += (out.why.empty() ? "" : "; ") + s;
  }
  out.ok = out.why.empty();
  return out;
}

std::vector<std::string> lines_crossed_by_plan(const Evaluation& plan, const Guardrails& guardrails,
                                               const PlanLimits& limits) {
  return crossed_lines(plan, nullptr, Risk{}, guardrails, limits);
}

}  // namespace aicost::optimize
