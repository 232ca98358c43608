// data/efficiency.yaml is the only home of the efficiency values: a user's profile gives every key
// or inherits the others with `base:`; the shipped constants of restarts and serving spot come
// from data/reliability.yaml.
#include <gtest/gtest.h>

#include "aicost/config/catalog_loader.h"
#include "aicost/config/plan.h"
#include "aicost/config/serving_plan.h"
#include "test_support.h"

namespace aicost::config {
namespace {

// A profile with one key: the error names the keys it lacks, where the entry is, and what to do.
TEST(EfficiencyCatalog, ProfileWithoutEveryKeyNamesTheMissingOnes) {
  catalog::Catalog cat = testing::builtin_catalog();
  auto s =
      add_catalog_text("efficiency:\n  - generation: mine\n    gemm_max: 70%\n", "mine.yaml", cat);
  ASSERT_FALSE(s);
  const std::string msg = s.error().what();
  EXPECT_NE(msg.find("mine.yaml:2:5"), std::string::npos) << msg;  // the entry
  EXPECT_NE(msg.find("'mine' lacks gemm_half_dim"), std::string::npos) << msg;
  EXPECT_NE(msg.find("serving_workspace"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("lacks gemm_max"), std::string::npos) << msg;  // given, so not named
  EXPECT_NE(msg.find("base: <generation>"), std::string::npos) << msg;
  EXPECT_NE(msg.find("hopper"), std::string::npos) << msg;  // the profiles it could inherit from
}

// `base: hopper` takes every value from hopper and overrides what the entry gives.
TEST(EfficiencyCatalog, BaseInheritsTheOtherKeys) {
  catalog::Catalog cat = testing::builtin_catalog();
  const catalog::EfficiencyProfile hopper = **cat.efficiency("hopper");
  auto s = add_catalog_text(
      "efficiency:\n  - generation: our-h100\n    base: hopper\n    gemm_max: 61%\n"
      "    memory_overhead: 4GiB\n    source: \"our runs\"\n",
      "mine.yaml", cat);
  ASSERT_TRUE(s) << s.error().what();
  const auto& e = **cat.efficiency("our-h100");
  EXPECT_DOUBLE_EQ(e.gemm_max, 0.61);
  EXPECT_DOUBLE_EQ(e.memory_overhead.value(), 4.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(e.gemm_half_dim, hopper.gemm_half_dim);
  EXPECT_DOUBLE_EQ(e.attention_flash_backward, hopper.attention_flash_backward);
  EXPECT_DOUBLE_EQ(e.serving_workspace.value(), hopper.serving_workspace.value());
  EXPECT_DOUBLE_EQ(e.layer_overhead.value(), hopper.layer_overhead.value());
  EXPECT_EQ(e.provenance.source, "our runs");
  // The base profile itself is untouched.
  EXPECT_DOUBLE_EQ((**cat.efficiency("hopper")).gemm_max, hopper.gemm_max);
}

// The serving terms of 2026-12-02 are keys of their own with their units: a time per running
// sequence and per routed expert, a share of HBM for the KV reads. The shipped values are the fit
// (3 us, 4.25 us, 89 %); a unit-less time is refused, and so is serving_expert_half_rows, which
// serving_expert_overhead replaced.
TEST(EfficiencyCatalog, ServingSequenceExpertAndKvKeysCarryTheirUnits) {
  catalog::Catalog cat = testing::builtin_catalog();
  const auto& hopper = **cat.efficiency("hopper");
  EXPECT_NEAR(hopper.serving_sequence_overhead.value(), 2.25e-6, 1e-15);
  EXPECT_NEAR(hopper.serving_expert_overhead.value(), 4.5e-6, 1e-15);
  EXPECT_DOUBLE_EQ(hopper.serving_kv_bandwidth, 0.89);
  auto s = add_catalog_text(
      "efficiency:\n  - generation: mine\n    base: hopper\n    serving_sequence_overhead: 5us\n"
      "    serving_expert_overhead: 1ms\n    serving_kv_bandwidth: 80%\n    source: \"our runs\"\n",
      "mine.yaml", cat);
  ASSERT_TRUE(s) << s.error().what();
  const auto& e = **cat.efficiency("mine");
  EXPECT_NEAR(e.serving_sequence_overhead.value(), 5e-6, 1e-15);
  EXPECT_NEAR(e.serving_expert_overhead.value(), 1e-3, 1e-15);
  EXPECT_DOUBLE_EQ(e.serving_kv_bandwidth, 0.80);
  auto bare = add_catalog_text(
      "efficiency:\n  - generation: bare\n    base: hopper\n    serving_sequence_overhead: 5\n    "
      "source: x\n",
      "mine.yaml", cat);
  ASSERT_FALSE(bare);
  EXPECT_NE(std::string(bare.error().what()).find("mine.yaml:4"), std::string::npos)
      << bare.error().what();
  auto old = add_catalog_text(
      "efficiency:\n  - generation: old\n    base: hopper\n    serving_expert_half_rows: 208\n    "
      "source: x\n",
      "mine.yaml", cat);
  ASSERT_FALSE(old);
  EXPECT_NE(std::string(old.error().what()).find("serving_expert_half_rows"), std::string::npos)
      << old.error().what();
}

TEST(EfficiencyCatalog, UnknownBaseIsAnErrorAtTheKey) {
  catalog::Catalog cat = testing::builtin_catalog();
  auto s = add_catalog_text("efficiency:\n  - generation: x\n    base: hoper\n", "mine.yaml", cat);
  ASSERT_FALSE(s);
  EXPECT_NE(std::string(s.error().what()).find("mine.yaml:3:11"), std::string::npos)
      << s.error().what();
}

// Every shipped profile gives every key a nonzero value (0 is "no value" in catalog/gpu.h), so no
// estimate falls back on a default that is not in data/ (the shipped ones cannot omit keys).
TEST(EfficiencyCatalog, ShippedProfilesHaveTheValuesTheModelsRead) {
  for (const auto& e : testing::builtin_catalog().efficiencies()) {
    SCOPED_TRACE(e.generation);
    EXPECT_GT(e.gemm_max, 0);
    EXPECT_GT(e.attention_flash_backward, 0);
    EXPECT_GT(e.attention_unfused_backward, 0);
    EXPECT_GT(e.memory_overhead.value(), 0);
    EXPECT_GT(e.memory_overhead_share, 0);
    EXPECT_GT(e.serving_workspace.value(), 0);
    EXPECT_GT(e.optimizer_bytes_per_param, 0);
    EXPECT_GT(e.collective_latency.value(), 0);
  }
}

// A plan that says nothing of restarts gets data/reliability.yaml's parts: 2 + 3 + 2 min.
TEST(ShippedRestart, PartsComeFromTheData) {
  auto plan =
      parse_plan(testing::minimal_plan_yaml(), "plan.yaml", ".", testing::builtin_catalog());
  ASSERT_TRUE(plan) << plan.error().what();
  const auto& r = plan->cost.reliability.restart;
  EXPECT_DOUBLE_EQ(r.detection.value(), 120);
  EXPECT_DOUBLE_EQ(r.rescheduling.value(), 180);
  EXPECT_DOUBLE_EQ(r.initialisation.value(), 120);
  auto over = parse_plan(testing::minimal_plan_yaml() + "reliability:\n  detection: 30s\n",
                         "plan.yaml", ".", testing::builtin_catalog());
  ASSERT_TRUE(over) << over.error().what();
  EXPECT_DOUBLE_EQ(over->cost.reliability.restart.detection.value(), 30);
  EXPECT_DOUBLE_EQ(over->cost.reliability.restart.rescheduling.value(), 180);
}

}  // namespace
}  // namespace aicost::config
