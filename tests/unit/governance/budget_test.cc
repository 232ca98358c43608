// Budgets: periods, hierarchies, levels, and alerts that fire once per level crossing.
#include "aicost/governance/budget.h"

#include <gtest/gtest.h>

#include <map>

namespace aicost::governance {
namespace {

constexpr core::WideNanos kUnit = core::kNanosPerUnit;
const ledger::Day kJune1 = ledger::days_from_civil(2025, 6, 1);

Budget budget(std::string name, core::WideNanos amount, std::string parent = "") {
  Budget b;
  b.name = std::move(name);
  b.amount = amount * kUnit;
  b.parent = std::move(parent);
  return b;
}

TEST(BudgetPeriod, MonthQuarterAndRun) {
  Budget b = budget("b", 100);
  auto p = period_of(b, kJune1 + 17);
  EXPECT_EQ(p.start, kJune1);
  EXPECT_EQ(p.end, ledger::days_from_civil(2025, 7, 1));
  EXPECT_EQ(p.label, "2025-06");
  b.period = PeriodKind::kQuarter;
  p = period_of(b, ledger::days_from_civil(2025, 12, 31));
  EXPECT_EQ(p.start, ledger::days_from_civil(2025, 10, 1));
  EXPECT_EQ(p.end, ledger::days_from_civil(2026, 1, 1));
  EXPECT_EQ(p.label, "2025-Q4");
  b.period = PeriodKind::kRun;
  b.start = kJune1;
  b.plan = PlanLine{};
  b.plan->wall_days = 9.2;  // a run the plan says lasts 9.2 days: 10 whole days
  p = period_of(b, kJune1 + 100);
  EXPECT_EQ(p.start, kJune1);
  EXPECT_EQ(p.end, kJune1 + 10);
  EXPECT_EQ(p.label, "run 2025-06-01..2025-06-10");
}

TEST(BudgetHierarchy, ChildrenInheritScopeAndComeAfterParents) {
  Budget project = budget("project", 10, "team");
  project.scope.push_back({{ledger::Dimension::kTag, "project"}, "atlas"});
  Budget team = budget("team", 50, "org");
  team.scope.push_back({{ledger::Dimension::kTag, "team"}, "llm"});
  Budget org = budget("org", 100);
  org.scope.push_back({{ledger::Dimension::kProvider, {}}, "AWS"});
  auto r = resolve_hierarchy({project, team, org});
  ASSERT_TRUE(r) << r.error().what();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].name, "org");
  EXPECT_EQ((*r)[1].name, "team");
  EXPECT_EQ((*r)[2].name, "project");
  ASSERT_EQ((*r)[2].scope.size(), 3u);  // provider, team, project
  EXPECT_EQ((*r)[2].scope[0].value, "AWS");
  EXPECT_EQ((*r)[2].scope[2].value, "atlas");
}

TEST(BudgetHierarchy, ErrorsSayWhatToFix) {
  auto message = [](std::vector<Budget> b) {
    auto r = resolve_hierarchy(std::move(b));
    return r ? std::string("ok") : r.error().message;
  };
  EXPECT_NE(message({budget("a", 1, "nobody")}).find("unknown parent 'nobody'"), std::string::npos);
  EXPECT_NE(message({budget("a", 1, "b"), budget("b", 1, "a")}).find("its own ancestor"),
            std::string::npos);
  EXPECT_NE(message({budget("a", 1), budget("a", 2)}).find("defined twice"), std::string::npos);
  EXPECT_NE(message({budget("a", 0)}).find("positive amount"), std::string::npos);
  Budget eur = budget("e", 1, "a");
  eur.currency = "EUR";
  EXPECT_NE(message({budget("a", 1), eur}).find("in EUR but its parent 'a' is in USD"),
            std::string::npos);
  Budget run = budget("r", 1);
  run.period = PeriodKind::kRun;
  EXPECT_NE(message({run}).find("needs a start date"), std::string::npos);
  run.start = kJune1;
  EXPECT_NE(message({run}).find("needs an end date or a plan"), std::string::npos);
  Budget levels = budget("l", 1);
  levels.levels = {{"a", 0.9, false}, {"b", 0.8, false}};
  EXPECT_NE(message({levels}).find("ascending"), std::string::npos);
}

// A simulated month: 1000 a day against 25000. Checked every day with the alerts sent so far,
// each level crossing alerts exactly once: the forecast (30000) jumps to breached on day 1 (one
// alert, not three), the actual spend reaches 80 % on day 20, 90 % on day 23 (22500 is reached,
// not passed, on 22.5) and 100 % on day 25.
TEST(BudgetAlerts, EachLevelFiresOncePerBasisOverASimulatedMonth) {
  const Budget b = budget("llm", 25000);
  std::set<std::string> fired;
  std::map<std::string, int> count;
  std::map<std::string, int> first_day;
  DailySeries history;
  for (int k = 1; k <= 30; ++k) {
    history.push_back({kJune1 + k - 1, 1000.0});
    const ledger::Day as_of = kJune1 + k;
    const Period p = period_of(b, kJune1);
    const Forecast f = forecast_period(history, p.start, p.end, as_of);
    const auto s = budget_status(b, p, as_of, static_cast<core::WideNanos>(k) * 1000 * kUnit, f);
    for (const auto& a : due_alerts(b, s, as_of, fired)) {
      const std::string what = std::string(basis_name(a.basis)) + ":" + a.level.name;
      ++count[what];
      first_day.emplace(what, k);
      fired.insert(a.covers.begin(), a.covers.end());
    }
  }
  EXPECT_EQ(count, (std::map<std::string, int>{{"actual:yellow", 1},
                                               {"actual:red", 1},
                                               {"actual:breached", 1},
                                               {"forecast:breached", 1}}));
  EXPECT_EQ(first_day["forecast:breached"], 1);
  EXPECT_EQ(first_day["actual:yellow"], 20);
  EXPECT_EQ(first_day["actual:red"], 23);
  EXPECT_EQ(first_day["actual:breached"], 25);
}

TEST(BudgetAlerts, GatingLevelsAndTheNextPeriodStartsAfresh) {
  const Budget b = budget("llm", 100);
  const Period june = period_of(b, kJune1);
  Forecast f;
  f.expected = 85;
  auto s = budget_status(b, june, kJune1 + 10, 50 * kUnit, f);
  EXPECT_EQ(s.actual_level, -1);
  EXPECT_EQ(s.forecast_level, 0);  // yellow does not gate
  EXPECT_FALSE(s.gates(b));
  EXPECT_DOUBLE_EQ(s.used, 0.5);
  f.expected = 95;
  s = budget_status(b, june, kJune1 + 10, 50 * kUnit, f);
  EXPECT_TRUE(s.gates(b));  // red on forecast
  // After the period, the forecast no longer counts; the spend does.
  s = budget_status(b, june, june.end, 100 * kUnit, f);
  EXPECT_EQ(s.forecast_level, -1);
  EXPECT_EQ(s.actual_level, 2);
  std::set<std::string> fired;
  const auto june_alerts = due_alerts(b, s, june.end, fired);
  ASSERT_EQ(june_alerts.size(),
            1u);  // breached on actual; the lower levels and the forecast settled with it
  EXPECT_EQ(june_alerts[0].level.name, "breached");
  for (const auto& a : june_alerts) fired.insert(a.covers.begin(), a.covers.end());
  EXPECT_EQ(fired.size(), 6u);
  EXPECT_TRUE(due_alerts(b, s, june.end, fired).empty());
  const Period july = period_of(b, june.end);
  const auto july_status = budget_status(b, july, july.start + 1, 95 * kUnit, f);
  EXPECT_EQ(due_alerts(b, july_status, july.start + 1, fired).size(),
            1u);  // a new period alerts again: red
  // A forecast above the spend's level alerts; at or below it, not.
  f.expected = 120;
  const auto ahead = budget_status(b, july, july.start + 1, 85 * kUnit, f);
  const auto both = due_alerts(b, ahead, july.start + 1, {});
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].basis, Basis::kActual);
  EXPECT_EQ(both[0].level.name, "yellow");
  EXPECT_EQ(both[1].basis, Basis::kForecast);
  EXPECT_EQ(both[1].level.name, "breached");
  EXPECT_NE(due_alerts(b, s, june.end, {})
                .front()
                .message()
                .find("budget 'llm' 2025-06: spent 100.00 USD of 100.00 USD"),
            std::string::npos);
}

}  // namespace
}  // namespace aicost::governance
