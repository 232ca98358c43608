// `aicost optimize -o json`: the levers, the red lines and the combined plan as JSON
// (docs/JSON_OUTPUT.md).
#include <optional>
#include <string>

#include "aicost/serving/fleet.h"
#include "json.h"
#include "optimize_parts.h"
#include "rounding.h"

namespace aicost::report {

namespace {

using optimize::LeverResult;
using optimize::LeverStatus;

bool applies(const LeverResult& r) { return r.status != LeverStatus::kNotApplicable; }

Json sla_json(const std::optional<optimize::SlaEffect>& e) {
  if (!e) return Json();
  return {{"ttft_tail_s", sig(e->ttft_tail_s)},
          {"ttft_tail_delta_s", sig(e->ttft_tail_delta_s)},
          {"tpot_s", sig(e->tpot_s)},
          {"tpot_delta_s", sig(e->tpot_delta_s)},
          {"over_sla_share", e->over_sla_share ? Json(sig(*e->over_sla_share)) : Json()},
          {"over_sla_delta", e->over_sla_delta ? Json(sig(*e->over_sla_delta)) : Json()},
          {"capacity_buffer", sig(e->capacity_buffer)},
          {"capacity_buffer_delta", sig(e->capacity_buffer_delta)}};
}

Json change_json(const optimize::Change& c) {
  Json j = Json::object();
  for (const auto& e : c) j[e.key] = e.value ? Json(*e.value) : Json();
  return j;
}

Json opt(const std::optional<double>& v, bool money) {
  if (!v) return Json();
  return money ? Json(cents(*v)) : Json(sig(*v));
}

}  // namespace

Json lever_json(const LeverResult& r) {
  Json j;
  j["id"] = r.id;
  j["category"] = r.category;
  if (!r.subject.empty()) j["subject"] = r.subject;
  j["applies"] = applies(r);
  j["status"] = optimize::to_string(r.status);
  j["why"] = r.why.empty() ? Json() : Json(r.why);
  j["saving_usd"] = opt(r.saving_usd, true);
  j["saving_pct"] = r.saving_pct ? Json(sig(*r.saving_pct * 100)) : Json();
  j["wall_days_delta"] = opt(r.wall_days_delta, false);
  j["total_usd"] = opt(r.total_usd, true);
  j["wall_days"] = opt(r.wall_days, false);
  j["mfu_bf16"] = opt(r.mfu_bf16, false);
  j["sla_effect"] = sla_json(r.sla_effect);
  if (evaluated(r)) {
    j["risk"] = {
        {"level", optimize::to_string(r.risk.level)}, {"kinds", r.risk.kinds}, {"why", r.risk.why}};
    j["red_line"] = {{"ok", r.red_line.ok}, {"why", r.red_line.ok ? Json() : Json(r.red_line.why)}};
  } else {
    j["risk"] = {{"level", Json()}, {"kinds", Json::array()}, {"why", Json()}};
    j["red_line"] = {{"ok", Json()}, {"why", Json()}};
  }
  j["change"] = change_json(r.change);
  auto text = [](const std::string& s) { return s.empty() ? Json() : Json(s); };
  j["validation"] = text(r.rollout.validation);
  j["metric"] = text(r.rollout.metric);
  j["stop_loss"] = text(r.rollout.stop_loss);
  j["notes"] = r.notes;
  return j;
}

Json guardrails_json(const optimize::Guardrails& g) {
  Json ret = Json::object();
  for (const auto& [kind, min] : g.min_retention) ret[kind + "_days"] = sig(core::in_days(min));
  return {{"source", g.source},
          {"min_retention", ret},
          {"max_recovery_h", g.max_recovery ? Json(sig(core::in_hours(*g.max_recovery))) : Json()},
          {"min_mfu", g.min_mfu ? Json(sig(*g.min_mfu)) : Json()},
          {"security_floor", g.security_floor},
          {"max_risk", optimize::to_string(g.max_risk)},
          {"capacity_buffer", sig(g.capacity_buffer)},
          {"max_over_sla", g.max_over_sla ? Json(sig(*g.max_over_sla)) : Json()},
          {"max_data_stall", sig(g.data_stall_limit())}};
}

std::string render_optimize_json(const optimize::OptimizeResult& res) {
  const auto& b = res.baseline;
  const auto& c = res.combined;
  Json j;
  j["schema_version"] = 1;
  j["plan"] = res.plan;
  j["kind"] = b.serving ? "serving" : "training";
  if (b.serving) {
    // A serving plan's total is a month (730 h) of its fleet; it has no wall time.
    const auto& sv = *b.serving;
    const auto& d = sv.deployment();
    const auto& r = sv.option().replica;
    j["baseline"] = {
        {"total_usd", cents(b.total_usd())},
        {"wall_days", Json()},
        {"period", "month"},
        {"deployment",
         {{"gpu", r.gpu.id},
          {"tensor_parallel_size", r.tensor_parallel},
          {"precision", catalog::to_string(r.weights)},
          {"max_batch", d.max_batch},
          {"replicas", d.replicas}}},
        {"policy", sv.fleet.run ? Json(sv.plan.policy.name) : Json()},
        {"ttft_tail_s", sig(d.load.ttft_tail.value())},
        {"tpot_s", sig(d.load.step.value())},
        {"over_sla_share", sv.fleet.run ? Json(sig(sv.fleet.run->over_sla_share)) : Json()},
        {"over_sla_limit", sig(optimize::over_sla_limit(b, res.guardrails))},
        {"capacity_buffer", sig(serving::capacity_buffer(sv.plan, sv.fleet))}};
  } else {
    j["baseline"] = {{"total_usd", cents(b.total_usd())},
                     {"wall_days", sig(b.wall_days())},
                     {"per_million_tokens_usd", cents(b.cost.per_million_tokens.value())},
                     {"mfu", sig(b.perf.mfu)},
                     {"mfu_bf16", sig(optimize::mfu_bf16(b))}};
  }
  j["guardrails"] = guardrails_json(res.guardrails);
  j["limits"] = {
      {"deadline_days", res.limits.deadline_days ? Json(sig(*res.limits.deadline_days)) : Json()},
      {"max_gpus", res.limits.max_gpus > 0 ? Json(res.limits.max_gpus) : Json()},
      {"memory_headroom", sig(res.limits.memory_headroom)}};
  j["levers"] = Json::array();
  for (const auto& r : res.levers) j["levers"].push_back(lever_json(r));
  Json steps = Json::array();
  for (const auto& s : c.steps) {
    steps.push_back({{"id", s.id},
                     {"retuned", s.retuned},
                     {"total_usd", cents(s.total_usd)},
                     {"saving_usd", cents(s.saving_usd)},
                     {"wall_days", b.serving ? Json() : Json(sig(s.wall_days))}});
  }
  Json skipped = Json::array();
  for (const auto& [id, why] : c.skipped) skipped.push_back({{"id", id}, {"why", why}});
  j["combined"] = {{"total_usd", cents(c.total_usd)},
                   {"wall_days", b.serving ? Json() : Json(sig(c.wall_days))},
                   {"sla_effect", sla_json(c.sla_effect)},
                   {"saving_usd", cents(c.saving_usd)},
                   {"saving_pct", sig(b.total_usd() > 0 ? 100 * c.saving_usd / b.total_usd() : 0)},
                   {"sum_of_savings_usd", cents(c.sum_of_savings)},
                   {"risk", optimize::to_string(c.risk)},
                   {"levers", c.levers},
                   {"steps", steps},
                   {"skipped", skipped},
                   {"change", change_json(c.change)}};
  j["warnings"] = res.warnings;
  j["estimates"] = res.evaluations;
  return json_text(j) + "\n";
}

}  // namespace aicost::report
