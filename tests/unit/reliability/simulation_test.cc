// The Monte-Carlo simulation against the closed form where the closed form is exact, and its
// determinism.
#include <gtest/gtest.h>

#include <cmath>

#include "aicost/reliability/closed_form.h"
#include "aicost/reliability/simulation.h"

namespace aicost::reliability {
namespace {

using core::Seconds;

// A job whose interrupts come at 1 per 3 hours (exponential), 30-minute checkpoints.
SimulationSpec job(double mtbf_hours = 3.0) {
  SimulationSpec s;
  s.work = Seconds(20 * 86400.0);
  s.interval = Seconds(1800);
  s.blocking = Seconds(30);
  s.restart = Seconds(900);
  s.gpus = 1024;
  FailureCause c;
  c.name = "all";
  c.per_gpu_hour = 1.0 / (mtbf_hours * s.gpus);
  c.nodes_lost = 1;
  s.failures.causes = {c};
  return s;
}

// Exponential interrupts, no spare limit: the closed form is exact, so the sample mean must be
// within 3 standard errors of it.
TEST(Simulation, MeanAgreesWithClosedFormWithinThreeSigma) {
  const auto spec = job();
  SimulationOptions o;
  o.runs = 4000;
  o.seed = 42;
  const auto r = simulate(spec, o);
  const Seconds m(1 / spec.failures.job_rate(spec.gpus));
  const double exact =
      expected_wall_time(spec.work, spec.interval, spec.blocking, spec.restart, m).value();
  EXPECT_NEAR(r.wall_s.mean, exact, 3 * r.wall_s.sem(r.runs));
  const auto b = expected_losses(spec.work, spec.interval, spec.blocking, spec.restart, m);
  EXPECT_NEAR(r.interruptions.mean, b.interruptions, 3 * r.interruptions.sem(r.runs));
}

TEST(Simulation, SameSeedSameResultForAnyThreadCount) {
  const auto spec = job();
  SimulationOptions o;
  o.runs = 300;
  o.seed = 7;
  o.threads = 1;
  const auto a = simulate(spec, o);
  for (int threads : {2, 3, 8}) {
    o.threads = threads;
    const auto b = simulate(spec, o);
    EXPECT_EQ(a.wall_s.mean, b.wall_s.mean);
    EXPECT_EQ(a.wall_s.p10, b.wall_s.p10);
    EXPECT_EQ(a.wall_s.p90, b.wall_s.p90);
    EXPECT_EQ(a.lost_work, b.lost_work);
    EXPECT_EQ(a.events, b.events);
    EXPECT_EQ(a.wall_histogram.counts, b.wall_histogram.counts);
  }
  o.seed = 8;
  EXPECT_NE(simulate(spec, o).wall_s.mean, a.wall_s.mean);
}

// Bins of equal width from the least value to the greatest, which the last bin holds.
TEST(Histogram, CountsEachValueInItsBinTheGreatestInTheLast) {
  // 0..9 in 5 bins of 1.8: [0,1.8) holds 0 and 1, [1.8,3.6) 2 and 3, ..., [7.2,9] 8 and 9.
  const auto h = histogram({9, 0, 1, 2, 3, 4, 5, 6, 7, 8}, 5);
  EXPECT_EQ(h.lo, 0);
  EXPECT_NEAR(h.width, 1.8, 1e-12);
  EXPECT_EQ(h.counts, (std::vector<int>{2, 2, 2, 2, 2}));
  EXPECT_EQ(histogram({0, 10}, 4).counts, (std::vector<int>{1, 0, 0, 1}));
  const auto same = histogram({3, 3, 3}, 4);  // no spread: one bin of width 0
  EXPECT_EQ(same.lo, 3);
  EXPECT_EQ(same.width, 0);
  EXPECT_EQ(same.counts, (std::vector<int>{3}));
  EXPECT_TRUE(histogram({}, 4).counts.empty());
}

// The runs' histogram: ceil(sqrt(300)) = 18 bins holding all 300 runs, spanning P10..P90; the
// mean read from the bins' midpoints is within half a bin of the runs' mean (each run's wall is
// within half a bin of its bin's midpoint).
TEST(Simulation, WallHistogramHoldsEveryRun) {
  SimulationOptions o;
  o.runs = 300;
  o.seed = 3;
  const auto r = simulate(job(), o);
  const auto& h = r.wall_histogram;
  ASSERT_EQ(h.counts.size(), 18u);
  int runs = 0;
  double sum = 0;
  for (std::size_t i = 0; i < h.counts.size(); ++i) {
    runs += h.counts[i];
    sum += h.counts[i] * (h.lo + (static_cast<double>(i) + 0.5) * h.width);
  }
  EXPECT_EQ(runs, 300);
  EXPECT_GT(h.width, 0);
  EXPECT_LE(h.lo, r.wall_s.p10);
  EXPECT_GE(h.lo + h.width * 18, r.wall_s.p90);
  EXPECT_NEAR(sum / runs, r.wall_s.mean, h.width / 2);
}

// A set cancel flag leaves out every run not started: with it set before the call, none runs
// (the progress counter stays 0); with it clear, all do.
TEST(Simulation, CancelFlagStopsTheRuns) {
  const auto spec = job();
  std::atomic<uint64_t> done{0};
  std::atomic<bool> cancel{true};
  SimulationOptions o;
  o.runs = 200;
  o.threads = 2;
  o.progress = &done;
  o.cancel = &cancel;
  simulate(spec, o);
  EXPECT_EQ(done.load(), 0u);
  cancel = false;
  const auto r = simulate(spec, o);
  EXPECT_EQ(done.load(), 200u);
  EXPECT_GT(r.wall_s.mean, spec.work.value());
}

TEST(Simulation, PartsAddUpToWallTime) {
  auto spec = job();
  spec.spare_nodes = 1;
  spec.failures.causes[0].repair_time = Seconds(86400);
  spec.failures.maintenance_per_day = 1;
  spec.failures.maintenance_downtime = Seconds(600);
  SimulationOptions o;
  o.runs = 200;
  const auto r = simulate(spec, o);
  const double parts =
      spec.work.value() + r.checkpoints + r.lost_work + r.restarts + r.stalls + r.maintenance;
  EXPECT_NEAR(r.wall_s.mean, parts, 1e-6 * parts);
  EXPECT_GT(r.stalls, 0);  // one spare and day-long repairs: the job waits sometimes
  EXPECT_GT(r.maintenance, 0);
}

// More spares never make the run longer (same seed: the same interrupt times).
TEST(Simulation, SparesShortenStalls) {
  auto spec = job(1.0);
  spec.failures.causes[0].repair_time = Seconds(2 * 86400.0);
  SimulationOptions o;
  o.runs = 200;
  double previous = std::numeric_limits<double>::infinity();
  for (int spares : {0, 2, 8, 64}) {
    spec.spare_nodes = spares;
    const auto r = simulate(spec, o);
    EXPECT_LE(r.wall_s.mean, previous) << spares;
    previous = r.wall_s.mean;
  }
}

TEST(Simulation, NoFailuresIsDeterministicWorkPlusSaves) {
  auto spec = job();
  spec.failures.causes.clear();
  SimulationOptions o;
  o.runs = 3;
  const auto r = simulate(spec, o);
  const double saves = std::ceil(spec.work.value() / spec.interval.value()) - 1;
  EXPECT_DOUBLE_EQ(r.wall_s.mean, spec.work.value() + saves * spec.blocking.value());
  EXPECT_EQ(r.interruptions.mean, 0);
}

// Weibull interrupts with shape < 1 keep the mean rate, so the interrupt count per hour of wall
// time stays close to the exponential case, but runs spread further (bursts).
TEST(Simulation, WeibullKeepsTheMeanInterruptRate) {
  auto spec = job();
  SimulationOptions o;
  o.runs = 1000;
  const auto expo = simulate(spec, o);
  spec.failures.distribution = Distribution::kWeibull;
  spec.failures.weibull_shape = 0.78;
  const auto weib = simulate(spec, o);
  const double rate_e = expo.interruptions.mean / expo.wall_s.mean;
  const double rate_w = weib.interruptions.mean / weib.wall_s.mean;
  EXPECT_NEAR(rate_w / rate_e, 1.0, 0.05);
  EXPECT_GT(weib.wall_s.stddev, expo.wall_s.stddev);
}

}  // namespace
}  // namespace aicost::reliability
