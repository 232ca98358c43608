// --guardrails G.yaml: every red line read with its unit; mistakes named with file:line:col.
#include "aicost/config/guardrails.h"

#include <gtest/gtest.h>

namespace aicost::config {
namespace {

using core::ErrorCode;

core::Result<optimize::Guardrails> parse(const std::string& text) {
  return parse_guardrails(text, "g.yaml");
}

void expect_error(const core::Result<optimize::Guardrails>& g, const std::string& context,
                  const std::string& fragment) {
  ASSERT_FALSE(g);
  EXPECT_EQ(g.error().code, ErrorCode::kInvalidInput);
  EXPECT_EQ(g.error().context, context);
  EXPECT_NE(g.error().message.find(fragment), std::string::npos) << g.error().message;
}

TEST(Guardrails, EveryLineIsRead) {
  auto g = parse(R"(min_retention:
  logs: 5y
  checkpoints: 12h
max_recovery_time: 2h
min_mfu: 35%
security_floor: true
max_risk: low
capacity_buffer: 15%
max_over_sla: 0.5%
max_data_stall: 2%
max_cost_rise: 5%
min_gpu_activity: 40%
)");
  ASSERT_TRUE(g) << g.error().what();
  EXPECT_EQ(g->min_retention.at("logs").value(), 5 * 8760 * 3600.0);
  EXPECT_EQ(g->min_retention.at("checkpoints").value(), 12 * 3600.0);
  EXPECT_EQ(g->max_recovery->value(), 7200);
  EXPECT_DOUBLE_EQ(*g->min_mfu, 0.35);
  EXPECT_EQ(g->max_risk, optimize::RiskLevel::kLow);
  EXPECT_DOUBLE_EQ(g->capacity_buffer, 0.15);
  EXPECT_DOUBLE_EQ(*g->max_over_sla, 0.005);
  EXPECT_DOUBLE_EQ(*g->max_data_stall, 0.02);
  EXPECT_DOUBLE_EQ(*g->max_cost_rise, 0.05);
  EXPECT_DOUBLE_EQ(*g->min_gpu_activity, 0.40);
  EXPECT_EQ(g->source, "g.yaml");
}

TEST(Guardrails, EmptyFileKeepsTheDefaults) {
  auto g = parse("");
  ASSERT_TRUE(g) << g.error().what();
  EXPECT_EQ(g->max_risk, optimize::RiskLevel::kMedium);
  EXPECT_DOUBLE_EQ(g->capacity_buffer, 0.10);
  EXPECT_TRUE(g->security_floor);
  EXPECT_TRUE(g->min_retention.empty());
  EXPECT_FALSE(g->max_recovery);
  EXPECT_FALSE(g->min_mfu);
  EXPECT_FALSE(g->max_over_sla);
  EXPECT_FALSE(g->max_data_stall);
  EXPECT_EQ(g->data_stall_limit(), 0);
}

TEST(Guardrails, TypoInAKeySuggestsTheKey) {
  expect_error(parse("max_recovery_time: 2h\nmin_retension:\n  logs: 5y\n"), "g.yaml:2:1",
               "unknown key 'min_retension'. Did you mean 'min_retention'?");
}

TEST(Guardrails, UnknownDataKindSuggestsTheKind) {
  expect_error(parse("min_retention:\n  log: 5y\n"), "g.yaml:2:3",
               "unknown data kind 'log' in 'min_retention'. Did you mean 'logs'?");
}

TEST(Guardrails, NumberWithoutUnitAsksForOne) {
  expect_error(parse("max_recovery_time: 2\n"), "g.yaml:1:20", "has no unit");
  expect_error(parse("min_retention:\n  logs: 1825\n"), "g.yaml:2:9", "has no unit");
}

TEST(Guardrails, BadRiskLevelListsTheLevels) {
  expect_error(parse("max_risk: meduim\n"), "g.yaml:1:11",
               "max_risk must be low, medium or high, got 'meduim'. Did you mean 'medium'?");
}

TEST(Guardrails, SecurityFloorCannotBeTurnedOff) {
  expect_error(parse("security_floor: false\n"), "g.yaml:1:17", "cannot be turned off");
}

TEST(Guardrails, SharesAreBounded) {
  expect_error(parse("min_mfu: 135%\n"), "g.yaml:1:10", "at most 100%");
  expect_error(parse("capacity_buffer: 100%\n"), "g.yaml:1:18", "below 100%");
  expect_error(parse("max_over_sla: 100%\n"), "g.yaml:1:15",
               "a share of requests, at least 0% and below 100%");
  expect_error(parse("max_over_sla: 0.01\n"), "g.yaml:1:15", "has no unit");
  expect_error(parse("max_data_stall: 100%\n"), "g.yaml:1:17",
               "a share of the step time, at least 0% and below 100%");
  expect_error(parse("min_gpu_activity: 140%\n"), "g.yaml:1:19", "a share of the time, 0% to 100%");
  expect_error(parse("min_gpu_activity: 0.4\n"), "g.yaml:1:19", "has no unit");
  expect_error(parse("max_cost_rise: -5%\n"), "g.yaml:1:16", "is negative");
}

// The change journal's limits are absent unless the file gives them (a change keeps only its own).
TEST(Guardrails, JournalLimitsOnlyWhenGiven) {
  auto g = parse("max_risk: low\n");
  ASSERT_TRUE(g) << g.error().what();
  EXPECT_FALSE(g->max_cost_rise);
  EXPECT_FALSE(g->min_gpu_activity);
}

TEST(Guardrails, MalformedYamlIsAParseError) {
  auto g = parse("min_retention: [logs\n");
  ASSERT_FALSE(g);
  EXPECT_EQ(g.error().code, ErrorCode::kParse);
}

TEST(Guardrails, MissingFileIsAnIoError) {
  auto g = load_guardrails("/nonexistent/guardrails.yaml");
  ASSERT_FALSE(g);
  EXPECT_EQ(g.error().code, ErrorCode::kIo);
}

}  // namespace
}  // namespace aicost::config
