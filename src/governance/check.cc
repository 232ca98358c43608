#include "aicost/governance/check.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "aicost/ledger/report.h"

namespace aicost::governance {
namespace {

double units(core::WideNanos n) {
  return static_cast<double>(n) / static_cast<double>(core::kNanosPerUnit);
}

core::WideNanos cost_of(const ledger::Sums& s, CostBasis b) {
  switch (b) {
    case CostBasis::kEffective: return s.effective;
    case CostBasis::kBilled: return s.billed;
    case CostBasis::kList: return s.list;
  }
  return s.effective;
}

using Scope = std::vector<ledger::Filter>;

// Spend by day and by every dimension and tag key the scopes filter on, plus the root-cause
// dimension, read from the store once; a scope's series is then a pass over these rows (filters
// on one key OR together, different keys AND, as the store reads them). One query instead of
// two per budget: over 10M charges each costs a scan of the daily rollup.
class Cube {
 public:
  static core::Result<Cube> load(ledger::Store& store, const std::vector<const Scope*>& scopes,
                                 ledger::Dimension root_cause, ledger::Day from, ledger::Day to,
                                 const std::map<std::string, std::vector<std::string>>& aliases) {
    Cube c;
    c.dims_.push_back(root_cause);
    for (const Scope* s : scopes)
      for (const auto& f : *s) {
        if (f.key.dim == ledger::Dimension::kTag) {
          if (std::find(c.tags_.begin(), c.tags_.end(), f.key.tag_key) == c.tags_.end())
            c.tags_.push_back(f.key.tag_key);
        } else if (std::find(c.dims_.begin(), c.dims_.end(), f.key.dim) == c.dims_.end()) {
          c.dims_.push_back(f.key.dim);
        }
      }
    ledger::AggregateQuery q;
    q.dims = c.dims_;
    for (const auto& t : c.tags_) {
      ledger::TagKey key{t, {}};
      if (auto it = aliases.find(t); it != aliases.end()) key.aliases = it->second;
      q.tags.push_back(std::move(key));
    }
    q.by_day = true;
    q.from = from;
    q.to = to;
    auto rows = store.aggregate(q);
    if (!rows) return rows.error();
    c.rows_ = std::move(*rows);
    return c;
  }

  // Calls visit(row) for the rows of `scope` in `currency` over [from, to); a GPU-hour budget's
  // "currency" (kGpuHours) takes the rows of every currency.
  template <class Visit>
  void each(const Scope& scope, const std::string& currency, ledger::Day from, ledger::Day to,
            Visit&& visit) const {
    const bool any_currency = currency == kGpuHours;
    for (const auto& r : rows_)
      if ((any_currency || r.currency == currency) && r.day >= from && r.day < to &&
          matches(r, scope))
        visit(r);
  }
  // What a budget in `currency` counts of a row: its cost, or its GPU-hours in nano-units.
  static core::WideNanos amount_of(const ledger::Sums& s, const std::string& currency,
                                   CostBasis cost) {
    if (currency == kGpuHours)
      return static_cast<core::WideNanos>(
          std::llround(s.gpu_hours * static_cast<double>(core::kNanosPerUnit)));
    return cost_of(s, cost);
  }
  std::vector<std::pair<ledger::Day, core::WideNanos>> daily(const Scope& scope,
                                                             const std::string& currency,
                                                             CostBasis cost, ledger::Day from,
                                                             ledger::Day to) const {
    std::map<ledger::Day, core::WideNanos> by_day;
    each(scope, currency, from, to, [&](const ledger::AggregateRow& r) {
      by_day[r.day] += amount_of(r.sums, currency, cost);
    });
    return {by_day.begin(), by_day.end()};
  }
  // Daily series per value of the root-cause dimension, every day of [from, to).
  std::map<std::string, DailySeries> by_root_cause(const Scope& scope, const std::string& currency,
                                                   CostBasis cost, ledger::Day from,
                                                   ledger::Day to) const {
    std::map<std::string, DailySeries> out;
    each(scope, currency, from, to, [&](const ledger::AggregateRow& r) {
      out[r.values[0]].push_back({r.day, units(amount_of(r.sums, currency, cost))});
    });
    for (auto& [value, s] : out) s = dense(s, from, to - 1);
    return out;
  }
  double gpu_hours(const Scope& scope, const std::string& currency, ledger::Day from,
                   ledger::Day to) const {
    double h = 0;
    each(scope, currency, from, to, [&](const ledger::AggregateRow& r) { h += r.sums.gpu_hours; });
    return h;
  }
  // The currencies of the scope's rows over [from, to).
  std::set<std::string> currencies(const Scope& scope, ledger::Day from, ledger::Day to) const {
    std::set<std::string> out;
    for (const auto& r : rows_)
      if (r.day >= from && r.day < to && matches(r, scope)) out.insert(r.currency);
    return out;
  }
  std::set<std::string> currencies(ledger::Day from) const {
    std::set<std::string> out;
    for (const auto& r : rows_)
      if (r.day >= from) out.insert(r.currency);
    return out;
  }

 private:
  std::size_t position(const ledger::GroupKey& k) const {
    if (k.dim == ledger::Dimension::kTag)
      return dims_.size() + static_cast<std::size_t>(
                                std::find(tags_.begin(), tags_.end(), k.tag_key) - tags_.begin());
    return static_cast<std::size_t>(std::find(dims_.begin(), dims_.end(), k.dim) - dims_.begin());
  }
  bool matches(const ledger::AggregateRow& r, const Scope& scope) const {
    for (const auto& f : scope) {
      bool any = false;
      for (const auto& g : scope)
        if (g.key == f.key) any |= r.values[position(g.key)] == g.value;
      if (!any) return false;
    }
    return true;
  }

  std::vector<ledger::Dimension> dims_;
  std::vector<std::string> tags_;
  std::vector<ledger::AggregateRow> rows_;
};

DailySeries to_series(const std::vector<std::pair<ledger::Day, core::WideNanos>>& exact) {
  DailySeries out;
  for (const auto& [day, nanos] : exact) out.push_back({day, units(nanos)});
  return out;
}

// Anomaly episodes of one scope and currency that touch the last lookback days, with root causes.
std::vector<AnomalyResult> scope_anomalies(const Cube& cube, const std::string& name,
                                           const Scope& scope, const std::string& currency,
                                           CostBasis cost, const CheckOptions& o,
                                           const std::set<std::string>& fired) {
  const ledger::Day first = o.as_of - o.anomaly_lookback_days - o.anomaly.window_days;
  const auto spend = cube.daily(scope, currency, cost, first, o.as_of);
  std::vector<AnomalyResult> out;
  if (spend.empty()) return out;
  const auto series = dense(to_series(spend), first, o.as_of - 1);
  for (const auto& episode : detect_anomalies(series, o.anomaly)) {
    if (episode.last_day < o.as_of - o.anomaly_lookback_days) continue;
    AnomalyResult a;
    a.scope = name;
    a.currency = currency;
    a.episode = episode;
    a.sent_before = fired.count(a.key()) > 0;
    out.push_back(std::move(a));
  }
  if (out.empty()) return out;
  const auto by_value = cube.by_root_cause(scope, currency, cost, first, o.as_of);
  for (auto& a : out)
    a.causes = rank_root_causes(by_value, a.episode.first_day, a.episode.last_day, o.anomaly);
  return out;
}

// The newest day with a charge before as_of (one row per currency from the daily rollup).
core::Result<std::optional<ledger::Day>> newest_day(ledger::Store& store, ledger::Day as_of) {
  ledger::AggregateQuery q;
  q.to = as_of;
  auto rows = store.aggregate(q);
  if (!rows) return rows.error();
  std::optional<ledger::Day> out;
  for (const auto& r : *rows)
    if (r.sums.rows > 0) out = std::max(out.value_or(r.sums.last_day), r.sums.last_day);
  return out;
}

// Missing or stale data makes every budget look green: say so, and fail the gate under --strict.
// `newest`: the newest day with a charge before as_of (newest_day).
void check_freshness(std::optional<ledger::Day> newest, const std::vector<Budget>& budgets,
                     const Cube& cube, const CheckOptions& o, CheckResult& out) {
  out.data_through = newest;
  const std::string strict = o.strict ? " (--strict: the gate fails)" : "";
  if (!newest) {
    out.data_stale = true;
    out.warnings.push_back(
        "the ledger has no charges before " + ledger::day_text(o.as_of) +
        ": nothing was checked; load billing exports with `aicost ledger ingest`" + strict);
  } else if (const int age = (o.as_of - 1) - *newest; age >= o.stale_after_days) {
    out.data_stale = true;
    out.warnings.push_back(
        "the newest charge is from " + ledger::day_text(*newest) + ", " + std::to_string(age) +
        " days before " + ledger::day_text(o.as_of - 1) + " (stale after " +
        std::to_string(o.stale_after_days) +
        " days): exports may have stopped arriving; spend since is not in the actuals, and the "
        "forecasts project it from the days before" +
        strict);
  }
  // A scope with nothing while the ledger has charges in the same days: a filter that matches
  // nothing (a typo) or a team whose exports are missing. (When the ledger has nothing in the
  // period at all, the warning above already says so.)
  for (const Budget& b : budgets) {
    const Period p = period_of(b, o.as_of);
    if (!newest || *newest < p.start || p.start >= o.as_of) continue;
    const auto found = cube.currencies(b.scope, p.start, std::min(o.as_of, p.end));
    if (found.empty()) {
      out.data_stale = true;
      out.warnings.push_back(
          "budget '" + b.name + "': no charge in its scope in " + p.label +
          " so far: check its scope's filters against `aicost ledger report`, or the exports" +
          strict);
    } else if (b.currency != kGpuHours && !found.count(b.currency)) {
      // A budget in a currency its charges are not in counts nothing: 0 spent and "ok" forever.
      std::string in;
      for (const auto& c : found) in.append(in.empty() ? "" : ", ").append(c);
      out.data_stale = true;
      out.warnings.push_back("budget '" + b.name + "' is in " + b.currency +
                             " but its scope's charges in " + p.label + " are in " + in +
                             ", so it counts nothing: give its amount in " +
                             (found.size() == 1 ? in : "one of them") + strict);
    }
  }
  if (o.strict && out.data_stale) out.gate_failed = true;
}

// Days of history a forecast reads before the day after the newest one with data: the days it
// fits, and before them a window for the robust fit's anomaly detector, so that the first fitted
// days are judged too.
int forecast_lookback(const CheckOptions& o) {
  return std::max(o.forecast.history_days, 1) +
         (o.forecast.robust ? std::max(o.anomaly.window_days, 1) : 0);
}

}  // namespace

core::Result<CheckResult> run_check(ledger::Store& store, const std::vector<Budget>& budgets,
                                    const CheckOptions& o, const std::set<std::string>& fired) {
  CheckResult out;
  out.as_of = o.as_of;
  out.forecast_interval = o.forecast.interval;
  // Billing exports arrive days late: the days after the newest one with data are not known yet,
  // so the forecasts fit the days up to it and project the rest (forecast_period's data_through).
  auto newest = newest_day(store, o.as_of);
  if (!newest) return newest.error();
  const ledger::Day known_end =
      *newest ? std::min(o.as_of, static_cast<ledger::Day>(**newest + 1)) : o.as_of;
  // One read of the ledger for every budget's history and the anomalies' windows.
  const Scope everything;
  std::vector<const Scope*> scopes{&everything};
  ledger::Day from = o.as_of - o.anomaly_lookback_days - o.anomaly.window_days;
  for (const Budget& b : budgets) {
    scopes.push_back(&b.scope);
    from = std::min({from, period_of(b, o.as_of).start, known_end - forecast_lookback(o)});
  }
  auto cube = Cube::load(store, scopes, o.root_cause, from, o.as_of, o.aliases);
  if (!cube) return cube.error();

  // The robust forecast judges its days with the budget file's anomaly detector.
  ForecastOptions forecast_options = o.forecast;
  forecast_options.anomaly = o.anomaly;
  std::map<std::string, core::WideNanos> child_amounts;
  for (const Budget& b : budgets) {
    const Period p = period_of(b, o.as_of);
    const ledger::Day history_from = std::min(p.start, known_end - forecast_lookback(o));
    const auto spend =
        cube->daily(b.scope, b.currency, b.cost, history_from, std::min(o.as_of, p.end));
    core::WideNanos spent = 0;
    std::vector<std::pair<ledger::Day, core::WideNanos>> daily;
    for (const auto& [day, nanos] : spend)
      if (day >= p.start) {
        spent += nanos;
        daily.emplace_back(day, nanos);
      }
    const DailySeries history = to_series(spend);
    Forecast f;
    if (b.plan) {
      // Progress by GPU-hours: the plan's cost of the GPU-hours not yet used.
      const double gpu_hours =
          cube->gpu_hours(b.scope, b.currency, p.start, std::min(o.as_of, p.end));
      if (b.plan->gpu_hours > 0 && gpu_hours >= b.plan->gpu_hours) {
        // The run has outgrown its plan: the plan no longer says what is left.
        out.warnings.push_back(
            "budget '" + b.name +
            "': forecast from the spend's trend, since the run has used the GPU-hours its plan "
            "needs");
        f = forecast_period(history, p.start, p.end, o.as_of, forecast_options, *newest);
      } else {
        const double left = b.plan->gpu_hours > 0 ? 1.0 - gpu_hours / b.plan->gpu_hours : 1.0;
        f = plan_forecast(history, p.start, p.end, o.as_of, b.plan->total_cost * left,
                          b.plan->uncertainty);
      }
    } else {
      f = forecast_period(history, p.start, p.end, o.as_of, forecast_options, *newest);
    }
    BudgetResult r;
    r.budget = b;
    r.status = budget_status(b, p, o.as_of, spent, f);
    r.due = due_alerts(b, r.status, o.as_of, fired);
    r.daily = std::move(daily);
    out.gate_failed |= r.status.gates(b);
    if (!b.parent.empty()) child_amounts[b.parent + "|" + period_kind_name(b.period)] += b.amount;
    out.budgets.push_back(std::move(r));
    if (b.plan) {
      auto pva = plan_vs_actual(store, b, o.as_of, o.aliases);
      if (!pva) return pva.error();
      out.warnings.insert(out.warnings.end(), pva->warnings.begin(), pva->warnings.end());
      out.plans.push_back(std::move(*pva));
    }
  }
  for (const auto& r : out.budgets) {
    const auto it = child_amounts.find(r.budget.name + "|" + period_kind_name(r.budget.period));
    if (it != child_amounts.end() && it->second > r.budget.amount)
      out.warnings.push_back("budget '" + r.budget.name + "': its children's amounts (" +
                             core::format_amount(it->second, 2) + " " + r.budget.currency +
                             ") exceed its own (" + core::format_amount(r.budget.amount, 2) +
                             ") for the same kind of period");
  }

  // Anomalies: all spend per currency, then each budget's scope.
  for (const auto& c : cube->currencies(o.as_of - o.anomaly_lookback_days)) {
    auto a = scope_anomalies(*cube, "ledger", everything, c, CostBasis::kEffective, o, fired);
    out.anomalies.insert(out.anomalies.end(), a.begin(), a.end());
  }
  for (const Budget& b : budgets) {
    if (b.scope.empty() && b.cost == CostBasis::kEffective)
      continue;  // the ledger's own series, checked above
    auto a = scope_anomalies(*cube, b.name, b.scope, b.currency, b.cost, o, fired);
    out.anomalies.insert(out.anomalies.end(), a.begin(), a.end());
  }
  check_freshness(*newest, budgets, *cube, o, out);
  auto waste = find_waste(store, o.waste, o.as_of, o.aliases);
  if (!waste) return waste.error();
  for (auto& f : *waste) {
    WasteResult w{std::move(f), false};
    w.sent_before = fired.count(w.key()) > 0;
    out.waste.push_back(std::move(w));
  }
  ChangeOptions co;
  co.as_of = o.as_of;
  co.window_days = o.change_window_days;
  co.guardrails = o.change_guardrails;
  auto changes = evaluate_changes(store, co);
  if (!changes) return changes.error();
  for (auto& c : *changes) {
    if (c.verdict != Verdict::kStopLoss) continue;
    StopLossResult s{std::move(c), false};
    s.sent_before = fired.count(s.key()) > 0;
    out.stop_losses.push_back(std::move(s));
    out.gate_failed = true;
  }
  return out;
}

}  // namespace aicost::governance
