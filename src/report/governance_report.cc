#include "aicost/report/governance_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "aicost/core/amount.h"
#include "aicost/report/charts.h"
#include "aicost/report/html.h"
#include "aicost/report/journal_report.h"
#include "aicost/report/table.h"
#include "grouping.h"
#include "json.h"

namespace aicost::report {
namespace {

namespace gov = aicost::governance;

double cents(double v) { return std::round(v * 100) / 100; }
// Ratios to 4 decimals: more is noise of the summation order.
double ratio(double v) { return std::round(v * 1e4) / 1e4; }

std::string level_name(const gov::Budget& b, int level) {
  return level < 0 ? "ok" : b.levels[static_cast<std::size_t>(level)].name;
}

Json alert_json(const gov::Alert& a) {
  return Json{{"budget", a.budget},
              {"period", a.period},
              {"basis", gov::basis_name(a.basis)},
              {"level", a.level.name},
              {"at", a.level.fraction},
              {"value", cents(a.value)},
              {"amount", core::format_amount_exact(a.amount)},
              {"currency", a.currency},
              {"as_of", ledger::day_text(a.as_of)},
              {"key", a.key()},
              {"message", a.message()}};
}

Json anomaly_json(const gov::AnomalyResult& a) {
  Json causes = Json::array();
  for (const auto& c : a.causes)
    causes.push_back({{"value", c.value},
                      {"actual", cents(c.actual)},
                      {"expected", cents(c.expected)},
                      {"delta", cents(c.delta)},
                      {"share", ratio(c.share)}});
  return Json{{"scope", a.scope},
              {"currency", a.currency},
              {"first_day", ledger::day_text(a.episode.first_day)},
              {"last_day", ledger::day_text(a.episode.last_day)},
              {"peak_day", ledger::day_text(a.episode.peak_day)},
              {"direction", a.episode.increase ? "increase" : "decrease"},
              {"actual", cents(a.episode.actual)},
              {"expected", cents(a.episode.expected)},
              {"impact", cents(a.episode.impact)},
              {"peak_sigma", ratio(a.episode.peak_deviation_sigma)},
              {"new", !a.sent_before},
              {"key", a.key()},
              {"message", a.message()},
              {"causes", causes}};
}

Json waste_json(const gov::WasteResult& w) {
  const auto& f = w.finding;
  return Json{{"kind", gov::waste_kind_name(f.kind)},
              {"subject", f.subject},
              {"currency", f.currency},
              {"monthly_saving", cents(f.monthly_saving)},
              {"message", f.message},
              {"evidence", f.evidence},
              {"covered_by", f.covered_by.empty() ? Json() : Json(f.covered_by)},
              {"new", !w.sent_before},
              {"key", w.key()}};
}

Json stop_loss_json(const gov::StopLossResult& s) {
  const auto& c = s.change;
  return Json{{"change", c.change.id},
              {"date", ledger::day_text(c.change.day)},
              {"scope", ledger::scope_text(c.change.scope)},
              {"lever", c.change.lever},
              {"metric", gov::unit_metric_name(c.metric)},
              {"effect_pct", c.effect ? Json(c.effect->effect * 100) : Json()},
              {"message", stop_loss_message(s)},
              {"new", !s.sent_before},
              {"key", s.key()}};
}

Json plan_json(const gov::PlanVsActual& p) {
  Json categories = Json::array();
  for (const auto& c : p.categories)
    categories.push_back({{"category", c.category},
                          {"planned", cents(c.planned)},
                          {"planned_to_date", cents(c.planned_to_date)},
                          {"actual", cents(c.actual)},
                          {"variance", cents(c.variance())}});
  return Json{{"budget", p.budget},
              {"plan", p.plan_source},
              {"currency", p.currency},
              {"planned_days", p.planned_days},
              {"elapsed_days", p.elapsed_days},
              {"planned_cost", cents(p.planned_cost)},
              {"actual_cost", cents(p.actual_cost)},
              {"planned_gpu_hours", p.planned_gpu_hours},
              {"actual_gpu_hours", p.actual_gpu_hours},
              {"planned_mfu", p.planned_mfu},
              {"gpu_activity", p.activity ? Json(ratio(*p.activity)) : Json()},
              {"efficiency_floor", p.efficiency_floor ? Json(*p.efficiency_floor) : Json()},
              {"categories", categories},
              {"warnings", p.warnings}};
}

// The forecast's period total and, for each predicted day, the total up to that day's end with
// its interval (governance::Forecast::path); empty when nothing is left to predict.
Json forecast_json(const gov::Forecast& f) {
  Json path = Json::array();
  for (const auto& d : f.path)
    path.push_back({{"day", ledger::day_text(d.day)},
                    {"expected", cents(d.expected)},
                    {"low", cents(d.low)},
                    {"high", cents(d.high)}});
  return Json{{"expected", cents(f.expected)},
              {"low", cents(f.low)},
              {"high", cents(f.high)},
              {"method", f.method},
              {"path", path}};
}

Json budget_json(const gov::BudgetResult& r) {
  const auto& b = r.budget;
  const auto& s = r.status;
  Json scope = Json::object();
  for (const auto& f : b.scope) scope[ledger::group_key_name(f.key)] = f.value;
  Json due = Json::array();
  for (const auto& a : r.due) due.push_back(alert_json(a));
  return Json{{"name", b.name},
              {"parent", b.parent.empty() ? Json() : Json(b.parent)},
              {"scope", scope},
              {"period", s.period.label},
              {"period_start", ledger::day_text(s.period.start)},
              {"period_end", ledger::day_text(s.period.end)},
              {"cost", gov::cost_basis_name(b.cost)},
              {"currency", b.currency},
              {"amount", core::format_amount_exact(b.amount)},
              {"spent", core::format_amount_exact(s.spent)},
              {"used", ratio(s.used)},
              {"forecast", forecast_json(s.forecast)},
              {"actual_level", level_name(b, s.actual_level)},
              {"forecast_level", level_name(b, s.forecast_level)},
              {"gates", s.gates(b)},
              {"alerts_due", due}};
}

// What is new, only the items whose key is in `only` when it is given.
std::string payload(const gov::CheckResult& r, const std::set<std::string>* only) {
  const auto wanted = [&](const std::string& key) { return !only || only->count(key) > 0; };
  Json alerts = Json::array(), anomalies = Json::array();
  for (const auto& b : r.budgets)
    for (const auto& a : b.due)
      if (wanted(a.key())) alerts.push_back(alert_json(a));
  for (const auto& a : r.anomalies)
    if (!a.sent_before && wanted(a.key())) anomalies.push_back(anomaly_json(a));
  Json waste = Json::array();
  for (const auto& w : r.waste)
    if (!w.sent_before && wanted(w.key())) waste.push_back(waste_json(w));
  Json stop_losses = Json::array();
  for (const auto& sl : r.stop_losses)
    if (!sl.sent_before && wanted(sl.key())) stop_losses.push_back(stop_loss_json(sl));
  std::string text;
  for (const auto* list : {&alerts, &anomalies, &waste, &stop_losses})
    for (const auto& a : *list) text += a["message"].get<std::string>() + "\n";
  // "text" is what Slack, Mattermost and Teams incoming webhooks show.
  return json_text(Json{{"source", "aicost"},
                        {"as_of", ledger::day_text(r.as_of)},
                        {"text", text},
                        {"alerts", alerts},
                        {"anomalies", anomalies},
                        {"waste", waste},
                        {"stop_losses", stop_losses}});
}

// The tables of `ledger check` (table, CSV, Markdown); `whole`: as the CLI prints them (the budget
// table even without budgets, the gate line), else only the parts that have rows.
std::string check_tables(const gov::CheckResult& r, Format f, bool whole) {
  // Numbers for the table: grouped for people, plain in CSV.
  const auto amount = [f](core::WideNanos n) { return for_people(core::format_amount(n, 2), f); };
  const auto num = [f](double v, const char* spec) {
    return for_people(fmt::format(fmt::runtime(spec), v), f);
  };
  Table budgets;
  budgets.title = "Budgets as of " + ledger::day_text(r.as_of) + " (spend before that day)";
  budgets.header = {"budget",
                    "period",
                    "spent",
                    "amount",
                    "used",
                    "forecast",
                    fmt::format("{:.0f}% interval", r.forecast_interval * 100),
                    "method",
                    "actual",
                    "forecast level"};
  budgets.right_align = {false, false, true, true, true, true, true, false, false, false};
  for (const auto& br : r.budgets) {
    const auto& b = br.budget;
    const auto& s = br.status;
    std::string name = b.name;
    for (const gov::BudgetResult* p = &br; !p->budget.parent.empty();) {
      name = "  " + name;
      const auto it = std::find_if(
          r.budgets.begin(), r.budgets.end(),
          [&](const gov::BudgetResult& x) { return x.budget.name == p->budget.parent; });
      if (it == r.budgets.end()) break;
      p = &*it;
    }
    budgets.rows.push_back(
        {name, s.period.label, amount(s.spent) + " " + b.currency, amount(b.amount),
         fmt::format("{:.0f}%", s.used * 100), num(s.forecast.expected, "{:.2f}"),
         num(s.forecast.low, "{:.0f}") + ".." + num(s.forecast.high, "{:.0f}"), s.forecast.method,
         level_name(b, s.actual_level), level_name(b, s.forecast_level)});
  }
  std::string out = whole || !budgets.rows.empty() ? render(budgets, f) : "";
  for (const auto& p : r.plans) {
    Table t;
    t.title = fmt::format(
        "Plan against actual: {} ({}): day {:.0f} of {:.1f} planned; GPU-hours {} of {}; cost {} "
        "of {} {}; "
        "GPU activity {}{}; plan MFU {:.2f}",
        p.budget, p.plan_source, p.elapsed_days, p.planned_days, num(p.actual_gpu_hours, "{:.0f}"),
        num(p.planned_gpu_hours, "{:.0f}"), num(p.actual_cost, "{:.2f}"),
        num(p.planned_cost, "{:.2f}"), p.currency,
        p.activity ? fmt::format("{:.2f}", *p.activity) : "not measured",
        p.efficiency_floor ? fmt::format(" (floor {:.2f})", *p.efficiency_floor) : "",
        p.planned_mfu);
    t.header = {"category", "planned", "planned to date", "actual", "variance"};
    t.right_align = {false, true, true, true, true};
    for (const auto& c : p.categories)
      t.rows.push_back({c.category, num(c.planned, "{:.2f}"), num(c.planned_to_date, "{:.2f}"),
                        num(c.actual, "{:.2f}"), num(c.variance(), "{:+.2f}")});
    out += (out.empty() ? "" : "\n") + render(t, f);
  }
  Table alerts;
  alerts.title = "Alerts due";
  alerts.header = {"budget", "basis", "level", "message"};
  for (const auto& b : r.budgets)
    for (const auto& a : b.due)
      alerts.rows.push_back({a.budget, gov::basis_name(a.basis), a.level.name, a.message()});
  if (!alerts.rows.empty()) out += (out.empty() ? "" : "\n") + render(alerts, f);
  Table anomalies;
  anomalies.title = "Anomalies";
  anomalies.header = {"scope", "days", "impact", "top cause", "new"};
  anomalies.right_align = {false, false, true, false, false};
  for (const auto& a : r.anomalies)
    anomalies.rows.push_back(
        {a.scope,
         ledger::day_text(a.episode.first_day) + (a.episode.last_day != a.episode.first_day
                                                      ? ".." + ledger::day_text(a.episode.last_day)
                                                      : ""),
         num(a.episode.impact, "{:+.2f}") + " " + a.currency,
         a.causes.empty() ? ""
                          : a.causes.front().value + " " + num(a.causes.front().delta, "{:+.2f}"),
         a.sent_before ? "no" : "yes"});
  if (!anomalies.rows.empty()) out += (out.empty() ? "" : "\n") + render(anomalies, f);
  Table waste;
  waste.title = "Waste (saving per 30-day month if fixed)";
  waste.header = {"kind", "subject", "saving", "finding", "new"};
  waste.right_align = {false, false, true, false, false};
  for (const auto& w : r.waste)
    waste.rows.push_back({gov::waste_kind_name(w.finding.kind), w.finding.subject,
                          num(w.finding.monthly_saving, "{:.2f}") + " " + w.finding.currency,
                          w.finding.message, w.sent_before ? "no" : "yes"});
  if (!waste.rows.empty()) out += (out.empty() ? "" : "\n") + render(waste, f);
  Table stops;
  stops.title =
      "Stop-loss (changes of the journal to roll back; `aicost ledger changes` measures them all)";
  stops.header = {"change", "date", "scope", "lever", "verdict", "new"};
  for (const auto& sl : r.stop_losses)
    stops.rows.push_back({std::to_string(sl.change.change.id),
                          ledger::day_text(sl.change.change.day),
                          ledger::scope_text(sl.change.change.scope), sl.change.change.lever,
                          verdict_text(sl.change, {}), sl.sent_before ? "no" : "yes"});
  if (!stops.rows.empty()) out += (out.empty() ? "" : "\n") + render(stops, f);
  if (whole && f == Format::kTable) {
    const bool budget_gate =
        std::any_of(r.budgets.begin(), r.budgets.end(),
                    [](const gov::BudgetResult& b) { return b.status.gates(b.budget); });
    out += !r.gate_failed           ? "\ngate: ok\n"
           : budget_gate            ? "\ngate: FAILED (a budget is at a gating level)\n"
           : !r.stop_losses.empty() ? "\ngate: FAILED (a change is at stop-loss: roll it back)\n"
                                    : "\ngate: FAILED (stale or missing data, --strict)\n";
  }
  return out;
}

}  // namespace

std::string check_payload(const gov::CheckResult& r) { return payload(r, nullptr); }

std::string check_payload(const gov::CheckResult& r, const std::set<std::string>& only) {
  return payload(r, &only);
}

std::string render_check(const gov::CheckResult& r, Format f) {
  if (f == Format::kHtml) {
    std::string numbers = render_check(r, Format::kTable);
    for (const auto& w : r.warnings) numbers += "warning: " + w + "\n";
    auto charts = check_charts(r);
    for (auto& c : budget_burn_charts(r)) charts.push_back(std::move(c));
    return html_page("aicost ledger check as of " + ledger::day_text(r.as_of), charts, numbers);
  }
  if (f == Format::kJson) {
    Json budgets = Json::array(), anomalies = Json::array(), waste = Json::array(),
         plans = Json::array();
    for (const auto& b : r.budgets) budgets.push_back(budget_json(b));
    for (const auto& p : r.plans) plans.push_back(plan_json(p));
    for (const auto& a : r.anomalies) anomalies.push_back(anomaly_json(a));
    for (const auto& w : r.waste) waste.push_back(waste_json(w));
    Json stop_losses = Json::array();
    for (const auto& sl : r.stop_losses) stop_losses.push_back(stop_loss_json(sl));
    return json_text(Json{{"schema_version", 1},
                          {"as_of", ledger::day_text(r.as_of)},
                          {"data_through", r.data_through ? Json(ledger::day_text(*r.data_through))
                                                          : Json(nullptr)},
                          {"data_stale", r.data_stale},
                          {"gate_failed", r.gate_failed},
                          {"budgets", budgets},
                          {"plans", plans},
                          {"anomalies", anomalies},
                          {"waste", waste},
                          {"stop_losses", stop_losses},
                          {"warnings", r.warnings}}) +
           "\n";
  }
  return check_tables(r, f, true);
}

std::string render_check_part(const gov::CheckResult& r) {
  return check_tables(r, Format::kTable, false);
}

}  // namespace aicost::report
