// The charts of `-o html` reports as Vega-Lite specs (https://vega.github.io/vega-lite/): plain
// JSON, one per chart, carrying its data inline, so a test can read a chart as data and the same
// spec displays in a notebook. Pure functions; thread-safe; they never fail (a view with nothing to
// draw gives no chart).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "aicost/governance/check.h"
#include "aicost/ledger/report.h"
#include "aicost/optimize/optimize.h"
#include "aicost/perf/accuracy.h"
#include "aicost/report/estimate_report.h"
#include "aicost/report/reliability_report.h"
#include "aicost/report/search_report.h"
#include "aicost/report/serving_report.h"

namespace aicost::report {

// Vega-Lite schema every spec names ("$schema"); the version embedded by scripts/install-vega.sh.
inline constexpr const char* kVegaLiteSchema = "https://vega.github.io/schema/vega-lite/v6.json";

struct Chart {
  std::string title;  // shown above the chart
  std::string spec;   // the Vega-Lite spec, JSON text
};

// `aicost estimate` (training): the step time by cause (a bar per cause, seconds; causes of 0 s
// left out), and the cost by category (a bar per cost line, USD).
std::vector<Chart> estimate_charts(const EstimateView& v);

// `aicost search`: the cost-versus-wall-days Pareto front, one point per front plan, the winner
// (the top plan) marked, and the other top plans as context; empty when no plan is feasible.
std::vector<Chart> search_charts(const SearchView& v);

// `aicost estimate` (serving): the monthly cost of each deployment option that meets the SLA, and
// with a traffic profile the paid replicas over time per scaling policy (each policy's hourly
// maximum: a month of minutes is too many marks to draw).
std::vector<Chart> serving_charts(const ServingView& v);

// `aicost validate`: predicted against measured, one point per run coloured by group, on log
// axes with the line where the two are equal; `fit` names the predictions ("model", "held out").
// Empty without cases.
std::vector<Chart> accuracy_charts(const std::vector<perf::AccuracyCase>& cases,
                                   const std::string& fit);

// `aicost ledger report`: effective cost per group (the report's dimensions joined by " / ",
// "all" without any), as stacked bars per period when the report has periods, else a bar per
// group; money in each line's currency (the currency joins the group when there are several).
// Empty without lines.
std::vector<Chart> ledger_report_charts(const ledger::Report& r);

// `aicost ledger check`: each budget's spend so far as a share of its amount, the forecast's
// interval on the period total (a line from low to high) and its expected total (a tick), against
// the budget line at 100 %; and each anomaly episode's actual against expected spend, with the
// direction of the episode. A chart without rows is left out.
std::vector<Chart> check_charts(const governance::CheckResult& r);

// `aicost ledger check` and `aicost serve`'s budget page: per budget, the cumulative spend at
// 00:00 UTC of each day of its period up to the as-of day (its last point is the spend so far), the
// budget's amount as a horizontal line over the period, the forecast from its first predicted day
// (Forecast::predicted_from) to the period's end as a dashed path of the expected total at the end
// of each predicted day (Forecast::path) inside the cone of its interval, which widens from
// nothing at predicted_from to the period's [low, high] at its end, and the days of the
// check's anomaly episodes on the budget's series marked on the line. At most `max_budgets`
// budgets with an amount: those at the highest alert level (actual or forecast) first, then the
// largest amounts; drawn in the check's order. Empty without budgets.
std::vector<Chart> budget_burn_charts(const governance::CheckResult& r,
                                      std::size_t max_budgets = 6);

// `aicost serve`'s waste page: the monthly saving of each waste finding that has one (a bar per
// kind and subject; findings covered by another count 0 and are left out). Empty without any.
std::vector<Chart> waste_charts(const governance::CheckResult& r);

// `aicost serve`'s plan-against-actual page: for each run budget with a plan, the plan's cost to
// date against the actual spend by the plan's categories. Empty without plans.
std::vector<Chart> plan_actual_charts(const governance::CheckResult& r);

// `aicost optimize` (a plan or `--db`): the saving of each lever that has one (a bar per lever
// and subject, coloured by its status: accepted, rejected by a red line, ...), `unit` naming the
// money ("USD" for a plan's total, "USD a month (730 h)" for the ledger's).
std::vector<Chart> optimize_charts(const std::vector<optimize::LeverResult>& levers,
                                   const std::string& unit);

// `aicost diff`: what moved between plan A and plan B: the cost by category and the step time
// by cause, side by side.
std::vector<Chart> diff_charts(const EstimateView& a, const EstimateView& b);

// `aicost reliability`: the expected wall time by part (work, checkpoints, lost work, restarts,
// maintenance; the closed form, and the Monte-Carlo means beside it when simulated), the days each
// lever saves, and when simulated the spread of wall days (P10..P90, median and mean, against the
// closed form). The simulation keeps summaries, not every run, so the spread is drawn from them.
std::vector<Chart> reliability_charts(const ReliabilityView& v);

}  // namespace aicost::report
