// The budget file format, read from the shipped example (docs/GOVERNANCE.md).
#include "aicost/config/budgets.h"

#include <gtest/gtest.h>

#include "temp_dir.h"

namespace aicost::config {
namespace {

const std::string kExample = std::string(AICOST_SOURCE_DIR) + "/examples/governance/budgets.yaml";

TEST(BudgetFile, ExampleReadsEveryField) {
  auto f = load_budgets(kExample);
  ASSERT_TRUE(f) << f.error().what();
  ASSERT_EQ(f->budgets.size(), 6u);
  const auto& org = f->budgets[0];
  EXPECT_EQ(org.name, "ai-lab");
  EXPECT_EQ(org.amount, core::WideNanos{240000} * core::kNanosPerUnit);
  EXPECT_EQ(org.currency, "USD");
  EXPECT_TRUE(org.scope.empty());
  EXPECT_EQ(org.levels.size(), 3u);
  // The run budget comes last (depth 2) with its parent's scope, its plan and an inclusive end.
  const auto& run = f->budgets.back();
  EXPECT_EQ(run.name, "atlas-70b-pretrain-r3");
  EXPECT_EQ(run.period, governance::PeriodKind::kRun);
  EXPECT_EQ(run.start, ledger::days_from_civil(2025, 6, 16));
  EXPECT_EQ(run.end, ledger::days_from_civil(2025, 7, 1));
  ASSERT_EQ(run.scope.size(), 2u);
  EXPECT_EQ(ledger::group_key_name(run.scope[0].key), "tag:team");
  EXPECT_EQ(run.scope[1].value, "atlas-70b-pretrain-r3");
  ASSERT_TRUE(run.plan);
  EXPECT_NEAR(run.plan->total_cost, 60056.38, 0.01);
  EXPECT_NEAR(run.plan->gpu_hours, 7929.84, 0.01);
  EXPECT_GT(run.plan->mfu, 0.3);
  // Levels: plain percentages take the default names; red (90 %) gates by default.
  const auto& serve = f->budgets[2];
  EXPECT_EQ(serve.name, "llm-serve");
  ASSERT_EQ(serve.levels.size(), 3u);
  EXPECT_EQ(serve.levels[0].name, "yellow");
  EXPECT_FALSE(serve.levels[0].gates);
  EXPECT_TRUE(serve.levels[1].gates);
  EXPECT_TRUE(serve.levels[2].gates);
  const auto& o = f->options;
  EXPECT_EQ(o.anomaly.window_days, 28);
  EXPECT_DOUBLE_EQ(o.anomaly.relative_threshold, 0.2);
  EXPECT_DOUBLE_EQ(o.anomaly.k_sigma, 3);
  EXPECT_DOUBLE_EQ(o.anomaly.min_impact, 500);
  EXPECT_EQ(o.anomaly_lookback_days, 7);
  EXPECT_EQ(o.root_cause, ledger::Dimension::kService);
  EXPECT_EQ(o.forecast.history_days, 56);
  EXPECT_EQ(o.aliases.at("team"), (std::vector<std::string>{"owner_team", "squad"}));
}

TEST(BudgetFile, UnknownKeysAreRefusedWithASuggestion) {
  const testing::TempDir dir;
  auto r = load_budgets(dir.write("budgets-typo.yaml",
                                  "budgets:\n  - name: a\n    amount: 10 USD\n    perod: month\n"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("period"), std::string::npos) << r.error().message;
}

// A GPU-hour grant carries its unit in the amount (examples/usage/budgets.yaml); a unit that is
// neither a currency code nor GPU-h is refused.
// Dates go through ledger::parse_day (tests/unit/ledger/charge_test.cc has the calendar); here,
// that a day the calendar lacks is refused at its place in the file, as sscanf took it before.
TEST(BudgetFile, ADayTheCalendarLacksIsRefusedAtItsPlace) {
  const testing::TempDir dir;
  auto r = load_budgets(dir.write("budgets-feb31.yaml",
                                  "budgets:\n  - name: a\n    amount: 10 USD\n"
                                  "    period: run\n    start: 2025-02-01\n"
                                  "    end: 2025-02-31\n"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("'end': 2025-02-31: February 2025 has 28 days"),
            std::string::npos)
      << r.error().message;
  ASSERT_TRUE(r.error().location);
  EXPECT_EQ(r.error().location->line, 6);
}

TEST(BudgetFile, GpuHourAmountsCarryTheirUnit) {
  auto f = load_budgets(std::string(AICOST_SOURCE_DIR) + "/examples/usage/budgets.yaml");
  ASSERT_TRUE(f) << f.error().what();
  const governance::Budget* llm = nullptr;
  for (const auto& b : f->budgets)
    if (b.name == "llm-gpu-hours") llm = &b;
  ASSERT_NE(llm, nullptr);
  EXPECT_EQ(llm->currency, "GPU-h");
  EXPECT_EQ(llm->amount, core::WideNanos{5000} * core::kNanosPerUnit);
  EXPECT_EQ(f->options.aliases.at("team"), (std::vector<std::string>{"account"}));
  const testing::TempDir dir;
  auto r = load_budgets(dir.write("b.yaml", "budgets:\n  - name: a\n    amount: 10 gpu-hours\n"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("or GPU-hours, as in '5000 GPU-h'; got '10 gpu-hours'"),
            std::string::npos)
      << r.error().message;
  // A GPU-hour budget under a money budget is two units: the hierarchy refuses it.
  auto mixed = load_budgets(dir.write("m.yaml",
                                      "budgets:\n  - {name: a, amount: 10 USD}\n"
                                      "  - {name: b, parent: a, amount: 10 GPU-h}\n"));
  ASSERT_FALSE(mixed);
  EXPECT_NE(mixed.error().message.find("is in GPU-h but its parent 'a' is in USD"),
            std::string::npos)
      << mixed.error().message;
}

}  // namespace
}  // namespace aicost::config
