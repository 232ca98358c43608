// `aicost ledger check --prometheus`: the check as Prometheus text format 0.0.4
// (report/governance_report.h, docs/GOVERNANCE.md).
#include <fmt/format.h>

#include <cstdint>

#include "aicost/core/amount.h"
#include "aicost/report/governance_report.h"

namespace aicost::report {
namespace {

namespace gov = aicost::governance;

double units(core::WideNanos n) {
  return static_cast<double>(n) / static_cast<double>(core::kNanosPerUnit);
}

}  // namespace

std::string render_prometheus(const gov::CheckResult& r) {
  auto esc = [](const std::string& v) {
    std::string out;
    for (char c : v) {
      if (c == '\\' || c == '"') out += '\\';
      if (c == '\n') {
        out += "\\n";
        continue;
      }
      out += c;
    }
    return out;
  };
  std::string out;
  auto family = [&](const char* name, const char* help) {
    out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name, help, name);
  };
  auto labels = [&](const gov::BudgetResult& b) {
    return fmt::format("budget=\"{}\",period=\"{}\",currency=\"{}\"", esc(b.budget.name),
                       esc(b.status.period.label), esc(b.budget.currency));
  };
  family("aicost_budget_amount", "Budget amount for the period, in currency units.");
  for (const auto& b : r.budgets)
    out += fmt::format("aicost_budget_amount{{{}}} {:.2f}\n", labels(b), units(b.budget.amount));
  family("aicost_budget_spent",
         "Spend in the budget's scope and period so far, in currency units.");
  for (const auto& b : r.budgets)
    out += fmt::format("aicost_budget_spent{{{}}} {:.2f}\n", labels(b), units(b.status.spent));
  family("aicost_budget_used_ratio", "Spent over amount.");
  for (const auto& b : r.budgets)
    out += fmt::format("aicost_budget_used_ratio{{{}}} {:.4f}\n", labels(b), b.status.used);
  family("aicost_budget_forecast",
         "Forecast of the period's total spend (bound: expected, low, high).");
  for (const auto& b : r.budgets)
    for (auto [bound, v] :
         {std::pair{"expected", b.status.forecast.expected},
          std::pair{"low", b.status.forecast.low}, std::pair{"high", b.status.forecast.high}})
      out += fmt::format("aicost_budget_forecast{{{},bound=\"{}\"}} {:.2f}\n", labels(b), bound, v);
  family("aicost_budget_level", "Highest alert level reached (index from 1; 0 none), by basis.");
  for (const auto& b : r.budgets) {
    out += fmt::format("aicost_budget_level{{{},basis=\"actual\"}} {}\n", labels(b),
                       b.status.actual_level + 1);
    out += fmt::format("aicost_budget_level{{{},basis=\"forecast\"}} {}\n", labels(b),
                       b.status.forecast_level + 1);
  }
  family("aicost_anomaly_impact",
         "Open anomaly episodes in the look-back window: actual minus expected spend.");
  for (const auto& a : r.anomalies)
    out += fmt::format(
        "aicost_anomaly_impact{{scope=\"{}\",currency=\"{}\",first_day=\"{}\"}} {:.2f}\n",
        esc(a.scope), esc(a.currency), ledger::day_text(a.episode.first_day), a.episode.impact);
  family("aicost_waste_monthly_saving",
         "What a waste finding would save per 30-day month if fixed.");
  for (const auto& w : r.waste)
    out += fmt::format(
        "aicost_waste_monthly_saving{{kind=\"{}\",subject=\"{}\",currency=\"{}\"}} {:.2f}\n",
        gov::waste_kind_name(w.finding.kind), esc(w.finding.subject), esc(w.finding.currency),
        w.finding.monthly_saving);
  family("aicost_ledger_data_through_timestamp_seconds",
         "End of the newest day with a charge before the check's day (Unix time); absent when "
         "there is none.");
  if (r.data_through)
    out += fmt::format("aicost_ledger_data_through_timestamp_seconds {}\n",
                       (static_cast<std::int64_t>(*r.data_through) + 1) * 86400);
  family("aicost_ledger_data_stale",
         "1 when the newest charge is older than the stale limit, or a budget has none.");
  out += fmt::format("aicost_ledger_data_stale {}\n", r.data_stale ? 1 : 0);
  family("aicost_change_stop_loss",
         "1 for a change of the journal whose verdict is stop-loss (roll it back).");
  for (const auto& sl : r.stop_losses)
    out += fmt::format("aicost_change_stop_loss{{change=\"{}\",lever=\"{}\"}} 1\n",
                       sl.change.change.id, esc(sl.change.change.lever));
  family("aicost_check_gate_failed",
         "1 when a budget is at a gating level or a change at stop-loss (or the data is stale, "
         "under --strict).");
  out += fmt::format("aicost_check_gate_failed {}\n", r.gate_failed ? 1 : 0);
  return out;
}

}  // namespace aicost::report
