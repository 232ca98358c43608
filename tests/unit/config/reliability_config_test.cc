// The shipped failure model and the plan's `reliability:` section.
#include <gtest/gtest.h>

#include <cmath>

#include "aicost/config/plan.h"
#include "test_support.h"

namespace aicost::config {
namespace {

core::Result<Plan> parse(const std::string& extra) {
  return parse_plan(testing::minimal_plan_yaml() + extra, "plan.yaml", ".",
                    testing::builtin_catalog());
}

double total_per_gpu_hour(const reliability::FailureModel& m) {
  double sum = 0;
  for (const auto& c : m.causes) sum += c.per_gpu_hour;
  return sum;
}

// data/reliability.yaml groups Llama 3's 419 unexpected interrupts in 54 days on 16,384 GPUs:
// the causes must add back up to 419 / (16,384 x 1,296 h) per GPU-hour (1 % for rounding).
TEST(ShippedFailureModel, AddsUpToLlama3sInterruptCount) {
  auto plan = parse("");
  ASSERT_TRUE(plan) << plan.error().what();
  const auto& m = plan->cost.reliability.failures;
  EXPECT_EQ(m.causes.size(), 6u);
  EXPECT_NEAR(total_per_gpu_hour(m) * 16384 * 54 * 24, 419, 419 * 0.01);
  // 47 planned interrupts in 54 days.
  EXPECT_NEAR(m.maintenance_per_day * 54, 47, 0.1);
}

TEST(ReliabilitySection, GpuMtbfScalesEveryCause) {
  auto plan = parse("reliability:\n  gpu_mtbf: 10000h\n");
  ASSERT_TRUE(plan) << plan.error().what();
  EXPECT_NEAR(total_per_gpu_hour(plan->cost.reliability.failures), 1e-4, 1e-12);
}

TEST(ReliabilitySection, CauseMtbfOverridesOneCause) {
  auto plan = parse("reliability:\n  cause_mtbf:\n    gpu: 1000h\n");
  ASSERT_TRUE(plan) << plan.error().what();
  for (const auto& c : plan->cost.reliability.failures.causes) {
    if (c.name == "gpu") {
      EXPECT_DOUBLE_EQ(c.per_gpu_hour, 1e-3);
    }
  }
}

TEST(ReliabilitySection, UnknownCauseSuggestsTheName) {
  auto plan = parse("reliability:\n  cause_mtbf:\n    gpus: 1000h\n");
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("Did you mean 'gpu'?"), std::string::npos)
      << plan.error().message;
  EXPECT_EQ(plan.error().context, "plan.yaml:14:5");
}

TEST(ReliabilitySection, RestartTimeOverridesTheParts) {
  auto plan = parse("reliability:\n  restart_time: 15min\n  spare_nodes: 4\n  repair_time: 12h\n");
  ASSERT_TRUE(plan) << plan.error().what();
  const auto& r = plan->cost.reliability;
  ASSERT_TRUE(r.restart.fixed_total.has_value());
  EXPECT_EQ(r.restart.fixed_total->value(), 900);
  EXPECT_EQ(r.spare_nodes, 4);
  for (const auto& c : r.failures.causes) {
    if (c.nodes_lost > 0) {
      EXPECT_EQ(c.repair_time.value(), 12 * 3600.0);
    }
  }
}

TEST(ReliabilitySection, WeibullShapeIsAPlainNumber) {
  auto plan = parse("reliability:\n  distribution: weibull\n  weibull_shape: 0.7\n");
  ASSERT_TRUE(plan) << plan.error().what();
  EXPECT_EQ(plan->cost.reliability.failures.distribution, reliability::Distribution::kWeibull);
  EXPECT_DOUBLE_EQ(plan->cost.reliability.failures.weibull_shape, 0.7);
  EXPECT_FALSE(parse("reliability:\n  weibull_shape: -1\n"));
}

TEST(ReliabilitySection, UnitlessMtbfAsksForAUnit) {
  auto plan = parse("reliability:\n  gpu_mtbf: 50000\n");
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("no unit"), std::string::npos) << plan.error().message;
}

// A plan on gcp/a3-highgpu-8g (8 H100 per instance) at its spot price, with `extra` appended.
core::Result<Plan> parse_spot(const std::string& extra) {
  std::string yaml = testing::minimal_plan_yaml();
  yaml = yaml.substr(0, yaml.find("pricing:"));
  return parse_plan(yaml + "pricing:\n  instance: gcp/a3-highgpu-8g\n  mode: spot\n" + extra,
                    "plan.yaml", ".", testing::builtin_catalog());
}

const reliability::FailureCause* cause(const Plan& plan, const std::string& name) {
  for (const auto& c : plan.cost.reliability.failures.causes) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

TEST(SpotPreemption, ShippedRateIsOnePerNodeEvery6929Hours) {
  // data/reliability.yaml: 10 % of spot nodes reclaimed per 730 h month, as a Poisson rate
  // -ln(0.9) / 730 h = 1.4433e-4 per node-hour = one per 6,929 h; per GPU of an 8-GPU node 1/8 of
  // it.
  auto plan = parse_spot("");
  ASSERT_TRUE(plan) << plan.error().what();
  const auto* c = cause(*plan, "spot-preemption");
  ASSERT_NE(c, nullptr);
  EXPECT_NEAR(c->per_gpu_hour, 1.0 / (6929.0 * 8), 1e-12);
  EXPECT_NEAR(-std::log(0.9) / 730, 1.0 / 6929.0, 1e-8);  // the data file's derivation
  EXPECT_EQ(c->nodes_lost, 1);
  bool warned = false;
  for (const auto& w : plan->warnings)
    warned |= w.find("spot_preemption_mtbf") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(SpotPreemption, PlanRateOverridesTheShippedOne) {
  auto plan = parse_spot("reliability:\n  spot_preemption_mtbf: 1000h\n");
  ASSERT_TRUE(plan) << plan.error().what();
  const auto* c = cause(*plan, "spot-preemption");
  ASSERT_NE(c, nullptr);
  EXPECT_NEAR(c->per_gpu_hour, 1.0 / 8000, 1e-15);
}

TEST(SpotPreemption, OnDemandPlansHaveNoPreemptions) {
  auto plan = parse("reliability:\n  spot_preemption_mtbf: 1000h\n");
  ASSERT_TRUE(plan) << plan.error().what();
  EXPECT_EQ(cause(*plan, "spot-preemption"), nullptr);
  bool warned = false;
  for (const auto& w : plan->warnings) warned |= w.find("has no effect") != std::string::npos;
  EXPECT_TRUE(warned);
}

}  // namespace
}  // namespace aicost::config
