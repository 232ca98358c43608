// The spend-by-day chart of each budget (report::budget_burn_charts) read as data, on a check
// result built by hand so every point is known.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "aicost/report/charts.h"

namespace aicost::report {
namespace {

using nlohmann::json;

constexpr core::WideNanos kUnit = core::kNanosPerUnit;

ledger::Day june(int d) { return ledger::days_from_civil(2025, 6, d); }

// A June budget of 2,800 USD: 100 USD on each of June 1..10 (1,000 spent), as of June 11, and a
// forecast of 3,000 (2,500..3,600) for the month from June 11 on: on the k-th of the 20 days left
// the total is 1,000 + 100k in [1,000 + 75k, 1,000 + 130k].
governance::BudgetResult june_budget(const std::string& name, core::WideNanos amount) {
  governance::BudgetResult b;
  b.budget.name = name;
  b.budget.amount = amount;
  b.status.period = {june(1), ledger::days_from_civil(2025, 7, 1), "2025-06"};
  for (int d = 1; d <= 10; ++d) b.daily.emplace_back(june(d), 100 * kUnit);
  b.status.spent = 1000 * kUnit;
  auto& f = b.status.forecast;
  f.spent = 1000;
  f.expected = 3000;
  f.low = 2500;
  f.high = 3600;
  f.predicted_from = june(11);
  for (int k = 1; k <= 20; ++k)
    f.path.push_back({june(10 + k), 1000.0 + 100 * k, 1000.0 + 75 * k, 1000.0 + 130 * k});
  return b;
}

governance::CheckResult check_of(std::vector<governance::BudgetResult> budgets) {
  governance::CheckResult r;
  r.as_of = june(11);
  r.forecast_interval = 0.8;
  r.budgets = std::move(budgets);
  return r;
}

// The data of the layer whose mark is `type` (and, for lines, whose y field is `y`).
json layer_data(const json& spec, const std::string& type, const std::string& y) {
  for (const auto& l : spec["layer"]) {
    const std::string mark =
        l["mark"].is_string() ? l["mark"].get<std::string>() : l["mark"]["type"].get<std::string>();
    if (mark == type && l["encoding"]["y"]["field"] == y) return l["data"]["values"];
  }
  ADD_FAILURE() << "no " << type << " layer of " << y;
  return json::array();
}

TEST(BudgetBurnCharts, TheLineIsTheSpendBeforeEachDayAndEndsAtTheSpendSoFar) {
  const auto charts = budget_burn_charts(check_of({june_budget("lab", 2800 * kUnit)}));
  ASSERT_EQ(charts.size(), 1u);
  const json spec = json::parse(charts[0].spec);
  const json line = layer_data(spec, "line", "cumulative");
  // 00:00 of June 1 .. June 11: 11 instants; before June d, (d - 1) days of 100 USD.
  ASSERT_EQ(line.size(), 11u);
  for (int d = 1; d <= 11; ++d) {
    EXPECT_EQ(line[d - 1]["day"], ledger::day_text(june(d)));
    EXPECT_DOUBLE_EQ(line[d - 1]["cumulative"].get<double>(), 100.0 * (d - 1));
  }
  const json limit = layer_data(spec, "rule", "limit");
  ASSERT_EQ(limit.size(), 1u);
  EXPECT_DOUBLE_EQ(limit[0]["limit"].get<double>(), 2800);
  EXPECT_EQ(limit[0]["from"], "2025-06-01");
  EXPECT_EQ(limit[0]["to"], "2025-07-01");
}

// The cone starts at the spend so far with no width, then each predicted day's point sits at the
// day's end (00:00 UTC of the next) with the path's total and interval: June 11 ends at 00:00
// June 12, June 30 at the period's end, 00:00 July 1.
TEST(BudgetBurnCharts, TheConeFollowsTheForecastsDailyPathToThePeriodsInterval) {
  const json spec =
      json::parse(budget_burn_charts(check_of({june_budget("lab", 2800 * kUnit)}))[0].spec);
  const json cone = layer_data(spec, "area", "low");
  ASSERT_EQ(cone.size(), 21u);
  EXPECT_EQ(cone[0]["day"], "2025-06-11");
  for (const char* k : {"low", "expected", "high"})
    EXPECT_DOUBLE_EQ(cone[0][k].get<double>(), 1000) << k;
  for (int k = 1; k <= 20; ++k) {
    EXPECT_EQ(cone[k]["day"], ledger::day_text(june(11 + k))) << k;
    EXPECT_DOUBLE_EQ(cone[k]["low"].get<double>(), 1000.0 + 75 * k) << k;
    EXPECT_DOUBLE_EQ(cone[k]["expected"].get<double>(), 1000.0 + 100 * k) << k;
    EXPECT_DOUBLE_EQ(cone[k]["high"].get<double>(), 1000.0 + 130 * k) << k;
  }
  EXPECT_EQ(cone[20]["day"], "2025-07-01");  // the period's end: its interval
  EXPECT_DOUBLE_EQ(cone[20]["low"].get<double>(), 2500);
  EXPECT_DOUBLE_EQ(cone[20]["high"].get<double>(), 3600);
  EXPECT_EQ(layer_data(spec, "line", "expected"), cone);  // the dashed expected path
}

TEST(BudgetBurnCharts, AnOverPeriodHasNoCone) {
  auto b = june_budget("lab", 2800 * kUnit);
  // Method "actual": nothing left to predict.
  b.status.forecast.predicted_from = b.status.period.end;
  b.status.forecast.path.clear();
  const json spec = json::parse(budget_burn_charts(check_of({b}))[0].spec);
  for (const auto& l : spec["layer"]) EXPECT_NE(l["mark"]["type"], "area");
}

TEST(BudgetBurnCharts, AnomalyDaysAreMarkedAtTheSpendAfterThem) {
  auto r = check_of({june_budget("lab", 2800 * kUnit)});
  governance::AnomalyResult a;
  a.scope = "lab";
  a.currency = "USD";
  a.episode.first_day = june(5);
  a.episode.last_day = june(6);
  a.episode.increase = true;
  r.anomalies.push_back(a);
  a.scope = "another budget";  // not this budget's series
  a.episode.first_day = a.episode.last_day = june(8);
  r.anomalies.push_back(a);
  const json marked = layer_data(json::parse(budget_burn_charts(r)[0].spec), "point", "cumulative");
  // June 5 is the step from 00:00 June 5 (400) to 00:00 June 6 (500): marked at the 500.
  ASSERT_EQ(marked.size(), 2u);
  EXPECT_EQ(marked[0]["day"], "2025-06-06");
  EXPECT_DOUBLE_EQ(marked[0]["cumulative"].get<double>(), 500);
  EXPECT_EQ(marked[1]["day"], "2025-06-07");
  EXPECT_DOUBLE_EQ(marked[1]["cumulative"].get<double>(), 600);
  EXPECT_EQ(marked[0]["episode"], "rise 2025-06-05..2025-06-06");
}

TEST(BudgetBurnCharts, AtMostNBudgetsThoseAtRiskFirstThenTheLargest) {
  std::vector<governance::BudgetResult> budgets;
  for (int i = 0; i < 5; ++i)
    budgets.push_back(june_budget("b" + std::to_string(i), (1000 + 100 * i) * kUnit));
  budgets[1].status.forecast_level = 0;  // yellow by forecast
  budgets[0].status.actual_level = 2;    // breached
  budgets.push_back(june_budget("no amount", 0));
  const auto charts = budget_burn_charts(check_of(budgets), 3);
  // b0 (breached), b1 (yellow), then the largest of the rest, b4; in the check's order.
  ASSERT_EQ(charts.size(), 3u);
  EXPECT_EQ(charts[0].title.rfind("b0 (", 0), 0u) << charts[0].title;
  EXPECT_EQ(charts[1].title.rfind("b1 (", 0), 0u) << charts[1].title;
  EXPECT_EQ(charts[2].title.rfind("b4 (", 0), 0u) << charts[2].title;
  EXPECT_TRUE(budget_burn_charts(check_of({})).empty());
}

}  // namespace
}  // namespace aicost::report
