#include "aicost/config/budgets.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <filesystem>

#include "aicost/config/catalog_loader.h"
#include "aicost/core/amount.h"
#include "aicost/core/units.h"
#include "aicost/ledger/query.h"
#include "yaml_source.h"

namespace aicost::config {
namespace {

using core::UnitKind;
namespace gov = aicost::governance;

// "30000 USD", "1.5e4 EUR": an exact amount and an ISO 4217 code.
core::Status read_amount(MapReader& r, const std::string& key, gov::Budget& b) {
  auto text = r.string(key);
  if (!text) return text.error();
  if (!*text)
    return r.source().error(r.self().Mark(),
                            "budget '" + b.name + "' needs an 'amount', as in 30000 USD");
  const std::string& t = **text;
  const auto space = t.find_last_of(' ');
  const std::string number = space == std::string::npos ? t : t.substr(0, space);
  const std::string currency = space == std::string::npos ? "" : t.substr(space + 1);
  const auto parsed = core::parse_amount(number);
  const bool code =
      (currency.size() == 3 && std::all_of(currency.begin(), currency.end(),
                                           [](unsigned char c) { return std::isupper(c) != 0; })) ||
      currency == gov::kGpuHours;
  if (!parsed || !code)
    return r.source().error(r.node(key).Mark(),
                            "'" + key +
                                "' must be a number and a currency code, as in '30000 USD', or "
                                "GPU-hours, as in '5000 GPU-h'; got '" +
                                t + "'");
  b.amount = parsed->nanos;
  b.currency = currency;
  return {};
}

core::Result<ledger::Day> read_day(MapReader& r, const std::string& key) {
  const YAML::Node n = r.node(key);
  auto day = ledger::parse_day(n.Scalar());
  if (!day) return r.source().error(n.Mark(), "'" + key + "': " + day.error().message);
  return day;
}

// alerts: [80%, 90%, 100%] or [{name: yellow, at: 80%, gate: false}, ...].
core::Status read_levels(MapReader& r, gov::Budget& b) {
  const YAML::Node n = r.node("alerts");
  if (!n || n.IsNull()) return {};
  if (!n.IsSequence())
    return r.source().error(n.Mark(), "'alerts' must be a list, as in [80%, 90%, 100%]");
  const auto defaults = gov::default_levels();
  b.levels.clear();
  for (const auto& e : n) {
    gov::AlertLevel level;
    std::string at;
    std::optional<bool> gate;
    if (e.IsMap()) {
      MapReader m(e, "alerts", r.source());
      std::optional<std::string> at_text;
      TRY_ASSIGN(level.name, m.string("name"));
      TRY_ASSIGN(at_text, m.string("at"));
      TRY_ASSIGN(gate, m.boolean("gate"));
      AICOST_TRY_STATUS(m.finish());
      if (!at_text) return r.source().error(e.Mark(), "an alert level needs 'at', as in 'at: 80%'");
      at = *at_text;
    } else {
      at = e.Scalar();
    }
    auto fraction = core::parse_base_units(at, UnitKind::kPercent);
    if (!fraction)
      return r.source().error(e.Mark(),
                              "an alert level must be a percentage, as in 80%; got '" + at + "'");
    level.fraction = *fraction;
    level.gates = gate.value_or(level.fraction >= 0.9);
    if (level.name.empty()) {
      for (const auto& d : defaults)
        if (std::abs(d.fraction - level.fraction) < 1e-9) level.name = d.name;
      if (level.name.empty())
        level.name = std::to_string(static_cast<int>(std::lround(level.fraction * 100))) + "%";
    }
    b.levels.push_back(level);
  }
  return {};
}

// scope: {service: ..., tag:team: ...}: FOCUS dimensions and tags, each an exact value.
core::Status read_scope(MapReader& r, gov::Budget& b) {
  const YAML::Node n = r.node("scope");
  if (!n || n.IsNull()) return {};
  if (!n.IsMap())
    return r.source().error(n.Mark(), "'scope' must map dimensions or tag:KEY to values");
  for (const auto& kv : n) {
    auto key = ledger::parse_group_key(kv.first.Scalar());
    if (!key) return r.source().error(kv.first.Mark(), key.error().message);
    if (!kv.second.IsScalar())
      return r.source().error(kv.second.Mark(),
                              "the scope value of '" + kv.first.Scalar() + "' must be one value");
    b.scope.push_back({*key, kv.second.Scalar()});
  }
  return {};
}

core::Result<gov::Budget> read_budget(const YAML::Node& n, const Source& src,
                                      const std::string& dir) {
  MapReader r(n, "budgets", src);
  if (!n.IsMap()) return r.not_a_map();
  gov::Budget b;
  b.source = src.where(n.Mark());
  TRY_ASSIGN(b.name, r.string("name"));
  TRY_ASSIGN(b.parent, r.string("parent"));
  AICOST_TRY_STATUS(read_amount(r, "amount", b));
  std::optional<std::string> period, cost, plan;
  TRY_ASSIGN(period, r.string("period"));
  if (period) {
    if (*period == "month")
      b.period = gov::PeriodKind::kMonth;
    else if (*period == "quarter")
      b.period = gov::PeriodKind::kQuarter;
    else if (*period == "run")
      b.period = gov::PeriodKind::kRun;
    else
      return src.error(r.node("period").Mark(),
                       "'period' must be month, quarter or run; got '" + *period + "'");
  }
  TRY_ASSIGN(cost, r.string("cost"));
  if (cost) {
    if (*cost == "effective")
      b.cost = gov::CostBasis::kEffective;
    else if (*cost == "billed")
      b.cost = gov::CostBasis::kBilled;
    else if (*cost == "list")
      b.cost = gov::CostBasis::kList;
    else
      return src.error(r.node("cost").Mark(),
                       "'cost' must be effective, billed or list; got '" + *cost + "'");
  }
  if (r.has("start")) {
    auto d = read_day(r, "start");
    if (!d) return d.error();
    b.start = *d;
  }
  if (r.has("end")) {  // the run's last day, inclusive
    auto d = read_day(r, "end");
    if (!d) return d.error();
    b.end = *d + 1;
  }
  TRY_ASSIGN(plan, r.string("plan"));
  if (plan) {
    std::filesystem::path file(*plan);
    if (file.is_relative()) file = std::filesystem::path(dir) / file;
    auto line = load_plan_line(file.string());
    if (!line) return src.error(r.node("plan").Mark(), line.error().message);
    b.plan = *line;
  }
  if (r.has("efficiency_floor")) {
    auto floor = r.quantity("efficiency_floor", UnitKind::kPercent);
    if (!floor) return floor.error();
    if (!b.plan)
      return src.error(r.node("efficiency_floor").Mark(),
                       "'efficiency_floor' belongs to a run budget with a 'plan'");
    b.efficiency_floor = **floor;
  }
  AICOST_TRY_STATUS(read_levels(r, b));
  AICOST_TRY_STATUS(read_scope(r, b));
  AICOST_TRY_STATUS(r.finish());
  return b;
}

core::Status read_options(MapReader& top, gov::CheckOptions& o) {
  MapReader a(top.node("anomalies"), "anomalies", top.source());
  if (a.self() && !a.self().IsNull()) {
    if (!a.self().IsMap()) return a.not_a_map();
    auto days = [&](const std::string& key, int& out) -> core::Status {
      auto v = a.quantity(key, UnitKind::kDuration);
      if (!v) return v.error();
      if (*v) out = static_cast<int>(std::lround(**v / 86400.0));
      if (*v && out < 1)
        return a.source().error(a.node(key).Mark(), "'" + key + "' must be at least 1d");
      return {};
    };
    AICOST_TRY_STATUS(days("window", o.anomaly.window_days));
    AICOST_TRY_STATUS(days("min_history", o.anomaly.min_history_days));
    AICOST_TRY_STATUS(days("lookback", o.anomaly_lookback_days));
    TRY_ASSIGN(o.anomaly.relative_threshold, a.quantity("relative", UnitKind::kPercent));
    TRY_ASSIGN(o.anomaly.k_sigma, a.quantity("k_sigma", UnitKind::kCount));
    TRY_ASSIGN(o.anomaly.min_impact, a.quantity("min_impact", UnitKind::kMoney));
    TRY_ASSIGN(o.anomaly.weekly, a.boolean("weekly"));
    std::optional<std::string> by;
    TRY_ASSIGN(by, a.string("root_cause"));
    if (by) {
      auto key = ledger::parse_group_key(*by);
      if (!key || key->dim == ledger::Dimension::kTag)
        return a.source().error(
            a.node("root_cause").Mark(),
            "'root_cause' must be a dimension such as service or region; got '" + *by + "'");
      o.root_cause = key->dim;
    }
    AICOST_TRY_STATUS(a.finish());
  }
  MapReader w(top.node("waste"), "waste", top.source());
  if (w.self() && !w.self().IsNull()) {
    if (!w.self().IsMap()) return w.not_a_map();
    auto& x = o.waste;
    auto days = [&](const std::string& key, int& out) -> core::Status {
      auto v = w.quantity(key, UnitKind::kDuration);
      if (!v) return v.error();
      if (*v) out = static_cast<int>(std::lround(**v / 86400.0));
      if (*v && out < 1)
        return w.source().error(w.node(key).Mark(), "'" + key + "' must be at least 1d");
      return {};
    };
    auto list = [&](const std::string& key, std::vector<std::string>& out) -> core::Status {
      const YAML::Node n = w.node(key);
      if (!n || n.IsNull()) return {};
      if (!n.IsSequence())
        return w.source().error(n.Mark(), "'" + key + "' must be a list, as in [team, project]");
      out.clear();
      for (const auto& e : n) out.push_back(e.Scalar());
      return {};
    };
    AICOST_TRY_STATUS(days("window", x.window_days));
    AICOST_TRY_STATUS(days("ttl", x.ttl.ttl_days));
    AICOST_TRY_STATUS(days("log_retention", x.logs.retention_days));
    AICOST_TRY_STATUS(list("required_tags", x.required_tags));
    AICOST_TRY_STATUS(list("content_tags", x.content_tags));
    AICOST_TRY_STATUS(list("dev_values", x.ttl.dev_values));
    TRY_ASSIGN(x.fleet_tag, w.string("fleet_tag"));
    TRY_ASSIGN(x.idle.idle_below, w.quantity("idle_below", UnitKind::kPercent));
    auto idle_hours = w.quantity("idle_for", UnitKind::kDuration);
    if (!idle_hours) return idle_hours.error();
    if (*idle_hours)
      x.idle.min_hours = std::max(1, static_cast<int>(std::lround(**idle_hours / 3600.0)));
    TRY_ASSIGN(x.untagged.max_share, w.quantity("max_untagged", UnitKind::kPercent));
    TRY_ASSIGN(x.storage.max_monthly_growth, w.quantity("max_storage_growth", UnitKind::kPercent));
    TRY_ASSIGN(x.commitments.min_unused_share,
               w.quantity("max_unused_commitment", UnitKind::kPercent));
    TRY_ASSIGN(x.fleets.low_below, w.quantity("fleet_low_below", UnitKind::kPercent));
    TRY_ASSIGN(x.fleets.target, w.quantity("fleet_target", UnitKind::kPercent));
    AICOST_TRY_STATUS(w.finish());
  }
  MapReader f(top.node("forecast"), "forecast", top.source());
  if (f.self() && !f.self().IsNull()) {
    if (!f.self().IsMap()) return f.not_a_map();
    auto history = f.quantity("history", UnitKind::kDuration);
    if (!history) return history.error();
    if (*history)
      o.forecast.history_days = std::max(1, static_cast<int>(std::lround(**history / 86400.0)));
    TRY_ASSIGN(o.forecast.interval, f.quantity("interval", UnitKind::kPercent));
    TRY_ASSIGN(o.forecast.weekly, f.boolean("weekly"));
    AICOST_TRY_STATUS(f.finish());
  }
  return {};
}

}  // namespace

core::Result<governance::PlanLine> load_plan_line(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  const auto j = nlohmann::json::parse(*text, nullptr, false);
  auto number = [&](const char* section, const char* key) -> std::optional<double> {
    if (!j.is_object() || !j.contains(section) || !j[section].is_object()) return std::nullopt;
    const auto& s = j[section];
    if (!s.contains(key) || !s[key].is_number()) return std::nullopt;
    return s[key].get<double>();
  };
  const auto cost = number("cost", "total_usd"), hours = number("training", "gpu_hours"),
             days = number("training", "wall_days"), mfu = number("training", "mfu");
  if (!cost || !hours || !days)
    return core::make_error(core::ErrorCode::kInvalidInput,
                            "not an estimate from 'aicost estimate -o json' (needs cost.total_usd, "
                            "training.gpu_hours and training.wall_days)",
                            path);
  governance::PlanLine p;
  p.source = path;
  p.total_cost = *cost;
  p.gpu_hours = *hours;
  p.wall_days = *days;
  p.mfu = mfu.value_or(0);
  if (j["cost"].contains("categories") && j["cost"]["categories"].is_object())
    for (const auto& [name, value] : j["cost"]["categories"].items())
      if (value.is_number()) p.categories[name] = value.get<double>();
  return p;
}

core::Result<BudgetFile> load_budgets(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  const Source src = Source::from_text(path, *text);
  auto root = parse_yaml(src, *text);
  if (!root) return root.error();
  MapReader top(*root, "", src);
  if (!root->IsMap()) return top.not_a_map();
  BudgetFile out;
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const YAML::Node list = top.node("budgets");
  if (!list || !list.IsSequence() || list.size() == 0)
    return src.error(root->Mark(), "the file has no 'budgets' list");
  std::vector<governance::Budget> budgets;
  for (const auto& n : list) {
    auto b = read_budget(n, src, dir.empty() ? "." : dir);
    if (!b) return b.error();
    budgets.push_back(std::move(*b));
  }
  const YAML::Node aliases = top.node("aliases");
  if (aliases && !aliases.IsNull()) {
    if (!aliases.IsMap())
      return src.error(aliases.Mark(), "'aliases' must map a tag key to a list of keys");
    for (const auto& kv : aliases) {
      auto& keys = out.options.aliases[ledger::canonical_tag_key(kv.first.Scalar())];
      for (const auto& k : kv.second.IsSequence()
                               ? kv.second
                               : YAML::Node(std::vector<std::string>{kv.second.Scalar()}))
        keys.push_back(ledger::canonical_tag_key(k.Scalar()));
    }
  }
  AICOST_TRY_STATUS(read_options(top, out.options));
  AICOST_TRY_STATUS(top.finish());
  auto resolved = governance::resolve_hierarchy(std::move(budgets));
  if (!resolved) return resolved.error();
  out.budgets = std::move(*resolved);
  return out;
}

}  // namespace aicost::config
