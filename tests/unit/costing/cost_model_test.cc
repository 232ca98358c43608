#include "aicost/costing/cost_model.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

// Failure model (Young 1974; expected-value form in cost_model.h) and the cost roll-up, on a
// hand-built job and TrainingEstimate so every input is explicit.

namespace aicost::costing {
namespace {

constexpr double kGpus = 1000;
constexpr double kComputeHours = 1000;  // failure-free wall hours
constexpr double kTokens = 1e12;

workload::TrainingJob job() {
  const catalog::ModelSpec s = testing::dense_spec(2, 64, 4, 256, 100);
  workload::TrainingJob j;
  auto m = workload::Model::create(s);
  EXPECT_TRUE(m);
  if (m) j.model = *m;
  j.cluster.gpus = static_cast<int>(kGpus);
  j.tokens = kTokens;
  j.seq_length = 1024;
  j.global_batch = 1000;
  return j;
}

perf::TrainingEstimate perf_estimate() {
  perf::TrainingEstimate e;
  e.compute_time = core::hours(kComputeHours);
  e.gpu_hours = kComputeHours * kGpus;
  return e;
}

CostInputs inputs() {
  CostInputs in;
  in.compute.per_gpu = core::usd_per_hour(2.0);
  in.compute.basis = "2.00 USD/GPU-h (test)";
  in.reliability.failures.causes = {{"all", 1e-5, 1, core::days(2), {}}};
  in.reliability.restart.fixed_total = core::seconds(600);
  in.storage.checkpoint_size = core::Bytes(1e12);              // 1 TB
  in.storage.checkpoint_write_bandwidth = core::gb_per_s(10);  // -> 100 s per save
  in.storage.checkpoints_retained = 5;
  in.storage.checkpoint_price = core::usd_per_gb_month(0.02);
  in.storage.dataset = core::Bytes(2e12);
  in.storage.dataset_price = core::usd_per_gb_month(0.023);
  in.network.egress = core::gb(1000);
  in.network.egress_price = core::usd_per_gb(0.09);
  in.operations.engineers = 2;
  in.operations.engineer_rate = core::UsdPerSecond(20000.0 / core::kSecondsPerMonth);
  in.services.database = core::UsdPerSecond(500.0 / core::kSecondsPerMonth);
  in.services.monitoring_per_gpu = core::UsdPerSecond(1.0 / core::kSecondsPerMonth);
  in.contingency = 0.10;
  return in;
}

const CostLine* line(const CostEstimate& c, const std::string& category) {
  for (const auto& l : c.lines) {
    if (l.category == category) return &l;
  }
  ADD_FAILURE() << "no cost line " << category;
  return nullptr;
}

const CostLine* line_or_null(const CostEstimate& c, const std::string& category) {
  for (const auto& l : c.lines) {
    if (l.category == category) return &l;
  }
  return nullptr;
}

TEST(FailureOverhead, JobMtbfIsInverseOfFleetRate) {
  // 1e-5 interruptions/GPU-h x 1000 GPUs = 0.01/h -> MTBF 100 h.
  const auto f = failure_overhead(job(), perf_estimate(), inputs());
  EXPECT_NEAR(core::in_hours(f.job_mtbf), 100.0, 1e-9);
}

TEST(FailureOverhead, TimeOptimalIntervalWhenNotGiven) {
  // delta = 1e12 B / 1e10 B/s = 100 s; M = 360,000 s. The exact optimum of Daly's model is
  // M (1 + W0(-e^{-(1 + delta/M)})); Daly's series sqrt(2 delta M)(1 + sqrt(x)/3 + x/9) - delta,
  // x = delta / 2M, approximates it to O(x^{3/2}): 8485.28 * (1 + 0.003928 + 0.0000154) - 100.
  const auto f = failure_overhead(job(), perf_estimate(), inputs());
  EXPECT_NEAR(f.checkpoint_blocking.value(), 100.0, 1e-9);
  const double x = 100.0 / (2 * 360000.0);
  const double series = std::sqrt(2 * 100.0 * 360000.0) * (1 + std::sqrt(x) / 3 + x / 9) - 100;
  EXPECT_NEAR(f.checkpoint_interval.value(), series, 0.5);
}

TEST(FailureOverhead, GivenIntervalIsKept) {
  auto in = inputs();
  in.storage.checkpoint_interval = core::seconds(1800);
  const auto f = failure_overhead(job(), perf_estimate(), in);
  EXPECT_DOUBLE_EQ(f.checkpoint_interval.value(), 1800.0);
}

TEST(FailureOverhead, ExpectedValueFollowsDalysModel) {
  // W = 3.6e6 s of work in segments of tau + delta (the last without a save); each segment of
  // length L takes M e^{R/M} (e^{L/M} - 1) on average under Poisson interrupts (Daly 2006).
  const double W = 3.6e6, delta = 100, M = 360000, R = 600, tau = 1800;
  auto in = inputs();
  in.storage.checkpoint_interval = core::seconds(tau);
  const double segments = W / tau;  // 2000, exactly
  auto seg = [&](double L) { return M * std::exp(R / M) * std::expm1(L / M); };
  const double wall = (segments - 1) * seg(tau + delta) + seg(tau);
  const auto f = failure_overhead(job(), perf_estimate(), in);
  EXPECT_NEAR(f.checkpoint_time.value(), (segments - 1) * delta, 1e-9);
  EXPECT_NEAR((core::Seconds(W) + f.total()).value(), wall, 1e-9 * wall);
  // Interrupts arrive at 1/M over the whole wall time.
  EXPECT_NEAR(f.expected_interruptions, wall / M, 1e-9 * wall / M);
  // Each interrupt starts one restart attempt of expected length E[min(Exp(M), R)].
  EXPECT_NEAR(f.restart_time.value(), wall / M * M * -std::expm1(-R / M), 1e-6);
  EXPECT_NEAR(f.goodput, W / wall, 1e-12);
}

TEST(CostModel, LinesSumToTotal) {
  const auto c = estimate_cost(job(), perf_estimate(), inputs());
  double sum = 0;
  for (const auto& l : c.lines) sum += l.amount.value();
  EXPECT_NEAR(c.total.value(), sum, 1e-9 * sum);
  EXPECT_NEAR((c.fixed + c.elastic).value(), c.total.value(), 1e-9 * sum);
}

TEST(CostModel, ComputeLineIsGpuHoursTimesPrice) {
  // 1000 h x 1000 GPUs x 2 USD/GPU-h = 2,000,000 USD.
  const auto c = estimate_cost(job(), perf_estimate(), inputs());
  const auto* l = line(c, "compute");
  ASSERT_NE(l, nullptr);
  EXPECT_NEAR(l->amount.value(), 2.0e6, 1e-6);
}

TEST(CostModel, FailuresLineIsOverheadTimesFleetRate) {
  const auto c = estimate_cost(job(), perf_estimate(), inputs());
  const auto* l = line(c, "failures");
  ASSERT_NE(l, nullptr);
  const double expected = core::in_hours(c.failures.total()) * kGpus * 2.0;
  EXPECT_NEAR(l->amount.value(), expected, 1e-9 * expected);
}

TEST(CostModel, ContingencyIsShareOfSubtotal) {
  const auto c = estimate_cost(job(), perf_estimate(), inputs());
  double subtotal = 0;
  for (const auto& l : c.lines) {
    if (l.category != "contingency") subtotal += l.amount.value();
  }
  const auto* l = line(c, "contingency");
  ASSERT_NE(l, nullptr);
  EXPECT_NEAR(l->amount.value(), 0.10 * subtotal, 1e-9 * subtotal);
}

TEST(CostModel, PerMillionTokens) {
  const auto c = estimate_cost(job(), perf_estimate(), inputs());
  EXPECT_NEAR(c.per_million_tokens.value(), c.total.value() / kTokens * 1e6,
              1e-12 * c.total.value());
}

TEST(CostModel, PeakStorageCountsRetainedCheckpoints) {
  // wall / tau ~ 430 saves > 5 retained -> dataset 2 TB + 5 x 1 TB, no logs: 7e12 B.
  const auto c = estimate_cost(job(), perf_estimate(), inputs());
  EXPECT_NEAR(c.peak_storage.value(), 2e12 + 5 * 1e12, 1.0);
}

TEST(CostModel, NetworkLineIsBytesTimesPrice) {
  // 1000 GB x 0.09 USD/GB = 90 USD.
  const auto c = estimate_cost(job(), perf_estimate(), inputs());
  const auto* l = line(c, "network");
  ASSERT_NE(l, nullptr);
  EXPECT_NEAR(l->amount.value(), 90.0, 1e-9);
}

TEST(CostModel, GpuHoursIncludeFailureOverhead) {
  const auto c = estimate_cost(job(), perf_estimate(), inputs());
  const double wall_h = kComputeHours + core::in_hours(c.failures.total());
  EXPECT_NEAR(c.gpu_hours, wall_h * kGpus, 1e-9 * wall_h * kGpus);
}

TEST(CostModel, ReservationPaysTheWholeTerm) {
  // A 1-year reservation (8,760 h) of 1000 GPUs at 2 USD/GPU-h, run for the wall time W h (about
  // 1000 h of compute plus failures): the run pays (8760 - W) h x 1000 GPUs x 2 USD for the hours
  // of the term it does not use. Nothing is added without a term.
  CostInputs in = inputs();
  EXPECT_EQ(line_or_null(estimate_cost(job(), perf_estimate(), in), "commitment"), nullptr);
  in.compute.term = core::hours(8760);
  const auto c = estimate_cost(job(), perf_estimate(), in);
  const double wall_h = core::in_hours(c.wall_time);
  const CostLine* l = line(c, "commitment");
  ASSERT_NE(l, nullptr);
  EXPECT_NEAR(l->amount.value(), (8760 - wall_h) * kGpus * 2.0, 1e-6);
  EXPECT_EQ(l->nature, CostNature::kFixed);
}

TEST(CostModel, ReusedReservationChargesOnlyTheUnreusedShare) {
  // With 75 % of the rest of the term reused by other work, this run pays a quarter of it.
  CostInputs in = inputs();
  in.compute.term = core::hours(8760);
  in.compute.term_reuse = 0.75;
  const auto c = estimate_cost(job(), perf_estimate(), in);
  const double wall_h = core::in_hours(c.wall_time);
  EXPECT_NEAR(line(c, "commitment")->amount.value(), 0.25 * (8760 - wall_h) * kGpus * 2.0, 1e-6);
}

TEST(CostModel, RunLongerThanTheTermPaysWholeTerms) {
  // A 500 h term and a run of W h (1000 < W < 1500): three terms are bought, 1500 - W h unused.
  CostInputs in = inputs();
  in.compute.term = core::hours(500);
  const auto c = estimate_cost(job(), perf_estimate(), in);
  const double wall_h = core::in_hours(c.wall_time);
  ASSERT_GT(wall_h, 1000);
  ASSERT_LT(wall_h, 1500);
  EXPECT_NEAR(line(c, "commitment")->amount.value(), (1500 - wall_h) * kGpus * 2.0, 1e-6);
}

TEST(CostModel, FailureOverheadIsTheSameAtEveryPrice) {
  // The search prices a candidate several times with one failure overhead: it must not depend
  // on the compute pricing, and the overload that takes it must give the same totals.
  CostInputs cheap = inputs();
  CostInputs reserved = inputs();
  reserved.compute.per_gpu = core::usd_per_hour(7.0);
  reserved.compute.term = core::hours(8760);
  const auto f = failure_overhead(job(), perf_estimate(), cheap);
  EXPECT_EQ(f.total().value(), failure_overhead(job(), perf_estimate(), reserved).total().value());
  for (const CostInputs& in : {cheap, reserved}) {
    const auto once = estimate_cost(job(), perf_estimate(), in, f);
    const auto full = estimate_cost(job(), perf_estimate(), in);
    EXPECT_EQ(once.total.value(), full.total.value());
    EXPECT_EQ(once.wall_time.value(), full.wall_time.value());
    EXPECT_EQ(once.gpu_hours, full.gpu_hours);
  }
}

TEST(CostModel, LowerBoundIsBelowTheTotalAndClose) {
  // total >= (1 + contingency) x fleet x (reuse x wall + (1 - reuse) x term x ceil(wall/term))
  // (cost_model.h). On demand, compute is almost all of this plan's cost: 1000 GPU x 1000 h x
  // 2 USD x 1.1 = 2.2 MUSD against a total a few per cent higher (failures, storage, people).
  auto bound = [](const CostInputs& in, core::Seconds wall) {
    return cost_lower_bound(job(), wall, in).value();
  };
  const core::Seconds ct = perf_estimate().compute_time;
  const CostInputs plain = inputs();
  const auto c = estimate_cost(job(), perf_estimate(), plain);
  EXPECT_NEAR(bound(plain, ct), 1000 * 1000 * 2.0 * 1.1, 1e-2);
  EXPECT_LE(bound(plain, ct), c.total.value());
  EXPECT_LE(bound(plain, c.wall_time), c.total.value());
  EXPECT_GT(bound(plain, c.wall_time), 0.9 * c.total.value());
  // Reserved terms (the bound charges whole terms), with and without reuse, with spares.
  for (double term_h : {500.0, 8760.0}) {
    for (double reuse : {0.0, 0.75, 1.0}) {
      CostInputs in = inputs();
      in.compute.term = core::hours(term_h);
      in.compute.term_reuse = reuse;
      in.reliability.spare_nodes = 2;
      SCOPED_TRACE(term_h);
      SCOPED_TRACE(reuse);
      const auto r = estimate_cost(job(), perf_estimate(), in);
      EXPECT_LE(bound(in, ct), r.total.value());
      EXPECT_LE(bound(in, r.wall_time), r.total.value());
      // Without reuse the whole term is in the bound: 1000 GPU x 8760 h x 2 USD x 1.1.
      if (term_h == 8760 && reuse == 0) {
        EXPECT_NEAR(bound(in, ct), 1000 * 8760 * 2.0 * 1.1, 1e-1);
      }
    }
  }
  // Out of range inputs give no bound rather than a wrong one.
  CostInputs negative = inputs();
  negative.contingency = -0.5;
  EXPECT_EQ(bound(negative, ct), 0.0);
}

}  // namespace
}  // namespace aicost::costing
