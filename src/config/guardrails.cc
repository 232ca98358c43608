// --guardrails G.yaml: the red lines of aicost optimize.
#include "aicost/config/guardrails.h"

#include <iterator>

#include "aicost/config/catalog_loader.h"
#include "aicost/core/suggest.h"
#include "yaml_source.h"

namespace aicost::config {

using core::UnitKind;

core::Result<optimize::Guardrails> parse_guardrails(const std::string& text,
                                                    const std::string& origin) {
  const Source src = Source::from_text(origin, text);
  auto root = parse_yaml(src, text);
  if (!root) return root.error();
  optimize::Guardrails g;
  g.source = origin;
  if (root->IsNull()) return g;  // an empty file: the defaults
  MapReader top(*root, "", src);
  if (!root->IsMap()) return top.not_a_map();

  if (auto kinds = top.node("min_retention"); kinds && !kinds.IsNull()) {
    MapReader r(kinds, "min_retention", src);
    if (!kinds.IsMap()) return r.not_a_map();
    const std::vector<std::string> known(std::begin(optimize::kRetentionKinds),
                                         std::end(optimize::kRetentionKinds));
    for (const auto& kv : kinds) {
      const std::string kind = kv.first.Scalar();
      if (std::find(known.begin(), known.end(), kind) == known.end()) {
        return src.error(kv.first.Mark(), "unknown data kind '" + kind + "' in 'min_retention'." +
                                              core::did_you_mean(kind, known) +
                                              " Kinds: logs, checkpoints");
      }
      core::Seconds min(0);
      AICOST_TRY_STATUS(r.read(kind, UnitKind::kDuration, min));
      g.min_retention[kind] = min;
    }
  }
  if (top.has("max_recovery_time")) {
    core::Seconds v(0);
    AICOST_TRY_STATUS(top.read("max_recovery_time", UnitKind::kDuration, v, true));
    g.max_recovery = v;
  }
  if (top.has("min_mfu")) {
    double v = 0;
    TRY_ASSIGN(v, top.quantity("min_mfu", UnitKind::kPercent));
    if (v > 1)
      return src.error(top.node("min_mfu").Mark(), "min_mfu is a share of the peak, at most 100%");
    g.min_mfu = v;
  }
  if (top.has("max_data_stall")) {
    double v = 0;
    TRY_ASSIGN(v, top.quantity("max_data_stall", UnitKind::kPercent));
    if (v < 0 || v >= 1) {
      return src.error(top.node("max_data_stall").Mark(),
                       "max_data_stall is a share of the step time, at least 0% and below 100%");
    }
    g.max_data_stall = v;
  }
  std::optional<bool> security;
  TRY_ASSIGN(security, top.boolean("security_floor"));
  if (security && !*security) {
    return src.error(top.node("security_floor").Mark(),
                     "security_floor cannot be turned off: aicost never proposes cutting security "
                     "or audit spend");
  }
  std::optional<std::string> risk;
  TRY_ASSIGN(risk, top.string("max_risk"));
  if (risk) {
    auto level = optimize::risk_level_from_string(*risk);
    if (!level) {
      return src.error(top.node("max_risk").Mark(),
                       "max_risk must be low, medium or high, got '" + *risk + "'." +
                           core::did_you_mean(*risk, {"low", "medium", "high"}));
    }
    g.max_risk = *level;
  }
  TRY_ASSIGN(g.capacity_buffer, top.quantity("capacity_buffer", UnitKind::kPercent));
  if (g.capacity_buffer >= 1) {
    return src.error(top.node("capacity_buffer").Mark(), "capacity_buffer must be below 100%");
  }
  if (top.has("max_over_sla")) {
    double v = 0;
    TRY_ASSIGN(v, top.quantity("max_over_sla", UnitKind::kPercent));
    if (v < 0 || v >= 1) {
      return src.error(top.node("max_over_sla").Mark(),
                       "max_over_sla is a share of requests, at least 0% and below 100%");
    }
    g.max_over_sla = v;
  }
  // The change journal's limits (ledger::parse_guardrail's rules).
  if (top.has("max_cost_rise")) {
    double v = 0;
    TRY_ASSIGN(v, top.quantity("max_cost_rise", UnitKind::kPercent));
    if (v <= -1)
      return src.error(top.node("max_cost_rise").Mark(),
                       "max_cost_rise is a relative rise, above -100%");
    g.max_cost_rise = v;
  }
  if (top.has("min_gpu_activity")) {
    double v = 0;
    TRY_ASSIGN(v, top.quantity("min_gpu_activity", UnitKind::kPercent));
    if (v < 0 || v > 1) {
      return src.error(top.node("min_gpu_activity").Mark(),
                       "min_gpu_activity is a share of the time, 0% to 100%");
    }
    g.min_gpu_activity = v;
  }
  AICOST_TRY_STATUS(top.finish());
  return g;
}

core::Result<optimize::Guardrails> load_guardrails(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  return parse_guardrails(*text, path);
}

}  // namespace aicost::config
