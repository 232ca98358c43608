// Spend by day against each budget, with the forecast's daily path and its cone to the period's
// end (report/charts.h).
#include <fmt/format.h>

#include <algorithm>

#include "aicost/core/amount.h"
#include "aicost/report/charts.h"
#include "chart_parts.h"
#include "rounding.h"

namespace aicost::report {

namespace {

double units(core::WideNanos n) {
  return static_cast<double>(n) / static_cast<double>(core::kNanosPerUnit);
}

// The check's anomaly episodes of a budget's series: its own scope's, and the ledger's for a
// budget over all spend (run_check judges that series once, as "ledger").
bool episode_of(const governance::AnomalyResult& a, const governance::BudgetResult& b) {
  if (a.currency != b.budget.currency) return false;
  if (a.scope == b.budget.name) return true;
  return a.scope == "ledger" && b.budget.scope.empty() &&
         b.budget.cost == governance::CostBasis::kEffective;
}

// Most at risk first (the higher of the actual and forecast levels), then the largest amount.
std::vector<const governance::BudgetResult*> chosen(const governance::CheckResult& r,
                                                    std::size_t max) {
  std::vector<const governance::BudgetResult*> out;
  for (const auto& b : r.budgets)
    if (b.budget.amount > 0) out.push_back(&b);
  auto level = [](const governance::BudgetResult* b) {
    return std::max(b->status.actual_level, b->status.forecast_level);
  };
  std::stable_sort(out.begin(), out.end(), [&](const auto* a, const auto* b) {
    if (level(a) != level(b)) return level(a) > level(b);
    return a->budget.amount > b->budget.amount;
  });
  if (out.size() > max) out.resize(max);
  // Drawn in the check's order (parents first), which the table beside them follows.
  std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a < b; });
  return out;
}

// Every layer names the same axes in full: a layer's channel replaces the parent's, it does not
// add to it.
Json day(const char* field) {
  // A utc time unit makes the scale UTC, so the labels name the UTC day whatever the viewer's zone.
  return {{"field", field},
          {"type", "temporal"},
          {"timeUnit", "utcyearmonthdate"},
          {"title", "day (00:00 UTC)"},
          {"axis", {{"format", "%d %b"}, {"labelAngle", 0}}}};
}

Chart burn_chart(const governance::BudgetResult& b, const governance::CheckResult& r) {
  const auto& p = b.status.period;
  const auto& f = b.status.forecast;
  const std::string unit = b.budget.currency;
  // Each point is an instant: 00:00 UTC of a day, with the spend before it. The line runs from the
  // period's start to the as-of day (or the period's end, if sooner), so its last point is the
  // spend so far.
  const ledger::Day to = std::max(p.start, std::min(r.as_of, p.end));
  Json line = Json::array(), marked = Json::array();
  core::WideNanos sum = 0;
  auto next = b.daily.begin();
  for (ledger::Day d = p.start; d <= to; ++d) {
    line.push_back({{"day", ledger::day_text(d)}, {"cumulative", cents(units(sum))}});
    if (d == to) break;
    for (; next != b.daily.end() && next->first <= d; ++next)
      if (next->first == d) sum += next->second;
  }
  for (const auto& a : r.anomalies) {
    if (!episode_of(a, b)) continue;
    const auto& e = a.episode;
    const std::string what =
        fmt::format("{} {}..{}", e.increase ? "rise" : "drop", ledger::day_text(e.first_day),
                    ledger::day_text(e.last_day));
    for (ledger::Day d = std::max(e.first_day, p.start); d <= e.last_day && d < to; ++d) {
      // The episode's day d is the step from d to d + 1: its point is the spend after it.
      const std::size_t i = static_cast<std::size_t>(d + 1 - p.start);
      marked.push_back(
          {{"day", line[i]["day"]}, {"cumulative", line[i]["cumulative"]}, {"episode", what}});
    }
  }
  Json layers = Json::array();
  const std::string y_title = "cumulative spend (" + unit + ")";
  auto money = [&](const char* field) {
    return Json{{"field", field},
                {"type", "quantitative"},
                {"title", y_title},
                {"axis", {{"format", ",.0f"}}}};
  };
  if (!f.path.empty()) {
    // The forecast's daily path: from the spend before predicted_from (no interval yet), each
    // predicted day's expected total with its interval at the day's end (00:00 UTC of the next),
    // the last at the period's end: [low, high] of the period.
    Json cone = Json::array({{{"day", ledger::day_text(f.predicted_from)},
                              {"expected", cents(f.spent)},
                              {"low", cents(f.spent)},
                              {"high", cents(f.spent)}}});
    for (const governance::ForecastDay& d : f.path)
      cone.push_back({{"day", ledger::day_text(d.day + 1)},
                      {"expected", cents(d.expected)},
                      {"low", cents(d.low)},
                      {"high", cents(d.high)}});
    layers.push_back(
        {{"data", {{"values", cone}}},
         {"mark", {{"type", "area"}, {"color", "#f58518"}, {"opacity", 0.25}, {"tooltip", true}}},
         {"encoding", {{"x", day("day")}, {"y", money("low")}, {"y2", {{"field", "high"}}}}}});
    layers.push_back(
        {{"data", {{"values", std::move(cone)}}},
         {"mark",
          {{"type", "line"}, {"color", "#f58518"}, {"strokeDash", {6, 3}}, {"strokeWidth", 2}}},
         {"encoding", {{"x", day("day")}, {"y", money("expected")}}}});
  }
  layers.push_back(
      {{"data",
        {{"values", Json::array({{{"limit", cents(units(b.budget.amount))},
                                  {"from", ledger::day_text(p.start)},
                                  {"to", ledger::day_text(p.end)}}})}}},
       {"mark", {{"type", "rule"}, {"color", "#d62728"}, {"strokeWidth", 2}, {"tooltip", true}}},
       {"encoding", {{"x", day("from")}, {"x2", {{"field", "to"}}}, {"y", money("limit")}}}});
  layers.push_back({{"data", {{"values", std::move(line)}}},
                    {"mark",
                     {{"type", "line"},
                      {"color", "#4c78a8"},
                      {"strokeWidth", 2},
                      {"point", {{"filled", true}, {"size", 16}}},
                      {"tooltip", true}}},
                    {"encoding", {{"x", day("day")}, {"y", money("cumulative")}}}});
  if (!marked.empty())
    layers.push_back({{"data", {{"values", std::move(marked)}}},
                      {"mark",
                       {{"type", "point"},
                        {"shape", "diamond"},
                        {"size", 110},
                        {"filled", true},
                        {"color", "#d62728"},
                        {"tooltip", true}}},
                      {"encoding", {{"x", day("day")}, {"y", money("cumulative")}}}});
  Json s = base_spec(fmt::format(
      "Cumulative spend of budget {} ({}) by day against its amount, and the forecast to the "
      "period's end with its {:.0f} % interval",
      b.budget.name, p.label, r.forecast_interval * 100));
  s["height"] = 260;
  s["layer"] = std::move(layers);
  const std::string title = fmt::format(
      "{} ({}): spend by day against {} {} (red line); forecast {:.0f} % interval to the period's "
      "end "
      "(shaded), anomaly days (diamonds)",
      b.budget.name, p.label, core::format_amount(b.budget.amount, 0), unit,
      r.forecast_interval * 100);
  return chart(title, s);
}

}  // namespace

std::vector<Chart> budget_burn_charts(const governance::CheckResult& r, std::size_t max_budgets) {
  std::vector<Chart> out;
  for (const auto* b : chosen(r, max_budgets)) out.push_back(burn_chart(*b, r));
  return out;
}

}  // namespace aicost::report
