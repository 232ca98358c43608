// `ledger check -o json`'s forecast of each budget (report::render_check), read back as JSON, on a
// check built by hand so every number is known.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "aicost/report/governance_report.h"

namespace aicost::report {
namespace {

using nlohmann::json;

ledger::Day june(int d) { return ledger::days_from_civil(2025, 6, d); }

// A June budget as of June 28: 2,700 spent, and the three days left predicted at 100.004 a day,
// the interval widening by 10.003 a day: day k (1..3) of June 28..30 totals 2,700 + 100.004k in
// [2,700 + 90.001k, 2,700 + 110.007k]. Rounded to cents: 2,800.00 [2,790.00, 2,810.01], 2,900.01
// [2,880.00, 2,920.01], 3,000.01 [2,970.00, 3,030.02].
governance::CheckResult june_check() {
  governance::BudgetResult b;
  b.budget.name = "lab";
  b.budget.currency = "USD";
  b.budget.amount = 3000 * core::kNanosPerUnit;
  b.status.period = {june(1), ledger::days_from_civil(2025, 7, 1), "2025-06"};
  auto& f = b.status.forecast;
  f.spent = 2700;
  f.method = "trend";
  f.predicted_from = june(28);
  for (int k = 1; k <= 3; ++k)
    f.path.push_back({june(27 + k), 2700 + 100.004 * k, 2700 + 90.001 * k, 2700 + 110.007 * k});
  f.expected = f.path.back().expected;
  f.low = f.path.back().low;
  f.high = f.path.back().high;
  governance::CheckResult r;
  r.as_of = june(28);
  r.budgets = {b};
  return r;
}

TEST(CheckJson, TheForecastCarriesItsDailyPathInCents) {
  const json doc = json::parse(render_check(june_check(), Format::kJson));
  const json& forecast = doc["budgets"][0]["forecast"];
  const json expected = json::parse(R"([
    {"day": "2025-06-28", "expected": 2800.0, "low": 2790.0, "high": 2810.01},
    {"day": "2025-06-29", "expected": 2900.01, "low": 2880.0, "high": 2920.01},
    {"day": "2025-06-30", "expected": 3000.01, "low": 2970.0, "high": 3030.02}])");
  EXPECT_EQ(forecast["path"], expected);
  // The last day is the period's figures, as forecast.h promises.
  EXPECT_EQ(forecast["expected"], forecast["path"].back()["expected"]);
  EXPECT_EQ(forecast["low"], forecast["path"].back()["low"]);
  EXPECT_EQ(forecast["high"], forecast["path"].back()["high"]);
  EXPECT_EQ(forecast["method"], "trend");
}

// A period that is over has nothing left to predict: an empty list, not a missing key, so a
// program reads every budget the same way.
TEST(CheckJson, APeriodThatIsOverHasAnEmptyPath) {
  auto r = june_check();
  r.budgets[0].status.forecast.path.clear();
  r.budgets[0].status.forecast.method = "actual";
  const json doc = json::parse(render_check(r, Format::kJson));
  ASSERT_TRUE(doc["budgets"][0]["forecast"].contains("path"));
  EXPECT_EQ(doc["budgets"][0]["forecast"]["path"], json::array());
}

// The Prometheus text keeps to the period's interval: no series per day.
TEST(CheckJson, PrometheusCarriesThePeriodsIntervalOnly) {
  const std::string text = render_prometheus(june_check());
  EXPECT_NE(text.find("aicost_budget_forecast{budget=\"lab\",period=\"2025-06\",currency=\"USD\","
                      "bound=\"high\"} 3030.02"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("2025-06-29"), std::string::npos) << text;
}

}  // namespace
}  // namespace aicost::report
