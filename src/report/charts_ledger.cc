// The charts of the ledger's answers and of the optimiser (report/charts.h).
#include <fmt/format.h>

#include <set>

#include "aicost/report/charts.h"
#include "chart_parts.h"
#include "rounding.h"

namespace aicost::report {

namespace {
constexpr std::size_t kMaxPeriodLabels =
    16;  // on the period axis of a report by day, week or month
}  // namespace

std::vector<Chart> ledger_report_charts(const ledger::Report& r) {
  std::vector<Chart> out;
  if (r.lines.empty()) return out;
  std::vector<std::string> currencies;
  for (const auto& t : r.totals) currencies.push_back(t.currency);
  const bool one_currency = currencies.size() == 1;
  Json rows = Json::array();
  for (const auto& l : r.lines) {
    std::string group;
    for (const auto& v : l.values) group += (group.empty() ? "" : " / ") + v;
    if (group.empty()) group = "all";
    if (!one_currency) group += " (" + l.currency + ")";
    Json row = {{"group", group},
                {"effective", cents(static_cast<double>(l.sums.effective) / 1e9)}};
    if (r.request.granularity != ledger::Granularity::kTotal) row["period"] = l.period;
    rows.push_back(std::move(row));
  }
  const std::string money = one_currency ? "effective cost (" + currencies.front() + ")"
                                         : "effective cost (each line's currency)";
  std::string by;
  for (const auto& k : r.request.by) by += (by.empty() ? "" : " / ") + ledger::group_key_name(k);
  if (by.empty()) by = "all";
  Json s = base_spec("Effective cost by " + by);
  s["data"] = {{"values", std::move(rows)}};
  if (r.request.granularity == ledger::Granularity::kTotal) {
    s["mark"] = {{"type", "bar"}, {"tooltip", true}};
    s["encoding"] = {
        {"y", {{"field", "group"}, {"type", "nominal"}, {"title", by}, {"sort", "-x"}}},
        {"x",
         {{"field", "effective"},
          {"type", "quantitative"},
          {"title", money},
          {"axis", {{"format", ",.0f"}}}}}};
  } else {
    s["height"] = 320;
    s["mark"] = {{"type", "bar"}, {"tooltip", true}};
    std::set<std::string> periods;
    for (const auto& l : r.lines) periods.insert(l.period);
    // Upright labels while they fit side by side (a month of days does not); past 16 periods a
    // label on every k-th only, at most 16 (slanted 10-character dates 40 px apart on the 640 px
    // chart), where 60 days' labels ran into each other.
    const int angle = periods.size() <= 12 ? 0 : -45;
    Json axis = {{"labelAngle", angle}};
    if (periods.size() > kMaxPeriodLabels) {
      const std::size_t every = (periods.size() + kMaxPeriodLabels - 1) / kMaxPeriodLabels;
      Json shown = Json::array();
      std::size_t i = 0;
      for (const auto& p : periods)
        if (i++ % every == 0) shown.push_back(p);
      axis["values"] = std::move(shown);
    }
    s["encoding"] = {{"x",
                      {{"field", "period"},
                       {"type", "ordinal"},
                       {"title", "period"},
                       {"axis", std::move(axis)}}},
                     {"y",
                      {{"field", "effective"},
                       {"type", "quantitative"},
                       {"title", money},
                       {"stack", true},
                       {"axis", {{"format", ",.0f"}}}}},
                     {"color", {{"field", "group"}, {"type", "nominal"}, {"title", by}}}};
  }
  out.push_back(chart("Effective cost by " + by, s));
  return out;
}

std::vector<Chart> check_charts(const governance::CheckResult& r) {
  std::vector<Chart> out;
  Json budgets = Json::array();
  for (const auto& br : r.budgets) {
    const double amount = static_cast<double>(br.budget.amount) / 1e9;
    if (!(amount > 0)) continue;
    const auto& f = br.status.forecast;
    budgets.push_back({{"budget", br.budget.name + " (" + br.status.period.label + ")"},
                       {"spent_pct", sig(br.status.used * 100)},
                       {"expected_pct", sig(f.expected / amount * 100)},
                       {"low_pct", sig(f.low / amount * 100)},
                       {"high_pct", sig(f.high / amount * 100)},
                       {"amount", cents(amount)},
                       {"currency", br.budget.currency}});
  }
  if (!budgets.empty()) {
    const Json y = {
        {"field", "budget"}, {"type", "nominal"}, {"title", "budget (period)"}, {"sort", nullptr}};
    const std::string interval = fmt::format("{:.0f} %", r.forecast_interval * 100);
    Json s = base_spec(
        "Spend so far and the forecast of each budget's period, as a share of the budget");
    s["data"] = {{"values", std::move(budgets)}};
    s["layer"] = Json::array(
        {{{"mark", {{"type", "bar"}, {"color", "#4c78a8"}, {"tooltip", true}}},
          {"encoding",
           {{"y", y},
            {"x",
             {{"field", "spent_pct"},
              {"type", "quantitative"},
              {"title", "share of the budget (%): spent (bar), forecast " + interval +
                            " interval (line) and expected total (tick)"}}}}}},
         {{"mark", {{"type", "rule"}, {"color", "#333"}, {"strokeWidth", 2}}},
          {"encoding",
           {{"y", y},
            {"x", {{"field", "low_pct"}, {"type", "quantitative"}}},
            {"x2", {{"field", "high_pct"}}}}}},
         {{"mark", {{"type", "tick"}, {"color", "#333"}, {"thickness", 3}}},
          {"encoding", {{"y", y}, {"x", {{"field", "expected_pct"}, {"type", "quantitative"}}}}}},
         {{"data", {{"values", Json::array({{{"limit", 100}}})}}},
          {"mark",
           {{"type", "rule"}, {"color", "#d62728"}, {"strokeDash", {6, 3}}, {"strokeWidth", 2}}},
          {"encoding", {{"x", {{"field", "limit"}, {"type", "quantitative"}}}}}}});
    out.push_back(chart("Budgets: spent, forecast and the budget line (dashed, 100 %)", s));
  }
  Json episodes = Json::array();
  for (const auto& a : r.anomalies) {
    const auto& e = a.episode;
    const std::string name =
        fmt::format("{} {}..{} ({})", a.scope, ledger::day_text(e.first_day),
                    ledger::day_text(e.last_day), e.increase ? "rise" : "drop");
    episodes.push_back({{"episode", name},
                        {"spend", "actual"},
                        {"amount", cents(e.actual)},
                        {"currency", a.currency}});
    episodes.push_back({{"episode", name},
                        {"spend", "expected"},
                        {"amount", cents(e.expected)},
                        {"currency", a.currency}});
  }
  if (!episodes.empty()) {
    const Json s = grouped_bar_spec(
        "Anomaly episodes: actual against expected spend", std::move(episodes), "episode",
        "scope, days (direction)", {"spend", "spend", {"actual", "expected"}, {"#d62728", "#9ab"}},
        "amount", "spend over the episode (currency of the scope)", ",.0f");
    out.push_back(chart("Anomalies: actual against expected spend", s));
  }
  return out;
}

std::vector<Chart> waste_charts(const governance::CheckResult& r) {
  std::vector<Chart> out;
  Json rows = Json::array();
  std::set<std::string> currencies;
  for (const auto& w : r.waste) {
    const auto& f = w.finding;
    if (!(f.monthly_saving > 0)) continue;
    rows.push_back({{"finding", std::string(governance::waste_kind_name(f.kind)) + " " + f.subject},
                    {"saving", cents(f.monthly_saving)},
                    {"currency", f.currency}});
    currencies.insert(f.currency);
  }
  if (rows.empty()) return out;
  const std::string money =
      currencies.size() == 1 ? *currencies.begin() : "each finding's currency";
  out.push_back(
      chart("Waste: saving a month if fixed",
            bar_spec("Monthly saving of each waste finding", std::move(rows), "finding",
                     "kind, subject", "saving", "saving a 30-day month (" + money + ")", ",.0f")));
  return out;
}

std::vector<Chart> plan_actual_charts(const governance::CheckResult& r) {
  std::vector<Chart> out;
  for (const auto& p : r.plans) {
    Json rows = Json::array();
    for (const auto& c : p.categories) {
      rows.push_back({{"category", c.category},
                      {"spend", "planned to date"},
                      {"amount", cents(c.planned_to_date)}});
      rows.push_back({{"category", c.category}, {"spend", "actual"}, {"amount", cents(c.actual)}});
    }
    if (rows.empty()) continue;
    const Json s = grouped_bar_spec(
        "Plan against actual of run budget " + p.budget + " by the plan's cost categories",
        std::move(rows), "category", "cost category",
        {"spend", "spend", {"planned to date", "actual"}, {"#9ab", "#4c78a8"}}, "amount",
        "cost to date (" + p.currency + ")", ",.0f");
    out.push_back(chart(fmt::format("{}: plan to date against actual ({:.0f} of {:.0f} days)",
                                    p.budget, p.elapsed_days, p.planned_days),
                        s));
  }
  return out;
}

}  // namespace aicost::report
