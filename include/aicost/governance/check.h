// `aicost ledger check`: every budget's spend, forecast and alert levels, the anomalies of the
// last days with their root causes, and the waste findings, read from a ledger through
// ledger::Store.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/governance/anomaly.h"
#include "aicost/governance/budget.h"
#include "aicost/governance/forecast.h"
#include "aicost/governance/journal.h"
#include "aicost/governance/plan_actual.h"
#include "aicost/governance/waste_scan.h"
#include "aicost/ledger/store.h"

namespace aicost::governance {

struct CheckOptions {
  ledger::Day as_of = 0;  // spend on days before as_of counts ("today", exclusive)
  ForecastOptions forecast;
  AnomalyOptions anomaly;
  int anomaly_lookback_days = 7;  // report episodes that touch the last N days before as_of
  ledger::Dimension root_cause = ledger::Dimension::kService;  // ranked within an anomaly
  std::map<std::string, std::vector<std::string>> aliases;     // tag key -> keys that mean the same
  WasteOptions waste;
  // The change journal (journal.h): each change is measured over this many days a side, and a
  // stop_loss verdict is an alert that gates.
  int change_window_days = 14;
  // Limits every change is held to besides its own (ChangeOptions::guardrails).
  std::vector<ledger::Guardrail> change_guardrails;
  // Stale data: a warning when the newest charge before as_of is this many days or more older
  // than the day before as_of (exports that stopped arriving), or when there is none.
  int stale_after_days = 3;
  // Stale or missing data fails the gate too (`aicost ledger check --strict`).
  bool strict = false;
};

struct BudgetResult {
  Budget budget;
  BudgetStatus status;
  std::vector<Alert> due;  // not sent before (see run_check's `fired`)
  // The spend of each day of the period before as_of that has any (ascending, exact; the sum is
  // status.spent): what a burn-down chart draws.
  std::vector<std::pair<ledger::Day, core::WideNanos>> daily;
};

struct AnomalyResult {
  std::string scope;  // a budget's name, or "ledger" (all spend)
  std::string currency;
  Anomaly episode;
  std::vector<Contribution> causes;  // by CheckOptions::root_cause, largest |delta| first
  bool sent_before = false;          // its key is in run_check's `fired`
  std::string key() const;           // once per scope, currency and episode start
  std::string message() const;
};

struct WasteResult {
  WasteFinding finding;
  bool sent_before = false;  // its key is in run_check's `fired`
  std::string key() const;   // once per kind, subject and currency
};

// A change of the journal whose verdict is stop_loss: roll it back.
struct StopLossResult {
  ChangeResult change;
  bool sent_before = false;  // its key is in run_check's `fired`
  // Once per crossing: the change and what it crossed (the guardrails' names, or "cost" when the
  // unit cost rose beyond doubt); a further guardrail crossed later is a new alert.
  std::string key() const;
};

struct CheckResult {
  ledger::Day as_of = 0;
  double forecast_interval = 0;             // the central probability of the forecasts' intervals
  std::vector<BudgetResult> budgets;        // parents first
  std::vector<AnomalyResult> anomalies;     // scopes in budget order, "ledger" first
  std::vector<WasteResult> waste;           // largest monthly saving first
  std::vector<StopLossResult> stop_losses;  // in the journal's order; each fails the gate
  std::vector<PlanVsActual> plans;          // run budgets with a plan
  bool gate_failed = false;  // some budget at a gating level (actual or forecast), or
                             // stale data under CheckOptions::strict
  // The newest day with a charge before as_of; nullopt when the ledger has none. The forecasts
  // fit the days up to it and predict the days after it (forecast_period's data_through).
  std::optional<ledger::Day> data_through;
  // The data is stale or missing (CheckOptions::stale_after_days), or a budget's scope has no
  // charge in its period so far; each case is also in `warnings`.
  bool data_stale = false;
  std::vector<std::string> warnings;  // e.g. children's amounts exceed their parent's
};

// `budgets` as resolve_hierarchy returns them. `fired`: keys of alerts and anomalies already sent
// (Alert::key, AnomalyResult::key); those are left out of `due`, and anomalies already sent are
// still listed (they are facts) with `sent_before` set.
core::Result<CheckResult> run_check(ledger::Store& store, const std::vector<Budget>& budgets,
                                    const CheckOptions& options,
                                    const std::set<std::string>& fired);

}  // namespace aicost::governance
