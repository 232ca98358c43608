#include "pages.h"

#include "aicost/report/charts.h"
#include "aicost/report/governance_report.h"
#include "aicost/report/html.h"
#include "aicost/report/ledger_report.h"

namespace aicost::dashboard {

namespace {

report::PageParts parts(Page current) {
  report::PageParts p;
  p.scripts_at = kAssets;
  const struct {
    Page page;
    const char* href;
    const char* label;
  } links[] = {{Page::kOverview, "/", "Overview"},
               {Page::kBudgets, "/budgets", "Budgets"},
               {Page::kAnomalies, "/anomalies", "Anomalies"},
               {Page::kWaste, "/waste", "Waste"},
               {Page::kPlans, "/plans", "Plan against actual"},
               {Page::kWhatIf, "/whatif", "What if"}};
  for (const auto& l : links) p.nav.push_back({l.href, l.label, l.page == current});
  // The check's JSON as a person would open it: the whole list of findings is for programs.
  p.nav.push_back({"/api/check?limit=50", "JSON", false});
  p.nav.push_back({"/metrics", "Metrics", false});
  return p;
}

const char* title_of(Page page) {
  switch (page) {
    case Page::kOverview: return "Overview";
    case Page::kBudgets: return "Budgets";
    case Page::kAnomalies: return "Anomalies and their root causes";
    case Page::kWaste: return "Waste and what fixing it saves";
    case Page::kPlans: return "Plan against actual";
    case Page::kWhatIf: return "What if";
  }
  return "";
}

std::string with_warnings(std::string numbers, const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) numbers += "warning: " + w + "\n";
  return numbers;
}

std::string plan_links(const std::vector<std::string>& plans) {
  if (plans.empty()) return "";
  std::string out = "<p>Plans of --plans (open one in the what-if page):";
  for (const auto& name : plans) {
    const std::string n = report::html_escape(name);
    out += " <a href=\"/whatif?plan=" + n + "\">" + n + "</a> (<a href=\"/whatif?plan=" + n +
           "&amp;run=1\">run</a>)";
  }
  return out + "</p>\n";
}

}  // namespace

governance::CheckResult only(const governance::CheckResult& r, Page page) {
  governance::CheckResult out = r;
  if (page != Page::kBudgets && page != Page::kOverview) out.budgets.clear();
  if (page != Page::kAnomalies) out.anomalies.clear();
  if (page != Page::kWaste) out.waste.clear();
  if (page != Page::kPlans) out.plans.clear();
  if (page != Page::kBudgets && page != Page::kOverview) out.stop_losses.clear();
  return out;
}

std::string overview_page(const ledger::Report& spend, const governance::CheckResult* check,
                          const std::string& by) {
  auto charts = report::ledger_report_charts(spend);
  std::string numbers = report::render_ledger_report(spend, report::Format::kTable);
  if (check) {
    const auto budgets = only(*check, Page::kOverview);
    for (auto& c : report::check_charts(budgets)) charts.push_back(std::move(c));
    numbers += "\n" + with_warnings(report::render_check(budgets, report::Format::kTable),
                                    check->warnings);
  }
  auto p = parts(Page::kOverview);
  p.before_charts =
      "<p>Spend by day by <b>" + report::html_escape(by) +
      "</b> (<a href=\"/?by=service\">by service</a>, <a href=\"/?by=tag:team\">by team</a>; "
      "<code>?by=</code>, <code>from</code>, <code>to</code>, <code>top</code> as for "
      "<code>aicost ledger report</code>)" +
      (check ? "; the budgets as of " + ledger::day_text(check->as_of) + "." : ".") +
      (check ? "" : " Start with --budgets to see budgets, anomalies, waste and plans.") + "</p>\n";
  return report::html_page("aicost: " + std::string(title_of(Page::kOverview)), charts, numbers, p);
}

std::string check_page(Page page, const governance::CheckResult& r,
                       const std::vector<std::string>& plans, std::size_t max_waste) {
  auto part = only(r, page);
  // The findings past max_waste: their count and saving a month per currency, in one line.
  std::string rest;
  if (part.waste.size() > max_waste) {
    rest = "... and " + std::to_string(part.waste.size() - max_waste) + " more findings, saving " +
           report::waste_saving_from(part, max_waste) + " a month together (the largest " +
           std::to_string(max_waste) +
           " are above; /api/check and `aicost ledger check` list them all)\n";
    part.waste.resize(max_waste);
  }
  std::vector<report::Chart> charts;
  switch (page) {
    case Page::kWaste: charts = report::waste_charts(part); break;
    case Page::kPlans: charts = report::plan_actual_charts(part); break;
    default: charts = report::check_charts(part);
  }
  // The burn-down marks the anomaly days, which the budget page's part of the check leaves out.
  if (page == Page::kBudgets)
    for (auto& c : report::budget_burn_charts(r)) charts.push_back(std::move(c));
  auto p = parts(page);
  p.before_charts = "<p>As of " + ledger::day_text(r.as_of) + " (spend before that day).</p>\n";
  if (page == Page::kPlans) p.before_charts += plan_links(plans);
  // The budget page is the check's whole table (with the gate line); the others their part alone.
  const std::string numbers = page == Page::kBudgets
                                  ? report::render_check(part, report::Format::kTable)
                                  : report::render_check_part(part) + rest;
  return report::html_page("aicost: " + std::string(title_of(page)), charts,
                           with_warnings(numbers, r.warnings), p);
}

std::string error_page(Page page, const core::Error& e) {
  auto p = parts(page);
  p.before_charts =
      "<pre class=\"chart-error\">error: " + report::html_escape(e.what()) + "</pre>\n";
  return report::html_page("aicost: " + std::string(title_of(page)), {}, "", p);
}

std::string whatif_page(const WhatIf& w) {
  auto p = parts(Page::kWhatIf);
  std::string& f = p.before_charts;
  f += "<p>Paste or edit a plan (docs/PLAN_FORMAT.md, docs/SERVING.md); <b>Run</b> estimates it "
       "and looks for "
       "savings, as <code>aicost estimate</code> and <code>aicost optimize</code> do. A plan here "
       "cannot name "
       "files on the server (model.hf_config, traffic_profile.csv).</p>\n";
  f += plan_links(w.plans);
  f += "<form method=\"post\" action=\"/whatif\">\n<label>name <input name=\"name\" value=\"" +
       report::html_escape(w.name) + "\"></label>\n<textarea name=\"plan\" rows=\"24\">" +
       report::html_escape(w.text) +
       "</textarea>\n<p><button type=\"submit\">Run</button></p>\n</form>\n";
  if (w.error)
    f += "<pre class=\"chart-error\" id=\"plan-error\">error: " +
         report::html_escape(w.error->what()) + "</pre>\n";
  std::vector<report::Chart> charts;
  std::string numbers;
  for (const api::Output* o : {w.estimate, w.optimize}) {
    if (!o) continue;
    charts.insert(charts.end(), o->charts.begin(), o->charts.end());
    numbers += (numbers.empty() ? "" : "\n") + with_warnings(o->text, o->warnings);
  }
  return report::html_page("aicost: " + std::string(title_of(Page::kWhatIf)), charts, numbers, p);
}

}  // namespace aicost::dashboard
