// The driver: propose, estimate, judge, rank, combine (docs/OPTIMIZE.md), for training and
// serving plans alike.
#include "aicost/optimize/optimize.h"

#include <algorithm>
#include <map>

#include "aicost/core/text.h"

namespace aicost::optimize {

int status_rank(LeverStatus s) {
  switch (s) {
    case LeverStatus::kAccepted:
    case LeverStatus::kRejected: return 0;
    case LeverStatus::kNoSaving: return 1;
    case LeverStatus::kNotPriced: return 2;
    case LeverStatus::kNotApplicable: return 3;
  }
  return 4;
}

namespace {

// Savings below half a cent are rounding, not savings.
constexpr double kCent = 0.005;

LeverResult judge(const Lever& lever, Proposal p, const Evaluation& base, const Evaluator& eval,
                  const OptimizeInputs& in) {
  LeverResult r;
  r.id = lever.id;
  r.category = lever.category;
  r.why = p.why;
  r.notes = std::move(p.notes);
  switch (p.kind) {
    case Proposal::Kind::kNotApplicable: r.status = LeverStatus::kNotApplicable; return r;
    case Proposal::Kind::kNotPriced: r.status = LeverStatus::kNotPriced; return r;
    case Proposal::Kind::kNothingToDo: r.status = LeverStatus::kNoSaving; return r;
    case Proposal::Kind::kChange: break;
  }
  r.change = std::move(p.change);
  r.risk = std::move(p.risk);
  r.rollout = std::move(p.rollout);
  auto cand = eval(r.change);
  if (!cand) {
    r.status = LeverStatus::kNotApplicable;
    r.why = "the changed plan is not valid: " + cand.error().message;
    return r;
  }
  const double saving = base.total_usd() - cand->total_usd();
  r.total_usd = cand->total_usd();
  r.saving_usd = saving;
  r.saving_pct = base.total_usd() > 0 ? saving / base.total_usd() : 0;
  if (cand->serving) {
    r.sla_effect = sla_effect(*cand, base);
  } else {
    r.wall_days = cand->wall_days();
    r.mfu_bf16 = mfu_bf16(*cand);
    r.wall_days_delta = cand->wall_days() - base.wall_days();
  }
  r.red_line = check_red_lines(*cand, base, r.risk, in.guardrails, in.limits);
  if (saving < kCent) {
    r.status = LeverStatus::kNoSaving;
    r.why = core::sprintf("the changed plan (%s) costs %s USD more", describe(r.change).c_str(),
                          core::group_digits(-saving, 2).c_str());
  } else if (!r.red_line.ok) {
    r.status = LeverStatus::kRejected;
    r.why = r.red_line.why;
  } else {
    r.status = LeverStatus::kAccepted;
  }
  return r;
}

// Accepted levers applied together, low risk first, each re-proposed on the combination so far
// and kept only if the combined plan, estimated as one plan, gets cheaper and stays inside the
// red lines. Of levers that exclude each other, the one that saves most alone is tried.
Combined combine(const std::vector<Lever>& levers, const std::vector<LeverResult>& results,
                 const Evaluation& base, const Evaluator& eval, const OptimizeInputs& in) {
  Combined out;
  out.plan = base;
  std::map<std::string, const Lever*> by_id;
  for (const auto& l : levers) by_id[l.id] = &l;
  std::vector<const LeverResult*> order;
  std::map<std::string, const LeverResult*> group_best;
  for (const auto& r : results) {
    if (r.status != LeverStatus::kAccepted) continue;
    order.push_back(&r);
    const auto& g = by_id[r.id]->group;
    if (!g.empty() && (!group_best.count(g) || *r.saving_usd > *group_best[g]->saving_usd)) {
      group_best[g] = &r;
    }
  }
  std::stable_sort(order.begin(), order.end(), [](const LeverResult* a, const LeverResult* b) {
    if (a->risk.level != b->risk.level) return a->risk.level < b->risk.level;
    return *a->saving_usd > *b->saving_usd;
  });
  Evaluation current = base;
  Change applied;
  for (const LeverResult* r : order) {
    const Lever& lever = *by_id[r->id];
    if (!lever.group.empty() && group_best[lever.group] != r) {
      out.skipped.push_back({r->id, core::sprintf("excludes %s, which saves more alone",
                                                  group_best[lever.group]->id.c_str())});
      continue;
    }
    const LeverContext ctx{*in.catalog, current,       applied,   eval,
                           in.limits,   in.guardrails, in.threads};
    Proposal p = lever.propose(ctx);
    if (p.kind != Proposal::Kind::kChange) {
      out.skipped.push_back({r->id, "on the combined plan: " + p.why});
      continue;
    }
    Change merged = merge(applied, p.change);
    auto cand = eval(merged);
    if (!cand) {
      out.skipped.push_back({r->id, "the combined plan is not valid: " + cand.error().message});
      continue;
    }
    const double saving = current.total_usd() - cand->total_usd();
    if (saving < kCent) {
      out.skipped.push_back({r->id, core::sprintf("saves nothing on top of the levers before it "
                                                  "(%s USD)",
                                                  core::group_digits(-saving, 2).c_str())});
      continue;
    }
    const RedLineCheck red = check_red_lines(*cand, base, p.risk, in.guardrails, in.limits);
    if (!red.ok) {
      out.skipped.push_back({r->id, "in the combined plan: " + red.why});
      continue;
    }
    out.steps.push_back({r->id, cand->total_usd(), saving, cand->wall_days(), false});
    out.levers.push_back(r->id);
    out.sum_of_savings += *r->saving_usd;
    out.risk = std::max(out.risk, p.risk.level);
    current = std::move(*cand);
    applied = std::move(merged);
  }
  // Levers tried early were tuned for the plan as it was then (the checkpoint interval before
  // asynchronous saves, the layout before another GPU type): each accepted one is proposed once
  // more on the final combination.
  for (const LeverResult* r : order) {
    const std::string& id = r->id;
    const Lever& lever = *by_id[id];
    if (!lever.group.empty() && group_best[lever.group] != r) continue;
    const LeverContext ctx{*in.catalog, current,       applied,   eval,
                           in.limits,   in.guardrails, in.threads};
    Proposal p = lever.propose(ctx);
    if (p.kind != Proposal::Kind::kChange) continue;
    Change merged = merge(applied, p.change);
    if (merged == applied) continue;
    auto cand = eval(merged);
    if (!cand || current.total_usd() - cand->total_usd() < kCent) continue;
    if (!check_red_lines(*cand, base, p.risk, in.guardrails, in.limits).ok) continue;
    out.steps.push_back(
        {id, cand->total_usd(), current.total_usd() - cand->total_usd(), cand->wall_days(), true});
    out.risk = std::max(out.risk, p.risk.level);
    if (std::find(out.levers.begin(), out.levers.end(), id) == out.levers.end()) {
      out.levers.push_back(id);
      out.sum_of_savings += *r->saving_usd;
      std::erase_if(out.skipped, [&](const auto& s) { return s.first == id; });
    }
    current = std::move(*cand);
    applied = std::move(merged);
  }
  out.total_usd = current.total_usd();
  out.wall_days = current.wall_days();
  if (current.serving) out.sla_effect = sla_effect(current, base);
  out.saving_usd = base.total_usd() - current.total_usd();
  out.change = std::move(applied);
  out.plan = std::move(current);
  return out;
}

}  // namespace

const char* to_string(LeverStatus status) {
  switch (status) {
    case LeverStatus::kAccepted: return "accepted";
    case LeverStatus::kRejected: return "rejected";
    case LeverStatus::kNoSaving: return "no-saving";
    case LeverStatus::kNotPriced: return "not-priced";
    case LeverStatus::kNotApplicable: return "not-applicable";
  }
  return "?";
}

core::Result<OptimizeResult> optimize(const OptimizeInputs& in) {
  if (!in.catalog) return core::make_error(core::ErrorCode::kInternal, "optimize: no catalog");
  int evaluations = 0;
  const Evaluator eval = [&](const Change& c) {
    ++evaluations;
    return in.evaluate(c);
  };
  auto base = eval({});
  if (!base) return base.error();
  if (!base->serving && base->perf.memory.refused()) {
    return core::make_error(
        core::ErrorCode::kInfeasible,
        core::sprintf("the plan does not fit in GPU memory (%.1f GiB of %.1f GiB per GPU): "
                      "optimise a plan that runs (`aicost estimate` lists what would fit)",
                      core::in_gib(base->perf.memory.total()),
                      core::in_gib(base->perf.memory.capacity)));
  }
  OptimizeResult res;
  res.plan = in.plan_name;
  res.baseline = std::move(*base);
  res.guardrails = in.guardrails;
  res.limits = in.limits;
  const std::vector<Lever> levers = !in.levers.empty()     ? in.levers
                                    : res.baseline.serving ? serving_levers()
                                                           : training_levers();
  const Change none;
  for (const auto& lever : levers) {
    const LeverContext ctx{*in.catalog, res.baseline,  none,      eval,
                           in.limits,   in.guardrails, in.threads};
    res.levers.push_back(judge(lever, lever.propose(ctx), res.baseline, eval, in));
  }
  std::stable_sort(res.levers.begin(), res.levers.end(),
                   [](const LeverResult& a, const LeverResult& b) {
                     const int ra = status_rank(a.status), rb = status_rank(b.status);
                     if (ra != rb) return ra < rb;
                     if (ra == 0) return *a.saving_usd > *b.saving_usd;
                     return false;
                   });
  res.combined = combine(levers, res.levers, res.baseline, eval, in);
  // The plan itself may already be on the wrong side of a line: say so once.
  for (const auto& line : lines_crossed_by_plan(res.baseline, in.guardrails, in.limits)) {
    res.warnings.push_back("the plan itself crosses a red line: " + line);
  }
  res.evaluations = evaluations;
  return res;
}

}  // namespace aicost::optimize
