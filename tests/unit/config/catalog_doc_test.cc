// docs/CATALOG.md's worked example, read out of the doc itself: the overlays load and change what
// the doc says they change, so the example cannot drift from the loader. A block is the ```yaml
// fence whose first line is `# <file name>`.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "aicost/config/catalog_loader.h"
#include "aicost/config/plan.h"
#include "aicost/core/units.h"
#include "aicost/perf/estimate.h"
#include "test_support.h"

namespace aicost::config {
namespace {

const std::string kDoc = std::string(AICOST_SOURCE_DIR) + "/docs/CATALOG.md";

// The body of the ```yaml block of docs/CATALOG.md that starts with `# name`, or "" if none.
std::string doc_block(const std::string& name) {
  std::ifstream in(kDoc);
  EXPECT_TRUE(in) << "cannot read " << kDoc;
  std::string line;
  std::string out;
  bool inside = false;
  bool first = false;
  while (std::getline(in, line)) {
    if (inside) {
      if (line.rfind("```", 0) == 0) return out;
      if (first && line != "# " + name) {
        inside = false;
        out.clear();
        continue;
      }
      first = false;
      out += line + "\n";
    } else if (line == "```yaml") {
      inside = true;
      first = true;
    }
  }
  return "";
}

// The shipped catalog plus the doc's overlays named in `files`, in order.
catalog::Catalog with_overlays(std::initializer_list<const char*> files) {
  catalog::Catalog cat = testing::builtin_catalog();
  for (const char* f : files) {
    const std::string text = doc_block(f);
    EXPECT_FALSE(text.empty()) << "docs/CATALOG.md has no ```yaml block starting '# " << f << "'";
    auto s = add_catalog_text(text, f, cat);
    EXPECT_TRUE(s) << f << ": " << (s ? "" : s.error().what());
  }
  return cat;
}

double usd_per_hour(core::UsdPerSecond rate) { return rate.value() * 3600.0; }

// "acme-prices.yaml adds the instance acme/h100x8 ... lists it last, at 16.00 USD/h on demand and
// 12.80 USD/h reserved for a year, 2.00 USD per GPU-hour."
TEST(CatalogDoc, PricesOverlayAddsTheInstanceLast) {
  ASSERT_FALSE(testing::builtin_catalog().instance("acme/h100x8"));  // not shipped
  const catalog::Catalog cat = with_overlays({"acme-prices.yaml"});
  auto in = cat.instance("acme/h100x8");
  ASSERT_TRUE(in) << in.error().what();
  EXPECT_EQ(cat.instances().back().id, "acme/h100x8");
  EXPECT_EQ((*in)->gpu, "h100-sxm-80gb");
  EXPECT_EQ((*in)->gpus, 8);
  const auto& prices = (*in)->prices;
  EXPECT_NEAR(usd_per_hour(prices[static_cast<int>(catalog::PricingMode::kOnDemand)]), 16.0, 1e-9);
  EXPECT_NEAR(usd_per_hour(prices[static_cast<int>(catalog::PricingMode::kReserved1y)]), 12.8,
              1e-9);
  EXPECT_EQ(prices[static_cast<int>(catalog::PricingMode::kSpot)].value(), 0);  // not given
  EXPECT_FALSE((*in)->provenance.source.empty());
  EXPECT_EQ((*in)->provenance.date, "2026-11-30");
}

// "acme-hopper.yaml replaces the shipped hopper profile with a copy in which gemm_max is 62 %
// (shipped: 68 %) and step_overhead 80 ms (shipped: 30 ms); every other Hopper value stays."
TEST(CatalogDoc, HopperOverlayChangesOnlyWhatItGives) {
  const catalog::EfficiencyProfile shipped = **testing::builtin_catalog().efficiency("hopper");
  EXPECT_DOUBLE_EQ(shipped.gemm_max, 0.68);
  EXPECT_DOUBLE_EQ(shipped.step_overhead.value(), 0.030);
  const catalog::Catalog cat = with_overlays({"acme-hopper.yaml"});
  const catalog::EfficiencyProfile& mine = **cat.efficiency("hopper");
  EXPECT_DOUBLE_EQ(mine.gemm_max, 0.62);
  EXPECT_DOUBLE_EQ(mine.step_overhead.value(), 0.080);
  EXPECT_EQ(cat.efficiencies().size(),
            testing::builtin_catalog().efficiencies().size());  // replaced
  EXPECT_DOUBLE_EQ(mine.gemm_half_dim, shipped.gemm_half_dim);
  EXPECT_DOUBLE_EQ(mine.fp8_gemm_relative, shipped.fp8_gemm_relative);
  EXPECT_DOUBLE_EQ(mine.attention_flash, shipped.attention_flash);
  EXPECT_DOUBLE_EQ(mine.tp_overlap, shipped.tp_overlap);
  EXPECT_DOUBLE_EQ(mine.layer_overhead.value(), shipped.layer_overhead.value());
  EXPECT_DOUBLE_EQ(mine.memory_overhead.value(), shipped.memory_overhead.value());
  EXPECT_DOUBLE_EQ(mine.serving_decode_bandwidth, shipped.serving_decode_bandwidth);
  EXPECT_NE(mine.provenance.source, shipped.provenance.source);  // its own source, not the base's
}

core::Result<Plan> doc_plan(const catalog::Catalog& cat) {
  const std::string text = doc_block("acme-plan.yaml");
  EXPECT_FALSE(text.empty()) << "docs/CATALOG.md has no ```yaml block starting '# acme-plan.yaml'";
  return parse_plan(text, "acme-plan.yaml", ".", cat);
}

// "The plan's compute line then reads ... acme/h100x8 on-demand 16.00 USD/h / 8 GPUs. acme has no
// storage prices, so the plan's storage falls back to aws/s3-standard."
TEST(CatalogDoc, PlanIsPricedOnTheInstance) {
  auto plan = doc_plan(with_overlays({"acme-prices.yaml"}));
  ASSERT_TRUE(plan) << plan.error().what();
  EXPECT_EQ(plan->cost.compute.instance, "acme/h100x8");
  EXPECT_EQ(plan->cost.compute.provider, "acme");
  EXPECT_NEAR(usd_per_hour(plan->cost.compute.per_gpu), 16.0 / 8, 1e-9);
  EXPECT_NE(plan->cost.storage.tier_note.find("aws/s3-standard"), std::string::npos)
      << plan->cost.storage.tier_note;
}

// "Without acme-prices.yaml the plan is rejected: error: acme-plan.yaml:21:13: unknown instance..."
TEST(CatalogDoc, PlanWithoutTheOverlayNamesTheUnknownInstance) {
  auto plan = doc_plan(testing::builtin_catalog());
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().code, core::ErrorCode::kNotFound);
  const std::string msg = plan.error().what();
  EXPECT_NE(msg.find("acme-plan.yaml:21:13"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown instance 'acme/h100x8'. Run 'aicost catalog instances'"),
            std::string::npos)
      << msg;
}

// "Every plan on a Hopper GPU now runs with it: the step of this plan takes longer than with the
// shipped profile." A lower GEMM ceiling and a longer per-step overhead can only slow the step.
TEST(CatalogDoc, CalibratedProfileSlowsTheStep) {
  auto shipped = doc_plan(with_overlays({"acme-prices.yaml"}));
  auto mine = doc_plan(with_overlays({"acme-prices.yaml", "acme-hopper.yaml"}));
  ASSERT_TRUE(shipped) << shipped.error().what();
  ASSERT_TRUE(mine) << mine.error().what();
  EXPECT_DOUBLE_EQ(mine->job.efficiency.gemm_max, 0.62);
  auto before = perf::estimate_training(shipped->job);
  auto after = perf::estimate_training(mine->job);
  ASSERT_TRUE(before && after);
  EXPECT_GT(after->step_time.value(),
            before->step_time.value() + 0.03);  // at least the 30 ms added
}

}  // namespace
}  // namespace aicost::config
