// The pricing-owned lever: its saving is the difference of two estimates made here (the plan as
// written and the plan edited by hand to mode owned), it names its commitment and break-even,
// and it says why when it cannot be priced or does not apply.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "aicost/core/text.h"
#include "optimize_support.h"
#include "temp_dir.h"

namespace aicost::optimize {
namespace {

using Map = std::map<std::string, std::optional<std::string>>;
using testing::lever;
using testing::run_optimize;
using testing::source_path;

const char* kGpt3 = "examples/gpt3-175b-a100.yaml";

struct Priced {
  LeverResult lever;
  double before = 0, after = 0;
};

// The lever on `plan`, and the plan's total before and after the edits written here.
Priced price(const std::string& plan, const std::string& server, bool drop_reuse,
             const Guardrails& g = {}) {
  Priced out;
  out.lever = lever(run_optimize(source_path(plan), g), "pricing-owned");
  const std::string text = testing::read_text(source_path(plan));
  const std::string dir = source_path(plan.substr(0, plan.rfind('/')));
  std::string edited = testing::hand_edit(text, "pricing", "mode", "owned");
  edited = testing::hand_edit(edited, "pricing", "server", server);
  if (drop_reuse) edited = testing::hand_edit(edited, "pricing", "reservation_reuse", std::nullopt);
  out.before = testing::estimate_total(text, dir);
  out.after = testing::estimate_total(edited, dir);
  return out;
}

// GPT-3 on AWS p4de reserved for a year (reused by other work): bought as 128 HGX A100 servers.
TEST(PricingOwned, SavingIsTheDifferenceOfTwoEstimatesOnGpt3) {
  const Priced p = price(kGpt3, "hgx-a100-80gb", true);
  const auto& l = p.lever;
  ASSERT_TRUE(l.saving_usd) << to_string(l.status) << ": " << l.why;
  EXPECT_EQ(testing::as_map(l.change), (Map{{"pricing.mode", "owned"},
                                            {"pricing.server", "hgx-a100-80gb"},
                                            {"pricing.reservation_reuse", std::nullopt}}));
  EXPECT_NEAR(*l.saving_usd, p.before - p.after, 0.005);
  EXPECT_NEAR(*l.total_usd, p.after, 0.005);
  EXPECT_GT(*l.saving_usd, 0);
}

// Llama 3 8B on GCP a3-highgpu-8g on demand: bought as 8 HGX H100 servers.
TEST(PricingOwned, SavingIsTheDifferenceOfTwoEstimatesOnH100) {
  const Priced p = price("tests/plans/optimize-llama3-8b-h100.yaml", "hgx-h100", false);
  ASSERT_TRUE(p.lever.saving_usd) << p.lever.why;
  EXPECT_EQ(testing::as_map(p.lever.change),
            (Map{{"pricing.mode", "owned"}, {"pricing.server", "hgx-h100"}}));
  EXPECT_NEAR(*p.lever.saving_usd, p.before - p.after, 0.005);
}

// A run of weeks cannot fill a 5-year cluster: the owned price rests on other work, so the risk is
// high (rejected under the default red lines) and names the commitment, the utilisation and
// obsolescence; allowed up to high risk, it is accepted and competes with spot and reserved.
TEST(PricingOwned, RiskIsHighWhenOtherWorkMustFillTheCluster) {
  const auto& l = price(kGpt3, "hgx-a100-80gb", true).lever;
  EXPECT_EQ(l.status, LeverStatus::kRejected);
  EXPECT_EQ(l.risk.level, RiskLevel::kHigh);
  EXPECT_EQ(l.risk.kinds,
            (std::vector<std::string>{"cost-commitment", "utilisation", "obsolescence"}));
  EXPECT_NE(l.risk.why.find("128 x hgx-a100-80gb (1,024 GPUs)"), std::string::npos) << l.risk.why;
  EXPECT_NE(l.risk.why.find("other work must fill the rest"), std::string::npos) << l.risk.why;
  EXPECT_NE(l.rollout.stop_loss.find("do not buy if"), std::string::npos);

  Guardrails g;
  g.max_risk = RiskLevel::kHigh;
  const auto res = run_optimize(source_path(kGpt3), g);
  EXPECT_EQ(lever(res, "pricing-owned").status, LeverStatus::kAccepted);
  EXPECT_NE(std::find(res.combined.levers.begin(), res.combined.levers.end(), "pricing-owned"),
            res.combined.levers.end());
}

// Buying excludes spot and reserved: of the three, only the one that saves most alone is tried in
// the combination (here buying: 8 H100 servers against GCP on-demand at 11.06 USD/GPU-h).
TEST(PricingOwned, ExcludesSpotAndReservedInTheCombination) {
  Guardrails g;
  g.max_risk = RiskLevel::kHigh;
  std::vector<Lever> pricing;
  for (const auto& l : training_levers()) {
    if (l.group == "pricing-mode") pricing.push_back(l);
  }
  const auto res =
      run_optimize(source_path("tests/plans/optimize-llama3-8b-h100.yaml"), g, pricing);
  const auto& owned = lever(res, "pricing-owned");
  const auto& spot = lever(res, "pricing-spot");
  ASSERT_EQ(owned.status, LeverStatus::kAccepted);
  ASSERT_EQ(spot.status, LeverStatus::kAccepted);
  ASSERT_TRUE(owned.saving_usd && spot.saving_usd);
  EXPECT_GT(*owned.saving_usd, *spot.saving_usd);
  EXPECT_EQ(res.combined.levers, std::vector<std::string>{"pricing-owned"});
  bool spot_skipped = false;
  for (const auto& [id, why] : res.combined.skipped)
    spot_skipped = spot_skipped || id == "pricing-spot";
  EXPECT_TRUE(spot_skipped);
}

// The break-even the lever states against the plan's own price, recomputed here from the owned
// plan's estimate: a reservation is paid every hour, so renting the cluster costs 1,024 GPUs x
// 730 h x the plan's price a month; the owned cluster's running costs (capital excluded) are
// cheaper; the purchase pays back after upfront / (rent - running) months.
TEST(PricingOwned, StatesTheBreakEvenAgainstThePlansPrice) {
  const auto& l = price(kGpt3, "hgx-a100-80gb", true).lever;
  auto editor = config::PlanEditor::open(source_path(kGpt3), testing::builtin_catalog());
  ASSERT_TRUE(editor);
  auto before = editor->evaluate({});
  auto owned = editor->evaluate(l.change);
  ASSERT_TRUE(before && owned);
  const auto& o = *owned->inputs.compute.owned;
  const double rent = core::per_hour(before->inputs.compute.per_gpu) * 1024 * 730;
  const double running = o.rate.running.value() * core::kSecondsPerMonth;
  const double months = o.rate.upfront.value() / (rent - running);
  const std::string expected =
      core::sprintf("break-even against the plan's price: %.1f months", months);
  bool found = false;
  for (const auto& n : l.notes) found = found || n.find(expected) == 0;
  EXPECT_TRUE(found) << expected;
}

TEST(PricingOwned, NotPricedWithoutAServerPriceSaysWhy) {
  const auto h800 =
      lever(run_optimize(source_path("examples/deepseek-v3-h800.yaml")), "pricing-owned");
  EXPECT_EQ(h800.status, LeverStatus::kNotPriced);
  EXPECT_EQ(h800.why,
            "no server price for h800-sxm-80gb in the catalog (data/owned.yaml servers): "
            "buying needs one, with its power");
  EXPECT_FALSE(h800.saving_usd);

  // MI300X has a server entry without a price: its note is the reason.
  testing::TempDir dir;
  const std::string plan = dir.write("mi300x.yaml", R"(model:
  preset: llama3-8b
training:
  tokens: 10B
  seq_length: 8192
  global_batch_size: 64
cluster:
  gpu: mi300x
  gpus: 8
pricing:
  gpu_hour: 2.50USD/h
)");
  const auto mi300x = lever(run_optimize(plan), "pricing-owned");
  EXPECT_EQ(mi300x.status, LeverStatus::kNotPriced);
  EXPECT_NE(mi300x.why.find("no server price for mi300x: no 8-GPU MI300X server price found"),
            std::string::npos)
      << mi300x.why;
}

TEST(PricingOwned, NotApplicableToAnOwnedPlan) {
  const auto l =
      lever(run_optimize(source_path("examples/gpt3-175b-h100-owned.yaml")), "pricing-owned");
  EXPECT_EQ(l.status, LeverStatus::kNotApplicable);
  EXPECT_EQ(l.why, "the plan is already on owned GPUs (pricing.mode owned)");
}

}  // namespace
}  // namespace aicost::optimize
