// The plan keys of the storage terms (docs/PLAN_FORMAT.md, storage and network): what they set,
// and every misuse refused with its place and what to do.
#include <gtest/gtest.h>

#include <string>

#include "aicost/config/plan.h"
#include "test_support.h"

namespace aicost::config {
namespace {

const char* kHead = R"(name: t
model:
  preset: llama3-8b
training:
  tokens: 1T
  seq_length: 8192
  global_batch_size: 512
cluster:
  gpu: h100-sxm-80gb
  gpus: 64
parallelism:
  tensor_model_parallel_size: 2
pricing:
  instance: aws/p5.48xlarge
)";

core::Result<Plan> parse(const std::string& tail) {
  return parse_plan(std::string(kHead) + tail, "plan.yaml", ".", testing::builtin_catalog());
}

std::string error_of(const std::string& tail) {
  auto p = parse(tail);
  EXPECT_FALSE(p) << tail;
  return p ? std::string() : p.error().what();
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(PlanStorageTerms, TierTermsAndReadRatesComeFromTheCatalog) {
  auto p = parse(
      "storage:\n  dataset_tier: aws/s3-one-zone-ia\n  checkpoint_tier: aws/s3-standard-ia\n");
  ASSERT_TRUE(p) << p.error().what();
  const auto& s = p->cost.storage;
  EXPECT_EQ(s.dataset_terms.id, "aws/s3-one-zone-ia");
  EXPECT_NEAR(s.dataset_terms.retrieval_price.value() * 1e9, 0.01, 1e-12);
  EXPECT_NEAR(s.checkpoint_terms.min_duration.value(), 30 * 86400.0, 1e-6);
  // S3: 6,269 MB/s per reading node; 4 B per token (a 128k vocabulary).
  EXPECT_NEAR(p->job.data.per_node.value(), 6269e6, 1);
  EXPECT_EQ(p->job.data.bytes_per_token, 4);
}

TEST(PlanStorageTerms, LogLevelsAndSamplingSetTheDailyVolume) {
  auto p = parse(
      "storage:\n  log_levels: {debug: 14GB, info: 5GB}\n  log_sampling: {debug: 10%}\n"
      "  log_compression: zstd-3\n");
  ASSERT_TRUE(p) << p.error().what();
  EXPECT_NEAR(p->cost.storage.logs_per_day.value(), 14e9 * 0.1 + 5e9, 1);
  EXPECT_EQ(p->cost.storage.log_compression.name, "zstd-3");
  EXPECT_NEAR(p->cost.storage.log_compression.ratio, 0.0868, 1e-9);
}

TEST(PlanStorageTerms, MisusesAreRefusedWithWhatToDo) {
  EXPECT_TRUE(contains(error_of("storage:\n  checkpoint_warm_tier: aws/s3-standard-ia\n"),
                       "checkpoint_warm_tier and checkpoint_warm_after go together"));
  EXPECT_TRUE(contains(
      error_of(
          "storage:\n  checkpoint_warm_tier: aws/s3-standard-ia\n  checkpoint_warm_after: 2d\n"
          "  checkpoint_cold_tier: aws/s3-glacier-deep-archive\n  checkpoint_cold_after: 1d\n"),
      "must be later than checkpoint_warm_after"));
  EXPECT_TRUE(contains(error_of("storage:\n  dataset_tier: aws/s3-glacier-deep-archive\n"),
                       "a training job cannot read from it"));
  EXPECT_TRUE(contains(error_of("storage:\n  checkpoint_compression: zstd-4\n"),
                       "Measured: zstd-1, zstd-3, zstd-9"));
  EXPECT_TRUE(contains(error_of("storage:\n  logs_per_day: 5GB\n  log_levels: {debug: 1GB}\n"),
                       "not both"));
  EXPECT_TRUE(
      contains(error_of("storage:\n  log_levels: {debug: 1GB}\n  log_sampling: {info: 10%}\n"),
               "which storage.log_levels does not list"));
  EXPECT_TRUE(contains(error_of("storage:\n  dataset_duplicates: 100%\n"), "below 100%"));
  EXPECT_TRUE(contains(error_of("network:\n  egress: 1TB\n  egress_compression: zstd-1\n"),
                       "needs network.egress_content"));
  EXPECT_TRUE(contains(error_of("network:\n  egress: 1TB\n  egress_content: trainig-log\n"),
                       "Did you mean 'training-log'?"));
  // Every error names its place.
  EXPECT_TRUE(contains(error_of("storage:\n  checkpoint_compression: zstd-4\n"), "plan.yaml:16:"));
}

TEST(PlanStorageTerms, TrainableShareIsAShareAndWarns) {
  auto p = parse("storage:\n  incremental_checkpoint: true\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->cost.storage.trainable_share, 1);
  const std::string text = std::string(kHead);
  auto adapter = parse_plan(text.substr(0, text.find("cluster:")) + "  trainable_share: 2%\n" +
                                text.substr(text.find("cluster:")),
                            "plan.yaml", ".", testing::builtin_catalog());
  ASSERT_TRUE(adapter) << adapter.error().what();
  EXPECT_NEAR(adapter->cost.storage.trainable_share, 0.02, 1e-12);
  bool warned = false;
  for (const auto& w : adapter->warnings)
    warned |= contains(w, "only incremental checkpoints use it");
  EXPECT_TRUE(warned);
}

}  // namespace
}  // namespace aicost::config
