// Decisions of the reliability analysis: the cost-optimal interval, the levers, the spare sweep.
#include <gtest/gtest.h>

#include "aicost/reliability/analysis.h"
#include "aicost/reliability/spares.h"

namespace aicost::reliability {
namespace {

using core::Seconds;

// 4,096 GPUs at one interrupt per 50,000 GPU-hours: M = 50,000 / 4,096 h = 12.2 h.
RunInputs run() {
  RunInputs in;
  in.work = core::days(30);
  in.gpus = 4096;
  in.failures.causes = {{"all", 1.0 / 50000, 1, core::days(2), {}}};
  in.checkpoint.size = core::Bytes(2e12);
  in.checkpoint.write_bandwidth = core::gb_per_s(20);  // 100 s per save
  in.checkpoint.read_bandwidth = core::gb_per_s(40);
  in.fleet_rate = core::usd_per_hour(2.0) * 4096.0;
  in.storage_price = core::usd_per_gb_month(0.023);
  return in;
}

double money(const RunInputs& in, Seconds tau) {
  const auto l = losses_at(in, tau);
  return in.fleet_rate.value() * l.wall().value() + storage_usd_at(in, tau, l.wall());
}

TEST(Analysis, CostOptimalIntervalMinimisesMoney) {
  const auto in = run();
  const auto a = analyze(in);
  const double best = money(in, a.cost_optimal);
  EXPECT_LT(best, money(in, a.cost_optimal * 1.1));
  EXPECT_LT(best, money(in, a.cost_optimal * 0.9));
  // With retention by count, storage grows with wall time only: the money optimum is the time
  // optimum (Lambert W) up to the search tolerance.
  EXPECT_NEAR(a.cost_optimal.value(), a.exact.value(), 0.01 * a.exact.value());
}

// Retention by age keeps keep_for / tau checkpoints: frequent saves cost storage, so the money
// optimum moves to longer intervals than the time optimum.
TEST(Analysis, RetentionByAgePushesTheIntervalUp) {
  auto in = run();
  in.keep_for = core::days(7);
  in.storage_price = core::usd_per_gb_month(2.0);  // an expensive tier makes the effect visible
  const auto a = analyze(in);
  EXPECT_GT(a.cost_optimal.value(), a.exact.value() * 1.05);
}

TEST(Analysis, ThePlansIntervalIsUsedWhenGiven) {
  auto in = run();
  in.interval = Seconds(3600);
  EXPECT_EQ(analyze(in).interval.value(), 3600);
}

TEST(Analysis, EveryLeverSavesTime) {
  const auto a = analyze(run());
  ASSERT_GE(a.levers.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_GT(a.levers[i].saved_days, 0) << a.levers[i].name;
  // Halving the interrupt rate halves the expected interruptions' cost: the biggest lever here.
  EXPECT_EQ(a.levers[0].name, "halve the interrupt rate");
}

// "Halve the restart time" acts on the restart however the plan gives it: as one time
// (restart_time: 20min) its saving is that of a second analysis at 10 min; as parts, that of the
// parts and the checkpoint read halved.
TEST(Analysis, HalvingTheRestartActsOnTheFormThePlanUses) {
  auto saved = [](const RunInputs& in) {
    const auto a = analyze(in);
    for (const auto& l : a.levers)
      if (l.name == "halve the restart time") return l.saved_days;
    ADD_FAILURE() << "no restart lever";
    return 0.0;
  };
  const auto days = [](const RunInputs& in) {
    return core::in_days(analyze(in, false).expected.wall());
  };

  auto fixed = run();
  fixed.restart.fixed_total = Seconds(20 * 60);
  auto half = fixed;
  half.restart.fixed_total = Seconds(10 * 60);
  EXPECT_GT(saved(fixed), 0);
  EXPECT_NEAR(saved(fixed), days(fixed) - days(half), 1e-9);

  auto parts = run();
  parts.restart.detection = Seconds(120);
  parts.restart.rescheduling = Seconds(180);
  parts.restart.initialisation = Seconds(120);
  auto halved = parts;
  halved.restart.detection = Seconds(60);
  halved.restart.rescheduling = Seconds(90);
  halved.restart.initialisation = Seconds(60);
  halved.checkpoint.read_bandwidth = parts.checkpoint.read_bandwidth * 2;
  EXPECT_NEAR(saved(parts), days(parts) - days(halved), 1e-9);
}

// Spares: with day-long repairs and frequent hardware interrupts, a job without spares stalls;
// a handful pays for itself, and far too many only add cost.
TEST(Spares, TheCheapestPoolIsNeitherEmptyNorHuge) {
  auto in = run();
  in.failures.causes[0].per_gpu_hour = 1.0 / 10000;  // M = 2.4 h
  SimulationSpec spec = simulation_spec(in, Seconds(3600), 0);
  SimulationOptions o;
  o.runs = 100;
  const auto d = choose_spares(spec, o, core::usd_per_hour(2.0), spare_ladder(512), 0.001);
  ASSERT_FALSE(d.options.empty());
  EXPECT_GT(d.options[d.cheapest].spare_nodes, 0);
  EXPECT_LT(d.options[d.cheapest].spare_nodes, 51);
  EXPECT_GT(d.options.front().stall_share, 0.1);
  EXPECT_GE(d.meets_target, 0);
}

TEST(Spares, LadderGoesUpToATenth) {
  EXPECT_EQ(spare_ladder(512), (std::vector<int>{0, 1, 2, 4, 8, 16, 32, 51}));
  EXPECT_EQ(spare_ladder(4), (std::vector<int>{0, 1}));
}

}  // namespace
}  // namespace aicost::reliability
