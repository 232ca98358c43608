// `pricing: {mode: owned}` in a plan: every key read with its unit, the rest from data/owned.yaml
// with its source, the cluster sized to the job and its spares, and the input errors.
#include <gtest/gtest.h>

#include <string>

#include "aicost/config/plan.h"
#include "aicost/costing/cost_model.h"
#include "aicost/perf/estimate.h"
#include "test_support.h"

namespace aicost::config {
namespace {

using core::ErrorCode;

core::Result<Plan> parse(const std::string& yaml) {
  return parse_plan(yaml, "plan.yaml", ".", testing::builtin_catalog());
}

// Llama 3 8B on one 8-GPU H100 server; `pricing` is appended as written.
std::string plan(const std::string& pricing, const std::string& extra = "") {
  return R"(model:
  preset: llama3-8b
training:
  tokens: 10B
  seq_length: 8192
  global_batch_size: 64
cluster:
  gpu: h100-sxm-80gb
  gpus: 8
parallelism:
  tensor_model_parallel_size: 2
  recompute_granularity: selective
pricing:
)" + pricing +
         extra;
}

void expect_error(const core::Result<Plan>& p, const std::string& context,
                  const std::string& fragment) {
  ASSERT_FALSE(p.has_value());
  EXPECT_EQ(p.error().code, ErrorCode::kInvalidInput) << p.error().what();
  EXPECT_EQ(p.error().context, context) << p.error().what();
  EXPECT_NE(p.error().message.find(fragment), std::string::npos) << p.error().message;
}

bool has_warning(const Plan& p, const std::string& fragment) {
  for (const auto& w : p.warnings) {
    if (w.find(fragment) != std::string::npos) return true;
  }
  return false;
}

// The TCO sheet's worked example, every figure written in the plan (the hand computation is in
// tests/unit/costing/owned_test.cc: 2.554805 USD per busy GPU-hour; staff 3.8 FTE/MW x 10.2 kW x
// 99,500 USD = 3,856.62 USD a year). Checks that each key reaches the model in the right unit.
TEST(PlanOwned, EveryKeyGivenReproducesTheHandComputation) {
  auto p = parse(plan(R"(  mode: owned
  server: hgx-h100
  server_price: 300000USD
  amortisation: 5y
  residual: 15%
  utilisation: 70%
  pue: 1.3
  electricity: 0.0806USD/kWh
  colocation: 184.06USD/kW-month
  fabric: 53000USD
  support: 10%/y
  staff: 3856.62USD/year
  power: 8kW
  idle_power: 8kW
  capacity: 10.2kW
)"));
  ASSERT_TRUE(p) << p.error().what();
  const auto& c = p->cost.compute;
  ASSERT_TRUE(c.owned);
  EXPECT_EQ(c.owned->inputs.servers, 1);
  EXPECT_NEAR(core::per_hour(c.per_gpu), 2.554805, 1e-5);
  EXPECT_STREQ(costing::mode_name(c), "owned");
  for (const auto& s : c.owned->sources) EXPECT_EQ(s.from, "plan") << s.input;
  EXPECT_NE(c.basis.find("owned hgx-h100 2.55 USD/GPU-h"), std::string::npos) << c.basis;
}

// Keys left out come from data/owned.yaml and say where from; weak figures are noted.
TEST(PlanOwned, DefaultsComeFromTheDataWithTheirSources) {
  auto p = parse(plan("  mode: owned\n"));
  ASSERT_TRUE(p) << p.error().what();
  const auto& o = *p->cost.compute.owned;
  EXPECT_EQ(o.inputs.server, "hgx-h100");  // the cheapest H100 server per GPU
  EXPECT_TRUE(has_warning(*p, "pricing.server not given"));
  EXPECT_NEAR(o.inputs.server_price.value(), 310000, 1e-9);
  EXPECT_NEAR(o.inputs.utilisation, 0.70, 1e-12);
  EXPECT_NEAR(o.inputs.residual, 0.15, 1e-12);
  EXPECT_NEAR(o.inputs.fabric.value(), 33980, 1e-9);  // 4,247.5 per GPU x 8 (2-tier)
  bool residual_weak = false;
  for (const auto& s : o.sources) {
    EXPECT_NE(s.from, "plan") << s.input;
    if (s.input == "residual") residual_weak = s.weak && s.from.find("GLRI") != std::string::npos;
  }
  EXPECT_TRUE(residual_weak);
  bool noted = false;
  for (const auto& n : o.notes) noted = noted || n.find("weak: residual") == 0;
  EXPECT_TRUE(noted);
  EXPECT_FALSE(o.break_even.empty());
}

// A cluster used 40 % of its life against one used fully: hgx-h100 has no idle figure, so idle
// hours draw the training power and every part is a cost of the wall-clock hour: the run's
// compute line costs 1 / 0.4 = 2.5 times as much (the run carries its share of idle time).
TEST(PlanOwned, UtilisationFortyPercentCostsTheRunTwoAndAHalfTimesFull) {
  auto compute = [](const std::string& u) {
    auto p = parse(plan("  mode: owned\n  utilisation: " + u + "\n"));
    EXPECT_TRUE(p) << p.error().what();
    auto perf = perf::estimate_training(p->job);
    EXPECT_TRUE(perf);
    const auto c = costing::estimate_cost(p->job, *perf, p->cost);
    return c.lines.front().amount.value();  // compute
  };
  EXPECT_NEAR(compute("40%") / compute("100%"), 2.5, 1e-9);
}

// The cluster bought holds the job's GPUs and its spare nodes: 20 GPUs + 1 spare node of 8 =
// 28 GPUs, 4 servers of 8 (4 GPUs over, noted).
TEST(PlanOwned, ClusterHoldsTheJobAndItsSpares) {
  std::string text = plan("  mode: owned\n", "reliability:\n  spare_nodes: 1\n");
  text.replace(text.find("gpus: 8"), 7, "gpus: 20");
  text.replace(text.find("global_batch_size: 64"), 21, "global_batch_size: 60");
  auto p = parse(text);
  ASSERT_TRUE(p) << p.error().what();
  const auto& o = *p->cost.compute.owned;
  EXPECT_EQ(o.inputs.servers, 4);
  bool noted = false;
  for (const auto& n : o.notes)
    noted = noted || n.find("4 more than the run's 28") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(PlanOwnedErrors, UnitlessElectricityAsksForKwh) {
  expect_error(
      parse(plan("  mode: owned\n  electricity: 0.08\n")), "plan.yaml:15:16",
      "'pricing.electricity' '0.08' has no unit; an energy price needs one, e.g. '0.08USD/kWh'");
}

TEST(PlanOwnedErrors, UnitlessColocationAndSupportAskForTheirUnits) {
  expect_error(parse(plan("  mode: owned\n  colocation: 185\n")), "plan.yaml:15:15",
               "'185USD/kW-month'");
  expect_error(parse(plan("  mode: owned\n  support: 10%\n")), "plan.yaml:15:12", "%/y");
  expect_error(parse(plan("  mode: owned\n  pue: 1.3x\n")), "plan.yaml:15:8",
               "a ratio has no unit");
}

TEST(PlanOwnedErrors, UnknownServerSuggestsTheNearest) {
  auto p = parse(plan("  mode: owned\n  server: hgx-h10\n"));
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().context, "plan.yaml:15:11");
  EXPECT_NE(p.error().message.find("unknown server 'hgx-h10'. Did you mean 'hgx-h100'?"),
            std::string::npos)
      << p.error().message;
  EXPECT_NE(p.error().message.find("aicost catalog servers"), std::string::npos)
      << p.error().message;
}

TEST(PlanOwnedErrors, ServerOfAnotherGpuIsRejected) {
  expect_error(parse(plan("  mode: owned\n  server: dgx-b200\n")), "plan.yaml:15:11",
               "server dgx-b200 has b200-sxm-180gb GPUs but cluster.gpu is h100-sxm-80gb");
}

TEST(PlanOwnedErrors, UnpricedServerSaysWhyAndWhatToGive) {
  std::string text = plan("  mode: owned\n  server: mi300x-8gpu\n");
  text.replace(text.find("h100-sxm-80gb"), 13, "mi300x");
  text.replace(text.find("tensor_model_parallel_size: 2"), 29, "tensor_model_parallel_size: 1");
  expect_error(parse(text), "plan.yaml:15:11", "no 8-GPU MI300X server price found");
  // With a price, a power and a capacity it is priced.
  auto p = parse(text + "  server_price: 140000USD\n  power: 6kW\n  capacity: 8kW\n");
  ASSERT_TRUE(p) << p.error().what();
  EXPECT_TRUE(p->cost.compute.owned);
}

TEST(PlanOwnedErrors, UtilisationMustBeAboveZeroAndAtMostAll) {
  expect_error(parse(plan("  mode: owned\n  utilisation: 0%\n")), "plan.yaml:15:16", "above 0%");
  expect_error(parse(plan("  mode: owned\n  utilisation: 120%\n")), "plan.yaml:15:16",
               "at most 100%");
}

TEST(PlanOwnedErrors, GpuHourWithOwnedIsRejected) {
  expect_error(parse(plan("  mode: owned\n  gpu_hour: 2USD/h\n")), "plan.yaml:15:13",
               "give either pricing.gpu_hour or pricing.mode owned, not both");
}

TEST(PlanOwned, OwnedKeysWithAnotherModeWarn) {
  auto p = parse(plan("  instance: gcp/a3-highgpu-8g\n  utilisation: 50%\n  pue: 1.2\n"));
  ASSERT_TRUE(p) << p.error().what();
  EXPECT_FALSE(p->cost.compute.owned);
  EXPECT_TRUE(
      has_warning(*p, "pricing.utilisation, pricing.pue: no effect unless pricing.mode is owned"));
}

// The instance beside mode owned prices storage and network and adds its break-evens.
TEST(PlanOwned, NamedInstanceKeepsItsProviderAndIsCompared) {
  auto p = parse(plan("  mode: owned\n  instance: gcp/a3-highgpu-8g\n"));
  ASSERT_TRUE(p) << p.error().what();
  EXPECT_EQ(p->cost.compute.provider, "gcp");
  bool compared = false;
  for (const auto& b : p->cost.compute.owned->break_even) {
    compared = compared || b.rental.instance == "gcp/a3-highgpu-8g";
  }
  EXPECT_TRUE(compared);
}

}  // namespace
}  // namespace aicost::config
