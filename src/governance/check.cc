#include "aicost/governance/check.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "aicost/ledger/report.h"

namespace aicost::governance {
namespace {

double units(core::WideNanos n) { return static_cast<double>(n) / static_cast<double>(core::kNanosPerUnit); }

core::WideNanos cost_of(const ledger::Sums& s, CostBasis b) {
  switch (b) {
    case CostBasis::kEffective: return s.effective;
    case CostBasis::kBilled: return s.billed;
    case CostBasis::kList: return s.list;
  }
  return s.effective;
}

// The store's rows for `scope` by day over [from, to), with `dims` as extra grouping.
core::Result<std::vector<ledger::AggregateRow>> daily_rows(ledger::Store& store, const std::vector<ledger::Filter>& scope,
                                                           std::vector<ledger::GroupKey> by, ledger::Day from,
                                                           ledger::Day to, const CheckOptions& o) {
  ledger::ReportRequest r;
  r.aliases = o.aliases;
  r.by = std::move(by);
  r.filters = scope;
  r.granularity = ledger::Granularity::kDay;
  r.from = from;
  r.to = to;
  return store.aggregate(ledger::aggregate_query(r));
}

DailySeries to_series(const std::vector<std::pair<ledger::Day, core::WideNanos>>& exact) {
  DailySeries out;
  for (const auto& [day, nanos] : exact) out.push_back({day, units(nanos)});
  return out;
}

// Anomaly episodes of one scope and currency that touch the last lookback days, with root causes.
core::Result<std::vector<AnomalyResult>> scope_anomalies(ledger::Store& store, const std::string& name,
                                                         const std::vector<ledger::Filter>& scope,
                                                         const std::string& currency, CostBasis cost,
                                                         const CheckOptions& o, const std::set<std::string>& fired) {
  const ledger::Day first = o.as_of - o.anomaly_lookback_days - o.anomaly.window_days;
  auto spend = daily_spend(store, scope, currency, cost, first, o.as_of, o);
  if (!spend) return spend.error();
  std::vector<AnomalyResult> out;
  if (spend->empty()) return out;
  const auto series = dense(to_series(*spend), first, o.as_of - 1);
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
  auto rows = daily_rows(store, scope, {{o.root_cause, {}}}, first, o.as_of, o);
  if (!rows) return rows.error();
  std::map<std::string, DailySeries> by_value;
  for (const auto& r : *rows)
    if (r.currency == currency) by_value[r.values.at(0)].push_back({r.day, units(cost_of(r.sums, cost))});
  for (auto& [value, s] : by_value) s = dense(s, first, o.as_of - 1);
  for (auto& a : out) a.causes = rank_root_causes(by_value, a.episode.first_day, a.episode.last_day, o.anomaly);
  return out;
}

}  // namespace

core::Result<std::vector<std::pair<ledger::Day, core::WideNanos>>> daily_spend(
    ledger::Store& store, const std::vector<ledger::Filter>& scope, const std::string& currency, CostBasis cost,
    ledger::Day from, ledger::Day to, const CheckOptions& o) {
  auto rows = daily_rows(store, scope, {}, from, to, o);
  if (!rows) return rows.error();
  std::map<ledger::Day, core::WideNanos> by_day;
  for (const auto& r : *rows)
    if (r.currency == currency) by_day[r.day] += cost_of(r.sums, cost);
  return std::vector<std::pair<ledger::Day, core::WideNanos>>(by_day.begin(), by_day.end());
}

std::string AnomalyResult::key() const {
  return "anomaly|" + scope + "|" + currency + "|" + ledger::day_text(episode.first_day);
}

std::string WasteResult::key() const {
  return std::string("waste|") + waste_kind_name(finding.kind) + "|" + finding.subject + "|" + finding.currency;
}

std::string AnomalyResult::message() const {
  char text[160];
  std::snprintf(text, sizeof text, "%s %.2f %s (%+.0f%%) against %.2f expected", episode.increase ? "spend" : "drop to",
                episode.actual, currency.c_str(),
                episode.expected != 0 ? 100.0 * episode.impact / episode.expected : 0.0, episode.expected);
  std::string m = "anomaly in '" + scope + "' " + ledger::day_text(episode.first_day) +
                  (episode.last_day != episode.first_day ? ".." + ledger::day_text(episode.last_day) : "") + ": " +
                  text;
  if (!causes.empty()) {
    char cause[96];
    std::snprintf(cause, sizeof cause, " %+.2f", causes.front().delta);
    m += "; most of it: " + causes.front().value + cause;
  }
  return m;
}

core::Result<CheckResult> run_check(ledger::Store& store, const std::vector<Budget>& budgets,
                                    const CheckOptions& o, const std::set<std::string>& fired) {
  CheckResult out;
  out.as_of = o.as_of;
  std::map<std::string, core::WideNanos> child_amounts;
  for (const Budget& b : budgets) {
    const Period p = period_of(b, o.as_of);
    const ledger::Day history_from = std::min(p.start, o.as_of - o.forecast.history_days);
    auto spend = daily_spend(store, b.scope, b.currency, b.cost, history_from, std::min(o.as_of, p.end), o);
    if (!spend) return spend.error();
    core::WideNanos spent = 0;
    for (const auto& [day, nanos] : *spend)
      if (day >= p.start) spent += nanos;
    const DailySeries history = to_series(*spend);
    Forecast f;
    if (b.plan) {
      // Progress by GPU-hours: the plan's cost of the GPU-hours not yet used.
      auto rows = daily_rows(store, b.scope, {}, p.start, std::min(o.as_of, p.end), o);
      if (!rows) return rows.error();
      double gpu_hours = 0;
      for (const auto& r : *rows) gpu_hours += r.sums.gpu_hours;
      if (b.plan->gpu_hours > 0 && gpu_hours >= b.plan->gpu_hours) {
        // The run has outgrown its plan: the plan no longer says what is left.
        out.warnings.push_back("budget '" + b.name +
                               "': forecast from the spend's trend, since the run has used the GPU-hours its plan "
                               "needs");
        f = forecast_period(history, p.start, p.end, o.as_of, o.forecast);
      } else {
        const double left = b.plan->gpu_hours > 0 ? 1.0 - gpu_hours / b.plan->gpu_hours : 1.0;
        f = plan_forecast(history, p.start, p.end, o.as_of, b.plan->total_cost * left, b.plan->uncertainty);
      }
    } else {
      f = forecast_period(history, p.start, p.end, o.as_of, o.forecast);
    }
    BudgetResult r;
    r.budget = b;
    r.status = budget_status(b, p, o.as_of, spent, f);
    r.due = due_alerts(b, r.status, o.as_of, fired);
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
                             core::format_amount(it->second, 2) + " " + r.budget.currency + ") exceed its own (" +
                             core::format_amount(r.budget.amount, 2) + ") for the same kind of period");
  }

  // Anomalies: all spend per currency, then each budget's scope.
  std::set<std::string> currencies;
  {
    auto rows = daily_rows(store, {}, {}, o.as_of - o.anomaly_lookback_days, o.as_of, o);
    if (!rows) return rows.error();
    for (const auto& r : *rows) currencies.insert(r.currency);
  }
  for (const auto& c : currencies) {
    auto a = scope_anomalies(store, "ledger", {}, c, CostBasis::kEffective, o, fired);
    if (!a) return a.error();
    out.anomalies.insert(out.anomalies.end(), a->begin(), a->end());
  }
  for (const Budget& b : budgets) {
    if (b.scope.empty() && b.cost == CostBasis::kEffective) continue;  // the ledger's own series, checked above
    auto a = scope_anomalies(store, b.name, b.scope, b.currency, b.cost, o, fired);
    if (!a) return a.error();
    out.anomalies.insert(out.anomalies.end(), a->begin(), a->end());
  }
  auto waste = find_waste(store, o.waste, o.as_of, o.aliases);
  if (!waste) return waste.error();
  for (auto& f : *waste) {
    WasteResult w{std::move(f), false};
    w.sent_before = fired.count(w.key()) > 0;
    out.waste.push_back(std::move(w));
  }
  return out;
}

}  // namespace aicost::governance
