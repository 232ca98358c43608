#include "aicost/config/plan.h"

#include <gtest/gtest.h>

#include <string>

#include "aicost/config/catalog_loader.h"
#include "test_support.h"

// parse_plan on inline YAML: the documented shape is accepted, aliases warn, prices come from the
// plan or the catalog, and every input error names file:line:col.

namespace aicost::config {
namespace {

using core::ErrorCode;

const catalog::Catalog& builtin() { return testing::builtin_catalog(); }

core::Result<Plan> parse(const std::string& yaml, const std::string& base_dir = ".") {
  return parse_plan(yaml, "plan.yaml", base_dir, builtin());
}

// The plan failed with `code` at `context` (file:line:col), and the message mentions `fragment`.
void expect_error(const core::Result<Plan>& plan, ErrorCode code, const std::string& context,
                  const std::string& fragment) {
  ASSERT_FALSE(plan.has_value());
  EXPECT_EQ(plan.error().code, code);
  EXPECT_EQ(plan.error().context, context);
  EXPECT_NE(plan.error().message.find(fragment), std::string::npos) << plan.error().message;
}

bool has_warning(const Plan& plan, const std::string& fragment) {
  for (const auto& w : plan.warnings) {
    if (w.find(fragment) != std::string::npos) return true;
  }
  return false;
}

// The shape documented in the issue: GPT-3 175B, 300B tokens, 1,024 A100 80GB, TP 8 x PP 16.
const char* kIssuePlan = R"(name: issue
model:
  preset: gpt3-175b
training:
  tokens: 300B
  seq_length: 2048
  global_batch_size: 1536
cluster:
  gpu: a100-sxm4-80gb
  gpus: 1024
parallelism:
  tensor_model_parallel_size: 8
  pipeline_model_parallel_size: 16
pricing:
  gpu_hour: 2.00USD/h
)";

TEST(ParsePlan, IssueShapeIsAccepted) {
  auto plan = parse(kIssuePlan);
  ASSERT_TRUE(plan.has_value()) << plan.error().what();
  EXPECT_EQ(plan->name, "issue");
  EXPECT_EQ(plan->job.model.spec().id, "gpt3-175b");
  EXPECT_EQ(plan->job.cluster.gpu.id, "a100-sxm4-80gb");
  EXPECT_EQ(plan->job.cluster.gpus, 1024);
  EXPECT_EQ(plan->job.parallel.tensor, 8);
  EXPECT_EQ(plan->job.parallel.pipeline, 16);
}

TEST(ParsePlan, TokensWithSuffixAreCounted) {
  auto plan = parse(kIssuePlan);
  ASSERT_TRUE(plan.has_value()) << plan.error().what();
  // 300B = 300 x 10^9 (SI, not 2^30).
  EXPECT_DOUBLE_EQ(plan->job.tokens, 3e11);
}

TEST(ParsePlan, DataParallelIsDerived) {
  auto plan = parse(kIssuePlan);
  ASSERT_TRUE(plan.has_value()) << plan.error().what();
  // dp = gpus / (TP x PP x CP) = 1024 / (8 x 16 x 1) = 8.
  EXPECT_EQ(plan->job.data_parallel(), 8);
  // micro-batches = global batch / (dp x mbs) = 1536 / 8 = 192.
  EXPECT_EQ(plan->job.micro_batches(), 192);
}

TEST(ParsePlan, GpuHourIsConvertedToUsdPerGpuSecond) {
  auto plan = parse(kIssuePlan);
  ASSERT_TRUE(plan.has_value()) << plan.error().what();
  // 2.00 USD/h = 2 / 3600 USD/s.
  EXPECT_NEAR(plan->cost.compute.per_gpu.value(), 2.0 / 3600.0, 1e-15);
  EXPECT_NE(plan->cost.compute.basis.find("2.00 USD/GPU-h"), std::string::npos)
      << plan->cost.compute.basis;
}

TEST(ParsePlan, ShortAliasesAreReadWithWarnings) {
  auto plan = parse(R"(model:
  preset: gpt3-175b
training:
  tokens: 300B
  seq_length: 2048
  global_batch_size: 1536
cluster:
  gpu: a100-sxm4-80gb
  gpus: 1024
parallelism:
  tp: 8
  pp: 16
pricing:
  gpu_hour: 2.00USD/h
)");
  ASSERT_TRUE(plan.has_value()) << plan.error().what();
  EXPECT_EQ(plan->job.parallel.tensor, 8);
  EXPECT_EQ(plan->job.parallel.pipeline, 16);
  EXPECT_TRUE(has_warning(*plan, "parallelism.tp read as tensor_model_parallel_size"));
  EXPECT_TRUE(has_warning(*plan, "parallelism.pp read as pipeline_model_parallel_size"));
}

TEST(ParsePlan, CanonicalNamesGiveNoAliasWarning) {
  auto plan = parse(kIssuePlan);
  ASSERT_TRUE(plan.has_value()) << plan.error().what();
  EXPECT_FALSE(has_warning(*plan, " read as "));
}

// GPT-3 on AWS p4de at the 1-year reserved price.
const char* kReservedPlan = R"(model:
  preset: gpt3-175b
training:
  tokens: 300B
  seq_length: 2048
  global_batch_size: 1536
cluster:
  gpu: a100-sxm4-80gb
  gpus: 1024
parallelism:
  tensor_model_parallel_size: 8
  pipeline_model_parallel_size: 16
pricing:
  instance: aws/p4de.24xlarge
  mode: reserved-1y
)";

TEST(ParsePlan, InstanceAndModePickCatalogPricePerGpu) {
  auto plan = parse(kReservedPlan);
  ASSERT_TRUE(plan.has_value()) << plan.error().what();
  EXPECT_EQ(plan->cost.compute.mode, catalog::PricingMode::kReserved1y);
  auto inst = builtin().instance("aws/p4de.24xlarge");
  ASSERT_TRUE(inst.has_value());
  ASSERT_EQ((*inst)->gpus, 8);
  auto price = (*inst)->price(catalog::PricingMode::kReserved1y);
  ASSERT_TRUE(price.has_value());
  // The instance price divided among its 8 GPUs.
  EXPECT_NEAR(plan->cost.compute.per_gpu.value(), price->value() / 8, 1e-15);
  EXPECT_NE(plan->cost.compute.basis.find("aws/p4de.24xlarge reserved-1y"), std::string::npos)
      << plan->cost.compute.basis;
}

TEST(ParsePlan, ReservedPriceCarriesItsTermAndReuse) {
  // A reserved-1y price is bought for 8,760 h; reservation_reuse says how much of the rest of the
  // term other work uses (default none).
  auto plan = parse(kReservedPlan);
  ASSERT_TRUE(plan.has_value()) << plan.error().what();
  EXPECT_NEAR(core::in_hours(plan->cost.compute.term), 8760, 1e-9);
  EXPECT_EQ(plan->cost.compute.term_reuse, 0);
  auto reused = parse(std::string(kReservedPlan) + "  reservation_reuse: 40%\n");
  ASSERT_TRUE(reused.has_value()) << reused.error().what();
  EXPECT_NEAR(reused->cost.compute.term_reuse, 0.4, 1e-12);
  expect_error(parse(std::string(kReservedPlan) + "  reservation_reuse: 140%\n"),
               ErrorCode::kInvalidInput, "plan.yaml:16:22", "at most 100%");
}

TEST(ParsePlan, OnDemandPriceHasNoTerm) {
  auto plan = parse(kIssuePlan);
  ASSERT_TRUE(plan.has_value()) << plan.error().what();
  EXPECT_EQ(plan->cost.compute.term.value(), 0);
}

TEST(ParsePlan, NoPricingPicksCheapestInstanceWithWarning) {
  auto plan = parse(R"(model:
  preset: gpt3-175b
training:
  tokens: 300B
  seq_length: 2048
  global_batch_size: 1536
cluster:
  gpu: a100-sxm4-80gb
  gpus: 1024
parallelism:
  tensor_model_parallel_size: 8
  pipeline_model_parallel_size: 16
)");
  ASSERT_TRUE(plan.has_value()) << plan.error().what();
  EXPECT_GT(plan->cost.compute.per_gpu.value(), 0);
  EXPECT_TRUE(has_warning(*plan, "no pricing in the plan"));
}

TEST(ParsePlan, InlineArchitectureIsAccepted) {
  auto plan = parse(R"(model:
  name: tiny
  num_layers: 4
  hidden_size: 1024
  num_attention_heads: 16
  ffn_hidden_size: 4096
  vocab_size: 32000
  seq_length: 1024
training:
  tokens: 1B
  seq_length: 1024
  global_batch_size: 64
cluster:
  gpu: h100-sxm-80gb
  gpus: 8
pricing:
  gpu_hour: 2.50USD/h
)");
  ASSERT_TRUE(plan.has_value()) << plan.error().what();
  EXPECT_EQ(plan->job.model.spec().id, "inline");
  EXPECT_EQ(plan->job.model.spec().name, "tiny");
  EXPECT_EQ(plan->job.model.layers(), 4);
  EXPECT_EQ(plan->job.model.hidden(), 1024);
  EXPECT_EQ(plan->job.model.spec().num_attention_heads, 16);
  EXPECT_EQ(plan->job.data_parallel(), 8);
}

TEST(ParsePlan, HfConfigIsResolvedAgainstBaseDir) {
  const std::string base = std::string(AICOST_SOURCE_DIR) + "/data/hf_configs";
  auto plan = parse(R"(model:
  hf_config: llama-3.1-8b.json
training:
  tokens: 1B
  seq_length: 2048
  global_batch_size: 64
cluster:
  gpu: h100-sxm-80gb
  gpus: 8
pricing:
  gpu_hour: 2.50USD/h
)",
                    base);
  ASSERT_TRUE(plan.has_value()) << plan.error().what();
  // Llama 3.1 8B config.json: 32 layers, hidden 4096, 32 heads, 8 KV heads, vocab 128256.
  EXPECT_EQ(plan->job.model.layers(), 32);
  EXPECT_EQ(plan->job.model.hidden(), 4096);
  EXPECT_EQ(plan->job.model.spec().num_query_groups, 8);
  EXPECT_EQ(plan->job.model.spec().vocab_size, 128256);
}

TEST(ParsePlan, HfConfigMissingFromBaseDirIsIoError) {
  auto plan = parse(R"(model:
  hf_config: llama-3.1-8b.json
training:
  tokens: 1B
  seq_length: 2048
  global_batch_size: 64
cluster:
  gpu: h100-sxm-80gb
  gpus: 8
)",
                    std::string(AICOST_SOURCE_DIR) + "/no-such-dir");
  ASSERT_FALSE(plan.has_value());
  EXPECT_EQ(plan.error().code, ErrorCode::kIo);
  EXPECT_NE(plan.error().what().find("plan.yaml:2:14"), std::string::npos) << plan.error().what();
}

// --- error paths: code, and file:line:col of the offending value -------------------------------

std::string base_plan_with(const std::string& extra) {
  return testing::minimal_plan_yaml() + extra;
}

TEST(ParsePlanErrors, UnknownGpuIsNotFoundWithSuggestion) {
  auto plan = parse(R"(model:
  preset: gpt3-175b
training:
  tokens: 1B
  seq_length: 2048
  global_batch_size: 64
cluster:
  gpu: h100-sxm-80
  gpus: 8
)");
  expect_error(plan, ErrorCode::kNotFound, "plan.yaml:8:8", "h100-sxm-80gb");
}

TEST(ParsePlanErrors, UnitlessBandwidthAsksForUnit) {
  auto plan = parse(base_plan_with("storage:\n  checkpoint_write_bandwidth: 100\n"));
  expect_error(plan, ErrorCode::kInvalidInput, "plan.yaml:13:31", "no unit");
}

TEST(ParsePlanErrors, NegativeSizeIsInvalid) {
  auto plan = parse(base_plan_with("storage:\n  dataset_size: -5TB\n"));
  expect_error(plan, ErrorCode::kInvalidInput, "plan.yaml:13:17", "negative");
}

TEST(ParsePlanErrors, UnknownKeyOffersDidYouMean) {
  auto plan = parse(base_plan_with("parallelism:\n  tensor_model_paralel_size: 8\n"));
  expect_error(plan, ErrorCode::kInvalidInput, "plan.yaml:13:3",
               "Did you mean 'tensor_model_parallel_size'");
}

TEST(ParsePlanErrors, IndivisibleTensorParallelListsValues) {
  auto plan = parse(base_plan_with("parallelism:\n  tensor_model_parallel_size: 7\n"));
  ASSERT_FALSE(plan.has_value());
  EXPECT_EQ(plan.error().code, ErrorCode::kInvalidInput);
  EXPECT_EQ(plan.error().context.rfind("plan.yaml:13:", 0), 0u) << plan.error().context;
  // 96 heads: TP must divide 96; the message lists divisors such as 8.
  EXPECT_NE(plan.error().message.find("96"), std::string::npos) << plan.error().message;
  EXPECT_NE(plan.error().message.find("8"), std::string::npos) << plan.error().message;
}

TEST(ParsePlan, OptimizerStatesAndFp8ParamGatherAreRead) {
  std::string yaml =
      base_plan_with("parallelism:\n  optimizer_states: bf16\n  fp8_param_gather: true\n");
  const std::string batch = "global_batch_size: 64\n";
  yaml.replace(yaml.find(batch), batch.size(), batch + "  precision: fp8\n");
  auto plan = parse(yaml);
  ASSERT_TRUE(plan.has_value()) << plan.error().what();
  EXPECT_TRUE(plan->job.parallel.bf16_optimizer_states);
  EXPECT_TRUE(plan->job.parallel.fp8_param_gather);
  auto plain = parse(base_plan_with("parallelism:\n  optimizer_states: fp32\n"));
  ASSERT_TRUE(plain.has_value()) << plain.error().what();
  EXPECT_FALSE(plain->job.parallel.bf16_optimizer_states);
  EXPECT_FALSE(plain->job.parallel.fp8_param_gather);
}

TEST(ParsePlan, MoeDispatcherIsRead) {
  auto flex = parse(base_plan_with("parallelism:\n  moe_dispatcher: flex\n"));
  ASSERT_TRUE(flex.has_value()) << flex.error().what();
  EXPECT_EQ(flex->job.parallel.moe_dispatcher, workload::MoeDispatcher::kFlex);
  // Megatron's own flag name is an alias.
  auto alias = parse(base_plan_with("parallelism:\n  moe_token_dispatcher_type: alltoall\n"));
  ASSERT_TRUE(alias.has_value()) << alias.error().what();
  EXPECT_EQ(alias->job.parallel.moe_dispatcher, workload::MoeDispatcher::kAllToAll);
  auto plain = parse(base_plan_with(""));
  ASSERT_TRUE(plain.has_value()) << plain.error().what();
  EXPECT_EQ(plain->job.parallel.moe_dispatcher, workload::MoeDispatcher::kAllToAll);
}

TEST(ParsePlanErrors, Fp8ParamGatherNeedsFp8Precision) {
  auto plan = parse(base_plan_with("parallelism:\n  fp8_param_gather: true\n"));
  expect_error(plan, ErrorCode::kInvalidInput, "plan.yaml:13:21", "training.precision: fp8");
}

TEST(ParsePlanErrors, MalformedYamlIsParseErrorWithCaret) {
  auto plan = parse("model:\n  preset: [gpt3-175b\ntraining: {}\n");
  ASSERT_FALSE(plan.has_value());
  EXPECT_EQ(plan.error().code, ErrorCode::kParse);
  EXPECT_EQ(plan.error().context.rfind("plan.yaml:", 0), 0u) << plan.error().context;
  EXPECT_NE(plan.error().what().find("^"), std::string::npos) << plan.error().what();
}

TEST(ParsePlanErrors, MissingSectionIsNamed) {
  auto plan = parse("model:\n  preset: gpt3-175b\ntraining:\n  tokens: 1B\n");
  ASSERT_FALSE(plan.has_value());
  EXPECT_EQ(plan.error().code, ErrorCode::kInvalidInput);
  EXPECT_NE(plan.error().message.find("'cluster'"), std::string::npos) << plan.error().message;
}

TEST(ParsePlanErrors, GpuHourAndInstanceTogetherAreRejected) {
  auto plan = parse(base_plan_with("").replace(base_plan_with("").find("  gpu_hour"), 0,
                                               "  instance: aws/p5.48xlarge\n"));
  ASSERT_FALSE(plan.has_value());
  EXPECT_EQ(plan.error().code, ErrorCode::kInvalidInput);
  EXPECT_NE(plan.error().message.find("not both"), std::string::npos) << plan.error().message;
}

}  // namespace
}  // namespace aicost::config
