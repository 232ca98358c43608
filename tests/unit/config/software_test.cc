// Software eras (data/software.yaml): a plan's `software:` key sets the era's kernels, optimizer
// sharding and overlaps; the plan's own parallelism keys win; an unknown era is an error at the
// key.
#include <gtest/gtest.h>

#include "aicost/config/plan.h"
#include "aicost/config/validation_csv.h"
#include "test_support.h"

namespace aicost::config {
namespace {

core::Result<Plan> parse(const std::string& extra) {
  return parse_plan(testing::minimal_plan_yaml() + extra, "plan.yaml", ".",
                    testing::builtin_catalog());
}

TEST(SoftwareEra, Megatron2021IsUnfusedUnshardedAndUnoverlapped) {
  auto plan = parse("software: megatron-2021\nparallelism:\n  tensor_model_parallel_size: 8\n");
  ASSERT_TRUE(plan) << plan.error().what();
  const auto& p = plan->job.parallel;
  EXPECT_EQ(plan->software, "megatron-2021");
  EXPECT_EQ(p.attention, workload::AttentionKernel::kUnfused);
  EXPECT_EQ(p.sharding, workload::OptimizerSharding::kNone);
  EXPECT_FALSE(p.sequence_parallel);
  EXPECT_FALSE(p.overlap_grad_reduce);
  EXPECT_FALSE(p.overlap_param_gather);
  EXPECT_FALSE(p.tp_comm_overlap);
}

// nemo-2025 turns sequence parallelism on only where there is TP to shard over.
TEST(SoftwareEra, Nemo2025OverlapsAndShardsAndUsesSpWithTp) {
  auto tp8 = parse("software: nemo-2025\nparallelism:\n  tensor_model_parallel_size: 8\n");
  ASSERT_TRUE(tp8) << tp8.error().what();
  const auto& p = tp8->job.parallel;
  EXPECT_EQ(p.attention, workload::AttentionKernel::kFlash);
  EXPECT_EQ(p.sharding, workload::OptimizerSharding::kZero1);
  EXPECT_TRUE(p.sequence_parallel);
  EXPECT_TRUE(p.tp_comm_overlap);
  EXPECT_TRUE(p.overlap_grad_reduce);
  auto tp1 = parse("software: nemo-2025\n");
  ASSERT_TRUE(tp1) << tp1.error().what();
  EXPECT_FALSE(tp1->job.parallel.sequence_parallel);
}

TEST(SoftwareEra, ThePlansOwnKeysWin) {
  auto plan = parse(
      "software: megatron-2021\nparallelism:\n  tensor_model_parallel_size: 8\n"
      "  sequence_parallel: true\n  attention_backend: flash\n");
  ASSERT_TRUE(plan) << plan.error().what();
  EXPECT_TRUE(plan->job.parallel.sequence_parallel);
  EXPECT_EQ(plan->job.parallel.attention, workload::AttentionKernel::kFlash);
  EXPECT_FALSE(plan->job.parallel.overlap_grad_reduce);  // still the era's
}

TEST(SoftwareEra, UnknownEraIsAnErrorAtTheKeyWithASuggestion) {
  auto plan = parse("software: megatron-2012\n");
  ASSERT_FALSE(plan);
  const std::string msg = plan.error().what();
  EXPECT_NE(msg.find("plan.yaml:12:11"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Did you mean"), std::string::npos) << msg;
}

// The CSV's rows without a `software` cell take the era their source implies.
TEST(SoftwareEra, ValidationRowsWithoutACellReadItFromTheSource) {
  EXPECT_EQ(software_of_source("Narayanan et al. 2021 'Efficient...' (SC21)"), "megatron-2021");
  EXPECT_EQ(software_of_source("Korthikanti et al. 2022 'Reducing...'"), "megatron-2022");
  EXPECT_EQ(software_of_source("NVIDIA-NeMo/Megatron-Bridge performance summary"), "nemo-2025");
  EXPECT_EQ(software_of_source("NVIDIA/Megatron-LM README"), "megatron-core-2024");
}

}  // namespace
}  // namespace aicost::config
