#include "aicost/governance/budget.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>

namespace aicost::governance {
namespace {

using core::ErrorCode;
using core::make_error;

std::chrono::year_month_day civil(ledger::Day d) {
  return std::chrono::year_month_day{std::chrono::sys_days{std::chrono::days{d}}};
}

ledger::Day day_of(std::chrono::year_month_day ymd) {
  return static_cast<ledger::Day>(std::chrono::sys_days{ymd}.time_since_epoch().count());
}

double units(core::WideNanos n) {
  return static_cast<double>(n) / static_cast<double>(core::kNanosPerUnit);
}

int level_reached(const std::vector<AlertLevel>& levels, double value, double amount) {
  int reached = -1;
  for (std::size_t i = 0; i < levels.size(); ++i)
    if (amount > 0 && value >= levels[i].fraction * amount) reached = static_cast<int>(i);
  return reached;
}

}  // namespace

const char* period_kind_name(PeriodKind k) {
  switch (k) {
    case PeriodKind::kMonth: return "month";
    case PeriodKind::kQuarter: return "quarter";
    case PeriodKind::kRun: return "run";
  }
  return "?";
}

const char* cost_basis_name(CostBasis b) {
  switch (b) {
    case CostBasis::kEffective: return "effective";
    case CostBasis::kBilled: return "billed";
    case CostBasis::kList: return "list";
  }
  return "?";
}

const char* basis_name(Basis b) { return b == Basis::kActual ? "actual" : "forecast"; }

std::vector<AlertLevel> default_levels() {
  return {{"yellow", 0.8, false}, {"red", 0.9, true}, {"breached", 1.0, true}};
}

core::Result<std::vector<Budget>> resolve_hierarchy(std::vector<Budget> budgets) {
  std::map<std::string, std::size_t> by_name;
  for (std::size_t i = 0; i < budgets.size(); ++i) {
    const Budget& b = budgets[i];
    if (b.name.empty())
      return make_error(ErrorCode::kInvalidInput, "a budget needs a name", b.source);
    if (!by_name.emplace(b.name, i).second)
      return make_error(ErrorCode::kInvalidInput, "budget '" + b.name + "' is defined twice",
                        b.source);
    if (b.amount <= 0)
      return make_error(ErrorCode::kInvalidInput, "budget '" + b.name + "' needs a positive amount",
                        b.source);
    if (b.levels.empty())
      return make_error(ErrorCode::kInvalidInput, "budget '" + b.name + "' has no alert levels",
                        b.source);
    for (std::size_t k = 0; k < b.levels.size(); ++k)
      if (b.levels[k].fraction <= 0 || (k > 0 && b.levels[k].fraction <= b.levels[k - 1].fraction))
        return make_error(ErrorCode::kInvalidInput,
                          "budget '" + b.name + "': alert levels must be positive and ascending",
                          b.source);
    if (b.period == PeriodKind::kRun) {
      if (!b.start)
        return make_error(ErrorCode::kInvalidInput,
                          "run budget '" + b.name + "' needs a start date", b.source);
      if (!b.end && !(b.plan && b.plan->wall_days > 0))
        return make_error(ErrorCode::kInvalidInput,
                          "run budget '" + b.name +
                              "' needs an end date or a plan that says how long the run lasts",
                          b.source);
      if (b.end && *b.end <= *b.start)
        return make_error(ErrorCode::kInvalidInput,
                          "run budget '" + b.name + "' ends before it starts", b.source);
    } else if (b.plan) {
      return make_error(ErrorCode::kInvalidInput,
                        "budget '" + b.name + "': a plan belongs to a run budget (period: run)",
                        b.source);
    }
  }
  // Depth of each budget (parents first), refusing unknown parents and cycles.
  std::vector<std::size_t> depth(budgets.size(), 0);
  for (std::size_t i = 0; i < budgets.size(); ++i) {
    for (const Budget* b = &budgets[i]; !b->parent.empty(); ++depth[i]) {
      const auto it = by_name.find(b->parent);
      if (it == by_name.end())
        return make_error(ErrorCode::kInvalidInput,
                          "budget '" + b->name + "' has an unknown parent '" + b->parent + "'",
                          b->source);
      if (depth[i] >= budgets.size())
        return make_error(ErrorCode::kInvalidInput,
                          "budget '" + budgets[i].name + "' is its own ancestor",
                          budgets[i].source);
      b = &budgets[it->second];
    }
  }
  std::vector<std::size_t> order(budgets.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return depth[a] < depth[b]; });
  std::vector<Budget> out;
  std::map<std::string, std::size_t> placed;
  for (std::size_t i : order) {
    Budget b = std::move(budgets[i]);
    if (!b.parent.empty()) {
      const Budget& parent = out[placed.at(b.parent)];
      if (parent.currency != b.currency)
        return make_error(ErrorCode::kInvalidInput,
                          "budget '" + b.name + "' is in " + b.currency + " but its parent '" +
                              parent.name + "' is in " + parent.currency,
                          b.source);
      b.scope.insert(b.scope.begin(), parent.scope.begin(), parent.scope.end());
    }
    placed[b.name] = out.size();
    out.push_back(std::move(b));
  }
  return out;
}

Period period_of(const Budget& b, ledger::Day as_of) {
  using namespace std::chrono;
  Period p;
  if (b.period == PeriodKind::kRun) {
    p.start = *b.start;
    p.end = b.end ? *b.end : p.start + static_cast<ledger::Day>(std::ceil(b.plan->wall_days));
    p.label = "run " + ledger::day_text(p.start) + ".." + ledger::day_text(p.end - 1);
    return p;
  }
  const auto ymd = civil(as_of);
  const unsigned month = static_cast<unsigned>(ymd.month());
  const unsigned first = b.period == PeriodKind::kMonth ? month : (month - 1) / 3 * 3 + 1;
  const auto start = year_month_day{ymd.year(), std::chrono::month{first}, day{1}};
  const auto end = start + months{b.period == PeriodKind::kMonth ? 1 : 3};
  p.start = day_of(start);
  p.end = day_of(end);
  char label[32];
  if (b.period == PeriodKind::kMonth)
    std::snprintf(label, sizeof label, "%04d-%02u", static_cast<int>(ymd.year()), month);
  else
    std::snprintf(label, sizeof label, "%04d-Q%u", static_cast<int>(ymd.year()),
                  (month - 1) / 3 + 1);
  p.label = label;
  return p;
}

BudgetStatus budget_status(const Budget& b, const Period& p, ledger::Day as_of,
                           core::WideNanos spent, const Forecast& f) {
  BudgetStatus s;
  s.period = p;
  s.spent = spent;
  s.forecast = f;
  s.used = units(spent) / units(b.amount);
  s.actual_level = level_reached(b.levels, units(spent), units(b.amount));
  if (as_of < p.end) s.forecast_level = level_reached(b.levels, f.expected, units(b.amount));
  return s;
}

bool BudgetStatus::gates(const Budget& b) const {
  for (int level : {actual_level, forecast_level})
    if (level >= 0 && b.levels[static_cast<std::size_t>(level)].gates) return true;
  return false;
}

std::string alert_key(const std::string& budget, const std::string& period, Basis basis,
                      const std::string& level) {
  return budget + "|" + period + "|" + basis_name(basis) + "|" + level;
}

std::string Alert::key() const { return alert_key(budget, period, basis, level.name); }

std::string Alert::message() const {
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.0f%%", level.fraction * 100);
  char value_text[64];
  std::snprintf(value_text, sizeof value_text, "%.2f", value);
  return "budget '" + budget + "' " + period + ": " +
         (basis == Basis::kActual ? "spent " : "forecast ") + value_text + " " + currency + " of " +
         core::format_amount(amount, 2) + " " + currency + " reaches " + level.name + " (" + pct +
         ")";
}

std::vector<Alert> due_alerts(const Budget& b, const BudgetStatus& s, ledger::Day as_of,
                              const std::set<std::string>& fired) {
  std::vector<Alert> out;
  for (Basis basis : {Basis::kActual, Basis::kForecast}) {
    const int reached = basis == Basis::kActual ? s.actual_level : s.forecast_level;
    // A forecast at or below the level the spend has reached says nothing new.
    if (reached < 0 || (basis == Basis::kForecast && reached <= s.actual_level)) continue;
    Alert a;
    a.budget = b.name;
    a.period = s.period.label;
    a.basis = basis;
    a.level = b.levels[static_cast<std::size_t>(reached)];
    a.amount = b.amount;
    a.value = basis == Basis::kActual ? units(s.spent) : s.forecast.expected;
    a.currency = b.currency;
    a.as_of = as_of;
    if (fired.count(a.key())) continue;
    for (int i = 0; i <= reached; ++i) {
      const auto& name = b.levels[static_cast<std::size_t>(i)].name;
      a.covers.push_back(alert_key(b.name, a.period, basis, name));
      if (basis == Basis::kActual)
        a.covers.push_back(alert_key(b.name, a.period, Basis::kForecast, name));
    }
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace aicost::governance
