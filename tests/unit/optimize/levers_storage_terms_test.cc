// The levers priced by the storage, compression and data-loading terms (docs/OPTIMIZE.md "Storage
// terms"): each saving is the difference of two estimates made here (the plan as written and the
// plan edited by hand, line by line), a red line rejects what it should, and a lever that does not
// apply or cannot be priced says why.
#include <gtest/gtest.h>

#include <map>

#include "aicost/config/catalog_loader.h"
#include "optimize_support.h"
#include "temp_dir.h"

namespace aicost::optimize {
namespace {

using Map = std::map<std::string, std::optional<std::string>>;
using testing::hand_edit;
using testing::lever;

// Llama 3 8B on 8 AWS p5 nodes with every storage key the levers read: datasets and checkpoints on
// S3 Standard, 40 checkpoints 6 h apart (10 days back), logs by level, a 20 % duplicate share,
// metrics shipped out.
const char* kPlan = R"(name: llama3-8b-h100-aws-storage
model:
  preset: llama3-8b
training:
  tokens: 1T
  seq_length: 8192
  global_batch_size: 512
  precision: bf16
cluster:
  gpu: h100-sxm-80gb
  gpus: 64
parallelism:
  tensor_model_parallel_size: 2
  pipeline_model_parallel_size: 1
  micro_batch_size: 1
  recompute_granularity: selective
  use_distributed_optimizer: true
pricing:
  instance: aws/p5.48xlarge
  mode: on-demand
storage:
  dataset_tier: aws/s3-standard
  checkpoint_tier: aws/s3-standard
  checkpoint_interval: 6h
  checkpoints_retained: 40
  log_levels: {debug: 14GB, info: 5GB, warning: 1GB, audit: 1GB}
  log_retention: 90d
  dataset_duplicates: 20%
network:
  egress: 10TB
  egress_content: metrics-jsonl
)";

std::vector<Lever> only(const std::string& id) {
  std::vector<Lever> out;
  for (const auto& l : training_levers()) {
    if (l.id == id) out.push_back(l);
  }
  EXPECT_EQ(out.size(), 1u) << id;
  return out;
}

// One lever on a plan text, as `aicost optimize` runs it, on `cat` (the built-in catalog unless a
// test adds entries).
LeverResult run_lever(const std::string& text, const std::string& id, const Guardrails& g = {},
                      const catalog::Catalog& cat = testing::builtin_catalog()) {
  testing::TempDir dir("aicost-levers");
  const std::string path = dir.write("plan.yaml", text);
  auto editor = config::PlanEditor::open(path, cat);
  EXPECT_TRUE(editor) << (editor ? "" : editor.error().what());
  if (!editor) return {};
  OptimizeInputs in;
  in.plan_name = editor->name();
  in.catalog = &cat;
  const config::PlanEditor ed = *editor;
  in.evaluate = [ed](const Change& c) { return ed.evaluate(c); };
  in.limits = editor->limits() ? *editor->limits() : PlanLimits{};
  in.guardrails = g;
  in.threads = 1;
  in.levers = only(id);
  auto r = optimize(in);
  EXPECT_TRUE(r) << (r ? "" : r.error().what());
  return r ? lever(*r, id) : LeverResult{};
}

double total(const std::string& text) { return testing::estimate_total(text, "."); }

// The lever's saving against the two estimates of this test.
void expect_saving(const LeverResult& l, const std::string& before, const std::string& after) {
  ASSERT_TRUE(l.saving_usd) << to_string(l.status) << ": " << l.why;
  const double b = total(before), a = total(after);
  EXPECT_NEAR(*l.saving_usd, b - a, 0.005);
  EXPECT_NEAR(*l.total_usd, a, 0.005);
  EXPECT_GT(*l.saving_usd, 0);
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::string edit(std::string text, const Map& m) {
  for (const auto& [key, value] : m) {
    const auto dot = key.find('.');
    text = hand_edit(text, key.substr(0, dot), key.substr(dot + 1), value);
  }
  return text;
}

TEST(StorageLevers, DatasetDedupSavesTheDuplicateShareOfTheDataset) {
  const auto l = run_lever(kPlan, "dataset-dedup");
  // 1T tokens x 4 B (a 128k vocabulary: int32 ids) = 4 TB; 20 % duplicates leave 3.2 TB.
  const Map want{{"storage.dataset_size", "3200GB"}, {"storage.dataset_duplicates", "0%"}};
  EXPECT_EQ(testing::as_map(l.change), want);
  expect_saving(l, kPlan, edit(kPlan, want));
}

TEST(StorageLevers, DatasetDedupSaysWhatItNeeds) {
  const auto l =
      run_lever(hand_edit(kPlan, "storage", "dataset_duplicates", std::nullopt), "dataset-dedup");
  EXPECT_EQ(l.status, LeverStatus::kNotPriced);
  EXPECT_TRUE(contains(l.why, "give storage.dataset_duplicates")) << l.why;
}

TEST(StorageLevers, LogCompressionStoresLogsAtTheMeasuredRatio) {
  const auto l = run_lever(kPlan, "log-compression");
  // 21 GB a day takes 0.4 % of a core at zstd-9's 58.8 MB/s: the best measured ratio (6.9 %) within
  // 5 %.
  const Map want{{"storage.log_compression", "zstd-9"}};
  EXPECT_EQ(testing::as_map(l.change), want);
  expect_saving(l, kPlan, edit(kPlan, want));
}

TEST(StorageLevers, LogSamplingSamplesOnlyTheVerboseLevels) {
  const auto l = run_lever(kPlan, "log-sampling");
  EXPECT_EQ(testing::as_map(l.change), (Map{{"storage.log_sampling.debug", "10%"}}));
  // Warnings and audit logs are never sampled (the security floor keeps audit logging whole).
  expect_saving(l, kPlan, hand_edit(kPlan, "storage", "log_sampling", "{debug: 10%}"));
  EXPECT_EQ(l.risk.level, RiskLevel::kLow);
}

TEST(StorageLevers, LogSamplingNeedsTheVolumeByLevel) {
  std::string text = hand_edit(kPlan, "storage", "log_levels", std::nullopt);
  text = hand_edit(text, "storage", "logs_per_day", "20GB");
  const auto l = run_lever(text, "log-sampling");
  EXPECT_EQ(l.status, LeverStatus::kNotPriced);
  EXPECT_TRUE(contains(l.why, "storage.log_levels")) << l.why;
  // Only warnings and audit logs: nothing to sample.
  const auto none = run_lever(
      hand_edit(kPlan, "storage", "log_levels", "{warning: 1GB, audit: 1GB}"), "log-sampling");
  EXPECT_EQ(none.status, LeverStatus::kNoSaving);
  EXPECT_TRUE(contains(none.why, "never sampled")) << none.why;
}

TEST(StorageLevers, EgressCompressionShipsTheMeasuredRatio) {
  const auto l = run_lever(kPlan, "egress-compression");
  const Map want{{"network.egress_compression", "zstd-1"}};
  EXPECT_EQ(testing::as_map(l.change), want);
  expect_saving(l, kPlan, edit(kPlan, want));
  // Closed form: 10 TB at 11.95 % of their size (data/compression.yaml zstd-1/metrics-jsonl 0.1195)
  // and the catalog's internet egress price; the saving is the bytes not sent, with the default
  // 10 % contingency on top.
  const auto* price = [] {
    for (const auto& n : testing::builtin_catalog().network_prices()) {
      if (n.provider == "aws" && n.kind == "internet-egress") return &n;
    }
    return static_cast<const catalog::NetworkPrice*>(nullptr);
  }();
  ASSERT_NE(price, nullptr);
  EXPECT_NEAR(*l.saving_usd, 1.10 * 10e12 * (1 - 0.1195) * price->price.value(), 0.01);
}

TEST(StorageLevers, EgressCompressionNeedsToKnowWhatTheEgressIs) {
  const auto l =
      run_lever(hand_edit(kPlan, "network", "egress_content", std::nullopt), "egress-compression");
  EXPECT_EQ(l.status, LeverStatus::kNotPriced);
  EXPECT_TRUE(contains(l.why, "network.egress_content")) << l.why;
}

TEST(StorageLevers, CheckpointCompressionIsTheDifferenceOfTwoEstimates) {
  // Written slowly (1 GB/s), the 14 B/param state of 8B parameters takes 112 s to save; zstd-1
  // stores 89.8 % of it, compressed by 8 cores a node (8 nodes x 8 x 606 MB/s: 3 s): the write
  // shrinks by 11 s, more than the compression adds.
  const std::string text = hand_edit(kPlan, "storage", "checkpoint_write_bandwidth", "1GB/s");
  const auto l = run_lever(text, "checkpoint-compression");
  ASSERT_EQ(l.status, LeverStatus::kAccepted) << l.why;
  const auto m = testing::as_map(l.change);
  ASSERT_EQ(m.size(), 1u);
  ASSERT_TRUE(m.count("storage.checkpoint_compression"));
  expect_saving(l, text, edit(text, m));
  EXPECT_TRUE(contains(l.risk.why, "high-entropy")) << l.risk.why;
}

// Saves at 1 GB/s, restores at 100 GB/s, 3 cores a node for compression: a save gets 3.7 s shorter
// (11.4 s less written, 7.7 s compressing: it pays), but a restore decompresses 112 GB at 30 GB/s
// (3.7 s) to read 11 % fewer bytes, and only half the save is lost work. Under a recovery limit
// half a second above the plan's the lever is rejected with the line; without one it is accepted.
TEST(StorageLevers, CheckpointCompressionRespectsTheRecoveryLimit) {
  std::string text = hand_edit(kPlan, "storage", "checkpoint_write_bandwidth", "1GB/s");
  text = hand_edit(text, "reliability", "checkpoint_read_bandwidth", "100GB/s");
  text = hand_edit(text, "storage", "compression_cores_per_node", "3");
  testing::TempDir dir("aicost-levers");
  auto editor = config::PlanEditor::open(dir.write("plan.yaml", text), testing::builtin_catalog());
  ASSERT_TRUE(editor) << editor.error().what();
  auto base = editor->evaluate({});
  ASSERT_TRUE(base) << base.error().what();
  EXPECT_EQ(run_lever(text, "checkpoint-compression").status, LeverStatus::kAccepted);
  Guardrails g;
  g.max_recovery = recovery_per_interrupt(*base) + core::Seconds(0.5);
  const auto l = run_lever(text, "checkpoint-compression", g);
  EXPECT_EQ(l.status, LeverStatus::kRejected) << l.why;
  EXPECT_TRUE(contains(l.red_line.why, "recovery per interrupt")) << l.red_line.why;
  EXPECT_TRUE(l.saving_usd && *l.saving_usd > 0);
}

// High-entropy state compresses little: at the default 100 GB/s the compression costs more than it
// saves, and the lever says by how much.
TEST(StorageLevers, CheckpointCompressionOnAFastWriteDoesNotPay) {
  const auto l = run_lever(kPlan, "checkpoint-compression");
  EXPECT_EQ(l.status, LeverStatus::kNoSaving) << l.why;
  EXPECT_TRUE(contains(l.why, "costs")) << l.why;
}

TEST(StorageLevers, IncrementalCheckpointSavesOnlyWhenMostOfTheModelIsFrozen) {
  const auto full = run_lever(kPlan, "incremental-checkpoint");
  EXPECT_EQ(full.status, LeverStatus::kNotApplicable);
  EXPECT_TRUE(contains(full.why, "changes every parameter each step")) << full.why;

  // Adapter training: 2 % of the parameters train, the frozen base is stored once.
  const std::string text = hand_edit(kPlan, "training", "trainable_share", "2%");
  const auto l = run_lever(text, "incremental-checkpoint");
  const Map want{{"storage.incremental_checkpoint", "true"}};
  EXPECT_EQ(testing::as_map(l.change), want);
  expect_saving(l, text, edit(text, want));
}

TEST(StorageLevers, CheckpointTierMovesOlderCheckpointsToAColderTier) {
  const auto l = run_lever(kPlan, "checkpoint-tier");
  ASSERT_EQ(l.status, LeverStatus::kAccepted) << l.why;
  // The latest two (12 h) stay on S3 Standard; older ones move to Deep Archive, which bills 180
  // days per object: cheaper than 9.5 more days of S3 Standard at 23x the price.
  const Map want{{"storage.checkpoint_warm_tier", "aws/s3-glacier-deep-archive"},
                 {"storage.checkpoint_warm_after", "720min"}};
  EXPECT_EQ(testing::as_map(l.change), want);
  expect_saving(l, kPlan, edit(kPlan, want));
  EXPECT_EQ(l.risk.level, RiskLevel::kLow);
}

// Checkpoints kept for hours: a colder tier bills each one its minimum duration (30-180 days).
TEST(StorageLevers, CheckpointTierDoesNotPayForShortLivedCheckpoints) {
  std::string text = hand_edit(kPlan, "storage", "checkpoint_interval", "1h");
  text = hand_edit(text, "storage", "checkpoints_retained", "3");
  const auto l = run_lever(text, "checkpoint-tier");
  EXPECT_EQ(l.status, LeverStatus::kNoSaving) << l.why;
  EXPECT_TRUE(contains(l.why, "minimum duration")) << l.why;
}

TEST(StorageLevers, CheckpointTierNeedsANamedTier) {
  const auto l = run_lever(hand_edit(hand_edit(kPlan, "storage", "checkpoint_tier", std::nullopt),
                                     "storage", "checkpoint_price", "0.02USD/GB-month"),
                           "checkpoint-tier");
  EXPECT_EQ(l.status, LeverStatus::kNotPriced);
  EXPECT_TRUE(contains(l.why, "storage.checkpoint_tier")) << l.why;
}

// A measured read rate of 1 MB/s cannot feed 64 H100s (2.3 MB/s of token ids): the step waits
// for data. The lever moves the dataset to a catalogued tier that feeds it.
TEST(StorageLevers, DataLoaderMovesAStarvedDatasetToAFasterTier) {
  const std::string text = hand_edit(kPlan, "storage", "dataset_read_bandwidth", "1MB/s");
  const auto l = run_lever(text, "data-loader");
  ASSERT_EQ(l.status, LeverStatus::kAccepted) << l.why;
  const auto m = testing::as_map(l.change);
  ASSERT_TRUE(m.count("storage.dataset_tier"));
  EXPECT_EQ(m.at("storage.dataset_read_bandwidth"), std::nullopt);
  expect_saving(l, text, edit(text, m));
  EXPECT_LT(*l.wall_days_delta, 0);
}

TEST(StorageLevers, DataLoaderSaysWhenTheGpusNeverWait) {
  const auto l = run_lever(kPlan, "data-loader");
  EXPECT_EQ(l.status, LeverStatus::kNotApplicable);
  EXPECT_TRUE(contains(l.why, "never wait for data")) << l.why;
  const auto own = run_lever(hand_edit(hand_edit(kPlan, "storage", "dataset_tier", std::nullopt),
                                       "storage", "dataset_price", "0.02USD/GB-month"),
                             "data-loader");
  EXPECT_EQ(own.status, LeverStatus::kNotPriced);
  EXPECT_TRUE(contains(own.why, "storage.dataset_read_bandwidth")) << own.why;
}

// The built-in catalog and a tier cheaper than S3 that reads only 100 KB/s per node (made up
// here: no real tier is both cheaper and slower than S3 Standard in data/prices.yaml).
const catalog::Catalog& with_slow_tier() {
  static const catalog::Catalog cat = [] {
    catalog::Catalog c = testing::builtin_catalog();
    const auto st = config::add_catalog_text(R"(storage:
  - id: aws/test-slow-cheap
    provider: aws
    tier: object
    region: us-east-1
    price: 0.002USD/GB-month
    source: "a tier made up for this test"
    read_per_node: 280KB/s
    read_source: "made up for this test"
)",
                                             "test-catalog.yaml", c);
    EXPECT_TRUE(st) << (st ? "" : st.error().what());
    return c;
  }();
  return cat;
}

// A 4 PB dataset on S3 One Zone-IA: the only cheaper readable tier is the slow one (the Glacier
// tiers restore before any read). It saves storage but lets the GPUs wait (16.8 MB a step at
// 8 x 280 KB/s = 7.5 s against 7.3 s of work); under the default red lines no change may add a
// wait, and the lever is rejected with the line; a 10 % allowance accepts it.
TEST(StorageLevers, DatasetTierOnASlowTierCrossesTheDataStallLine) {
  std::string text = hand_edit(kPlan, "storage", "dataset_tier", "aws/s3-one-zone-ia");
  text = hand_edit(text, "storage", "dataset_size", "4000TB");
  const auto l = run_lever(text, "dataset-tier", {}, with_slow_tier());
  EXPECT_EQ(testing::as_map(l.change).at("storage.dataset_tier"), "aws/test-slow-cheap");
  EXPECT_EQ(l.status, LeverStatus::kRejected) << l.why;
  EXPECT_TRUE(contains(l.red_line.why, "the GPUs wait for data")) << l.red_line.why;
  EXPECT_TRUE(contains(l.red_line.why, "above the 0.0 % allowed (max_data_stall)"))
      << l.red_line.why;
  Guardrails g;
  g.max_data_stall = 0.10;
  EXPECT_EQ(run_lever(text, "dataset-tier", g, with_slow_tier()).status, LeverStatus::kAccepted);
}

TEST(StorageLevers, DatasetTierIsTheDifferenceOfTwoEstimates) {
  // On the built-in catalog S3 One Zone-IA is cheaper per GB but bills retrieval on every token
  // read: on a 4 TB dataset read once it does not pay, and the lever says by how much.
  const auto l = run_lever(kPlan, "dataset-tier");
  EXPECT_EQ(l.status, LeverStatus::kNoSaving) << l.why;
  // A dataset kept 3 months for 1 trained token in 20 is mostly storage: One Zone-IA pays.
  std::string text = hand_edit(kPlan, "storage", "dataset_size", "80TB");
  const auto cheap = run_lever(text, "dataset-tier");
  const Map want{{"storage.dataset_tier", "aws/s3-one-zone-ia"},
                 {"storage.dataset_price", std::nullopt},
                 {"storage.dataset_read_bandwidth", std::nullopt}};
  EXPECT_EQ(testing::as_map(cheap.change), want);
  expect_saving(cheap, text, edit(text, want));
}

// 1,024 GPUs holding no spare node: with 2-day repairs about 0.8 nodes are in repair on average
// and the job waits for one 44 % of the time (Erlang's B(1, m)). The lever sizes the pool from
// the ladder (0, 1, 2, 4, ... a tenth of the nodes), each pool estimated as the whole plan.
TEST(ReliabilityLevers, SparesSizeThePoolAgainstTheWaitForRepairs) {
  std::string text = hand_edit(kPlan, "cluster", "gpus", "1024");
  text = hand_edit(text, "reliability", "spare_nodes", "0");
  const auto l = run_lever(text, "spares");
  ASSERT_EQ(l.status, LeverStatus::kAccepted) << l.why;
  const auto m = testing::as_map(l.change);
  ASSERT_EQ(m.size(), 1u);
  ASSERT_TRUE(m.count("reliability.spare_nodes"));
  expect_saving(l, text, edit(text, m));
  EXPECT_LT(*l.wall_days_delta, 0);
  // On the chosen pool, the lever has nothing more to do; without a pool it does not apply.
  const auto again = run_lever(edit(text, m), "spares");
  EXPECT_EQ(again.status, LeverStatus::kNoSaving) << again.why;
  EXPECT_TRUE(contains(again.why, "is the cheapest pool")) << again.why;
  const auto none = run_lever(kPlan, "spares");
  EXPECT_EQ(none.status, LeverStatus::kNotApplicable);
}

}  // namespace
}  // namespace aicost::optimize
