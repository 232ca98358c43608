// Private to dashboard: the pages of `aicost serve`, as pure functions of the results the api
// calls return. Every page is report::html_page with the links to the others; every text from
// a request or a file is escaped.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "aicost/api/api.h"
#include "aicost/core/result.h"
#include "aicost/governance/check.h"
#include "aicost/ledger/report.h"
#include "aicost/report/governance_report.h"

namespace aicost::dashboard {

enum class Page { kOverview, kBudgets, kAnomalies, kWaste, kPlans, kWhatIf };

// Where the pages load the chart scripts from: kAssets + report::vega_scripts()'s names.
inline constexpr const char* kAssets = "/assets/";

// The result with only the part a page shows (the table and charts of that part alone): the
// overview and the budget page keep the budgets and the stop-losses, so that the gate line of
// their table says why the gate failed.
governance::CheckResult only(const governance::CheckResult& r, Page page);

// Spend by day by `spend.request.by`, and with a check the budgets with levels and forecast.
std::string overview_page(const ledger::Report& spend, const governance::CheckResult* check,
                          const std::string& by);
// The waste page's findings, largest saving first; the rest are counted and summed in one line
// (the JSON of /api/check and `aicost ledger check` list them all). A ledger of 1M charges had
// thousands, a 2.5 MB page that took 4.1 s at p99 under 200 concurrent requests.
inline constexpr std::size_t kWastePageFindings = report::kHtmlWasteFindings;

// Budgets, anomalies with root causes, waste with savings, plan against actual (`page`);
// `plans`: the names of --plans, each a link to the what-if page. `max_waste`: the waste page's
// findings (above).
std::string check_page(Page page, const governance::CheckResult& r,
                       const std::vector<std::string>& plans = {},
                       std::size_t max_waste = kWastePageFindings);
// A page that could not be made: the error as the CLI prints it.
std::string error_page(Page page, const core::Error& e);

// The what-if page: the form (the plan's text, its name), then the estimate's and the
// optimisation's charts and tables, or the error of the plan at file:line:col.
struct WhatIf {
  std::vector<std::string> plans;  // --plans, offered to start from
  std::string name = "what-if.yaml", text;
  const api::Output* estimate = nullptr;
  const api::Output* optimize = nullptr;
  const core::Error* error = nullptr;
};
std::string whatif_page(const WhatIf& w);

}  // namespace aicost::dashboard
