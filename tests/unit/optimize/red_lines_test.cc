// Each red line rejects the lever it should, says which line and by how much; a line the plan
// already crosses only rejects a change that makes it worse.
#include <gtest/gtest.h>

#include "aicost/optimize/optimize.h"
#include "optimize_support.h"
#include "temp_dir.h"

namespace aicost::optimize {
namespace {

using testing::hand_edit;
using testing::lever;
using testing::read_text;
using testing::run_optimize;
using testing::source_path;

std::string gpt3_text() { return read_text(source_path("examples/gpt3-175b-a100.yaml")); }

std::vector<Lever> only(std::initializer_list<const char*> ids) {
  std::vector<Lever> out;
  for (const auto& l : training_levers()) {
    for (const char* id : ids) {
      if (l.id == id) out.push_back(l);
    }
  }
  return out;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Highest risk allowed (default medium): spot on 8 nodes is high risk.
TEST(RedLines, RiskAboveTheAllowedLevelIsRejected) {
  const auto res = run_optimize(source_path("tests/plans/optimize-llama3-8b-h100.yaml"), {},
                                only({"pricing-spot"}));
  const auto& l = lever(res, "pricing-spot");
  EXPECT_EQ(l.status, LeverStatus::kRejected);
  EXPECT_EQ(l.red_line.why, "risk high is above the allowed medium");
  Guardrails high;
  high.max_risk = RiskLevel::kHigh;
  EXPECT_EQ(lever(run_optimize(source_path("tests/plans/optimize-llama3-8b-h100.yaml"), high,
                               only({"pricing-spot"})),
                  "pricing-spot")
                .status,
            LeverStatus::kAccepted);
}

// Minimum checkpoint retention: GPT-3 keeps 5 checkpoints 2 h apart (10 h). The cost-optimal
// 48-minute interval would leave 5 x 48 min = 4.0 h, below an 8 h minimum by 4.0 h: the trap of
// a change to the checkpoint schedule that silently shortens how far back one can go.
TEST(RedLines, CheckpointRetentionRejectsAShorterInterval) {
  Guardrails g;
  g.min_retention["checkpoints"] = core::hours(8);
  const auto res =
      run_optimize(source_path("examples/gpt3-175b-a100.yaml"), g, only({"checkpoint-interval"}));
  const auto& l = lever(res, "checkpoint-interval");
  EXPECT_EQ(l.status, LeverStatus::kRejected);
  EXPECT_TRUE(contains(l.red_line.why,
                       "retained checkpoints cover 4.0 h (5 x 48 min), below the "
                       "minimum 8.0 h by 4.0 h"))
      << l.red_line.why;
}

// Maximum recovery time: a plan that checkpoints every 10 min recovers in about 5 min of lost
// work + a 7 min restart; the cost-optimal 49 min interval loses ~25 min per interrupt.
TEST(RedLines, MaxRecoveryRejectsALongerInterval) {
  testing::TempDir dir;
  const std::string plan =
      dir.write("gpt3.yaml", hand_edit(gpt3_text(), "storage", "checkpoint_interval", "10min"));
  Guardrails g;
  g.max_recovery = core::seconds(20 * 60);
  const auto res = run_optimize(plan, g, only({"checkpoint-interval"}));
  const auto& l = lever(res, "checkpoint-interval");
  ASSERT_EQ(l.status, LeverStatus::kRejected) << l.why;
  EXPECT_TRUE(contains(l.red_line.why, "(lost work + restart) is above the maximum 20 min by"))
      << l.red_line.why;
  EXPECT_LT(recovery_per_interrupt(res.baseline).value(), 20 * 60);
}

// Efficiency floor: with a 30-day deadline the cheapest other GPU type for GPT-3 is a fleet of
// L40S at about 37 % MFU, against the A100 plan's 52 %: a 45 % floor rejects it.
TEST(RedLines, EfficiencyFloorRejectsALessEfficientGpuType) {
  testing::TempDir dir;
  const std::string plan = dir.write("gpt3.yaml", gpt3_text() + "search:\n  deadline: 30d\n");
  Guardrails g;
  g.min_mfu = 0.45;
  const auto res = run_optimize(plan, g, only({"gpu-type"}));
  const auto& l = lever(res, "gpu-type");
  ASSERT_EQ(l.status, LeverStatus::kRejected) << l.why;
  ASSERT_TRUE(l.mfu_bf16);
  EXPECT_LT(*l.mfu_bf16, 0.45);
  EXPECT_TRUE(contains(l.red_line.why, "is below the floor 45.0 % by")) << l.red_line.why;
  EXPECT_EQ(lever(run_optimize(plan, {}, only({"gpu-type"})), "gpu-type").status,
            LeverStatus::kAccepted);
}

// The plan's deadline: spot adds preemptions, so a deadline just above the on-demand wall time
// is missed.
TEST(RedLines, DeadlineRejectsASlowerPlan) {
  testing::TempDir dir;
  const std::string text = read_text(source_path("tests/plans/optimize-llama3-8b-h100.yaml"));
  const std::string plan = dir.write("h100.yaml", hand_edit(text, "search", "deadline", "20.74d"));
  Guardrails g;
  g.max_risk = RiskLevel::kHigh;
  const auto res = run_optimize(plan, g, only({"pricing-spot"}));
  ASSERT_LT(res.baseline.wall_days(), 20.74);
  const auto& l = lever(res, "pricing-spot");
  ASSERT_EQ(l.status, LeverStatus::kRejected) << l.why;
  EXPECT_TRUE(contains(l.red_line.why, "miss the plan's deadline of 20.7 days by"))
      << l.red_line.why;
}

// A lever for the security floor and log retention: no shipped lever cuts security spend or logs
// below a minimum (log-retention stops at the minimum, tested below), so these red lines are
// held against a lever that would.
Lever cutting(const char* id, Change c) {
  return {id, "test", "", [c](const LeverContext&) {
            Proposal p;
            p.change = c;
            p.risk = {RiskLevel::kLow, {"test"}, "a test lever"};
            return p;
          }};
}

TEST(RedLines, SecurityFloorRejectsACutInSecuritySpend) {
  const auto res = run_optimize(source_path("examples/gpt3-175b-a100.yaml"), {},
                                {cutting("cut-security", {{"security", "500USD/month"}})});
  const auto& l = lever(res, "cut-security");
  EXPECT_EQ(l.status, LeverStatus::kRejected);
  EXPECT_EQ(l.red_line.why, "cuts security spend by 1000 USD/month (security floor)");
}

TEST(RedLines, LogRetentionMinimumRejectsAShorterRetention) {
  Guardrails g;
  g.min_retention["logs"] = core::days(14);
  const auto res = run_optimize(source_path("examples/gpt3-175b-a100.yaml"), g,
                                {cutting("cut-logs", {{"storage.log_retention", "1d"}})});
  const auto& l = lever(res, "cut-logs");
  EXPECT_EQ(l.status, LeverStatus::kRejected);
  EXPECT_EQ(l.red_line.why, "log retention 1.0 d is below the minimum 14.0 d by 13.0 d");
}

TEST(RedLines, LogRetentionLeverStopsAtTheMinimum) {
  Guardrails g;
  g.min_retention["logs"] = core::days(14);
  const auto res =
      run_optimize(source_path("examples/gpt3-175b-a100.yaml"), g, only({"log-retention"}));
  const auto& l = lever(res, "log-retention");
  EXPECT_EQ(l.status, LeverStatus::kAccepted);
  ASSERT_EQ(l.change.size(), 1u);
  EXPECT_EQ(l.change.front().value, "14d");
}

TEST(RedLines, AChangeThatDoesNotFitInMemoryIsRejected) {
  const auto res =
      run_optimize(source_path("examples/gpt3-175b-a100.yaml"), {},
                   {cutting("no-recompute", {{"parallelism.recompute_granularity", "none"},
                                             {"parallelism.micro_batch_size", "16"}})});
  const auto& l = lever(res, "no-recompute");
  ASSERT_TRUE(l.saving_usd);
  EXPECT_FALSE(l.red_line.ok);
  EXPECT_TRUE(contains(l.red_line.why, "does not fit in GPU memory")) << l.red_line.why;
}

// A line the plan already crosses is reported once, and does not reject changes that leave it
// no worse.
TEST(RedLines, APlanAlreadyAcrossALineIsReportedNotBlamedOnLevers) {
  Guardrails g;
  g.min_mfu = 0.9;
  const auto res =
      run_optimize(source_path("examples/gpt3-175b-a100.yaml"), g, only({"checkpoint-async"}));
  ASSERT_EQ(res.warnings.size(), 1u);
  EXPECT_TRUE(contains(res.warnings.front(), "the plan itself crosses a red line: MFU 52.3 %"));
  EXPECT_EQ(lever(res, "checkpoint-async").status, LeverStatus::kAccepted);
}

}  // namespace
}  // namespace aicost::optimize
