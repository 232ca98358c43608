// Budgets as code: a scope (tag and dimension filters), a period, an amount, and alert levels on
// actual and on forecast spend; hierarchies (org -> team -> project) whose children inherit their
// parent's scope. Alerts fire once per budget, period, basis and level: the caller keeps the keys
// of the alerts already sent (alert_key) and due_alerts leaves those out.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "aicost/core/amount.h"
#include "aicost/core/result.h"
#include "aicost/governance/forecast.h"
#include "aicost/ledger/query.h"

namespace aicost::governance {

enum class PeriodKind { kMonth, kQuarter, kRun };
enum class CostBasis { kEffective, kBilled, kList };  // which FOCUS cost column the budget counts
enum class Basis { kActual, kForecast };              // what an alert compares with the amount

// The unit of a GPU-hour budget (`amount: 5000 GPU-h`), held where a money budget holds its
// currency: such a budget counts the GPU-hours of its scope's rows whatever their currency, in
// nano-units like money (on-prem accounts are granted GPU-hours, not money).
inline constexpr std::string_view kGpuHours = "GPU-h";

const char* period_kind_name(PeriodKind k);  // "month", "quarter", "run"
const char* cost_basis_name(CostBasis b);    // "effective", "billed", "list"
const char* basis_name(Basis b);             // "actual", "forecast"

struct AlertLevel {
  std::string name;     // "yellow"
  double fraction = 0;  // of the amount: 0.8
  bool gates = false;   // `aicost ledger check` exits non-zero while a budget is at this level
};
// 80 % yellow, 90 % red (gates), 100 % breached (gates).
std::vector<AlertLevel> default_levels();

// What a run budget's forecast can lean on instead of extrapolation: the plan's estimate
// (`aicost estimate -o json`).
struct PlanLine {
  std::string source;         // the file it came from
  double total_cost = 0;      // currency units, the plan's whole-run cost
  double gpu_hours = 0;       // the plan's GPU-hours (progress = actual / planned GPU-hours)
  double wall_days = 0;       // the plan's duration; a run budget without `end` lasts this long
  double mfu = 0;             // the plan's model FLOPs utilisation
  double uncertainty = 0.15;  // the plan's remaining cost is taken as +- this fraction
  std::map<std::string, double>
      categories;  // cost by category ("compute", "storage", ...), currency units
};

struct Budget {
  std::string name;
  std::string parent;  // "" at the top of a hierarchy
  std::vector<ledger::Filter>
      scope;  // own filters, ANDed; a child adds its parent's (resolve_hierarchy)
  PeriodKind period = PeriodKind::kMonth;
  std::optional<ledger::Day> start, end;  // a run's life [start, end); end may come from the plan
  core::WideNanos amount = 0;
  std::string currency = "USD";  // ISO 4217, or kGpuHours
  CostBasis cost = CostBasis::kEffective;
  std::vector<AlertLevel> levels = default_levels();  // ascending fractions
  std::optional<PlanLine> plan;                       // run budgets only
  // A floor on the run's measured GPU activity (SM_ACTIVE, fraction): below it the run is not
  // getting the efficiency its plan assumes (plan_actual.h).
  std::optional<double> efficiency_floor;
  std::string source;  // "budgets.yaml:12", for messages
};

// Checks names, parents (known, no cycles), levels and run periods, and adds each budget's
// ancestors' filters to its scope. Budgets come back parents first.
core::Result<std::vector<Budget>> resolve_hierarchy(std::vector<Budget> budgets);

struct Period {
  ledger::Day start = 0, end = 0;  // [start, end)
  std::string label;               // "2025-06", "2025-Q2", "run 2025-06-01..2025-07-15"
};
// The period of `b` that holds `as_of` (a run's whole life, whatever `as_of`).
Period period_of(const Budget& b, ledger::Day as_of);

struct BudgetStatus {
  Period period;
  core::WideNanos spent = 0;          // in the period, before as_of, exact
  Forecast forecast;                  // of the period's total
  double gpu_hours = 0;               // in the period so far
  int actual_level = -1;              // highest index into levels reached by spent; -1 none
  int forecast_level = -1;            // by forecast.expected (only while the period runs)
  double used = 0;                    // spent / amount
  bool gates(const Budget& b) const;  // at a gating level, on either basis
};
BudgetStatus budget_status(const Budget& b, const Period& p, ledger::Day as_of,
                           core::WideNanos spent, const Forecast& f);

struct Alert {
  std::string budget;
  std::string period;
  Basis basis = Basis::kActual;
  AlertLevel level;
  core::WideNanos amount = 0;
  double value = 0;  // spent (actual) or forecast total, currency units
  std::string currency;
  ledger::Day as_of = 0;
  // The keys this alert settles, to record once it is sent: its own, the lower levels' on its
  // basis, and for an actual alert the forecast's up to its level (the spend says it already).
  std::vector<std::string> covers;
  std::string key() const;      // alert_key(budget, period, basis, level)
  std::string message() const;  // one line a person reads
};
std::string alert_key(const std::string& budget, const std::string& period, Basis basis,
                      const std::string& level);

// The alerts `s` calls for that are not in `fired` (alert keys): per basis the highest level
// reached, if its key is not in `fired`; a forecast only above the level the spend has reached.
// Recording each alert's `covers` makes every level fire at most once per period, and a jump past
// several levels sends one alert, not one per level ("no alert storms").
std::vector<Alert> due_alerts(const Budget& b, const BudgetStatus& s, ledger::Day as_of,
                              const std::set<std::string>& fired);

}  // namespace aicost::governance
