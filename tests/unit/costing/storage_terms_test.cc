// The storage terms of costing (storage_terms.cc) against closed forms written here: minimum
// durations, a hot -> warm -> cold lifecycle, compressed and incremental saves, retrieval fees.
#include <gtest/gtest.h>

#include "aicost/costing/cost_model.h"
#include "aicost/reliability/spares.h"

namespace aicost::costing {
namespace {

constexpr double kDay = 86400;
constexpr double kMonth = core::kSecondsPerMonth;

// Prices in USD per GB-month, as a tier lists them.
core::UsdPerByteSecond per_gb_month(double usd) { return core::usd_per_gb_month(usd); }
double usd_per_byte_s(double usd_gb_month) { return usd_gb_month / 1e9 / kMonth; }

StorageInputs hot(double min_days = 0) {
  StorageInputs s;
  s.checkpoint_price = per_gb_month(0.023);
  s.checkpoint_terms.id = "hot";
  s.checkpoint_terms.min_duration = core::Seconds(min_days * kDay);
  s.checkpoints_retained = 40;
  return s;
}

TEST(StorageTerms, ATierBillsEachObjectAtLeastItsMinimum) {
  // 1 TB kept 10 h on a tier with a 30-day minimum pays 30 days.
  const StorageInputs s = hot(30);
  EXPECT_NEAR(checkpoint_lifetime_cost(s, core::Bytes(1e12), core::Seconds(10 * 3600)).value(),
              1e12 * usd_per_byte_s(0.023) * 30 * kDay, 1e-6);
  // Kept 40 days: 40 days.
  EXPECT_NEAR(checkpoint_lifetime_cost(s, core::Bytes(1e12), core::Seconds(40 * kDay)).value(),
              1e12 * usd_per_byte_s(0.023) * 40 * kDay, 1e-6);
}

TEST(StorageTerms, ALifecycleBillsEachTierItsTimeOrItsMinimum) {
  // Hot for 12 h, warm (30-day minimum) until day 30.5, cold (180-day minimum) to the end.
  StorageInputs s = hot();
  s.checkpoint_warm = LifecycleStage{
      core::Seconds(12 * 3600), per_gb_month(0.0125), {"warm", {}, core::Seconds(30 * kDay), {}}};
  s.checkpoint_cold = LifecycleStage{core::Seconds(12 * 3600 + 30 * kDay),
                                     per_gb_month(0.00099),
                                     {"cold", {}, core::Seconds(180 * kDay), {}}};
  const double b = 1e12;
  // Lifetime 10 days: hot 12 h, warm billed its 30 days (deleted on day 10), never cold.
  EXPECT_NEAR(checkpoint_lifetime_cost(s, core::Bytes(b), core::Seconds(10 * kDay)).value(),
              b * (usd_per_byte_s(0.023) * 0.5 * kDay + usd_per_byte_s(0.0125) * 30 * kDay), 1e-6);
  // Lifetime 100 days: hot 12 h, warm 30 days, cold billed 180 days.
  EXPECT_NEAR(checkpoint_lifetime_cost(s, core::Bytes(b), core::Seconds(100 * kDay)).value(),
              b * (usd_per_byte_s(0.023) * 0.5 * kDay + usd_per_byte_s(0.0125) * 30 * kDay +
                   usd_per_byte_s(0.00099) * 180 * kDay),
              1e-6);
  // The latest checkpoint (younger than one 6 h interval) is still hot; with a 1-day interval
  // it may be warm when a restart reads it.
  EXPECT_EQ(latest_checkpoint_terms(s, core::Seconds(6 * 3600)).id, "hot");
  EXPECT_EQ(latest_checkpoint_terms(s, core::Seconds(kDay)).id, "warm");
}

FailureOverhead failures() {
  FailureOverhead f;
  f.checkpoint_interval = core::Seconds(6 * 3600);
  f.checkpoint_size = core::Bytes(112e9);
  f.expected_interruptions = 3;
  return f;
}

TEST(StorageTerms, PlainCheckpointsCostRetainedTimesSizeTimesPriceTimesWall) {
  const StorageInputs s = hot();
  ASSERT_TRUE(plain_checkpoint_storage(s));
  const core::Seconds wall(20 * kDay);  // 80 saves, 40 retained
  const auto c = checkpoint_storage(s, failures(), wall);
  EXPECT_EQ(c.retained, 40);
  EXPECT_NEAR(c.cost.value(), 40 * 112e9 * usd_per_byte_s(0.023) * 20 * kDay, 1e-6);
}

TEST(StorageTerms, CompressedAndIncrementalSavesStoreWhatTheyWrite) {
  const core::Seconds wall(20 * kDay);
  const double saves = 80, lifetime = 40 * 6 * 3600.0, p = usd_per_byte_s(0.023);
  StorageInputs z = hot();
  z.checkpoint_compression.name = "zstd-1";
  z.checkpoint_compression.ratio = 0.8978;
  // saves x lifetime = retained x wall: the same byte-seconds as the plain form, at 89.78 %.
  EXPECT_NEAR(checkpoint_storage(z, failures(), wall).cost.value(),
              saves * 0.8978 * 112e9 * p * lifetime, 1e-6);
  StorageInputs inc = hot();
  inc.incremental_checkpoint = true;
  inc.trainable_share = 0.02;
  // Each save writes 2 %; the frozen 98 % is stored once for the run.
  EXPECT_NEAR(checkpoint_storage(inc, failures(), wall).cost.value(),
              saves * 0.02 * 112e9 * p * lifetime + 0.98 * 112e9 * p * 20 * kDay, 1e-6);
}

TEST(StorageTerms, RetrievalFeesAreTheLoadersReadsAndACheckpointPerRestart) {
  workload::TrainingJob job;
  job.tokens = 1e12;
  job.global_batch = 512;
  job.seq_length = 8192;
  job.cluster.gpus = 64;
  job.data.bytes_per_token = 4;
  StorageInputs s = hot();
  s.dataset_terms.retrieval_price = core::usd_per_gb(0.01);
  s.checkpoint_terms.retrieval_price = core::usd_per_gb(0.02);
  // One pipeline stage reads each token once: 4 TB.
  EXPECT_NEAR(retrieval_fees(job, s, failures()).value(), 4e12 / 1e9 * 0.01 + 3 * 112 * 0.02, 1e-9);
  // Four stages: the first and the last both read every batch (Megatron's get_batch): 8 TB.
  job.parallel.pipeline = 4;
  EXPECT_NEAR(retrieval_fees(job, s, failures()).value(), 8e12 / 1e9 * 0.01 + 3 * 112 * 0.02, 1e-9);
}

TEST(StorageTerms, CompressionChangesTheSaveAndTheRestore) {
  reliability::CheckpointModel ck;
  ck.size = core::Bytes(112e9);
  ck.write_bandwidth = core::gb_per_s(1);
  ck.read_bandwidth = core::gb_per_s(1);
  const double plain_write = ck.write_time().value();
  EXPECT_NEAR(plain_write, 112, 1e-9);
  ck.stored_ratio = 0.8978;
  ck.compress_rate = core::BytesPerSecond(64 * 606.3e6);
  ck.decompress_rate = core::BytesPerSecond(64 * 1260.4e6);
  EXPECT_NEAR(ck.write_time().value(), 112 * 0.8978 + 112e9 / (64 * 606.3e6), 1e-9);
  EXPECT_NEAR(ck.read_time().value(), 112 * 0.8978 + 112e9 / (64 * 1260.4e6), 1e-9);
  ck.written_share = 0.02;  // incremental: writes 2 %, restores the whole state
  EXPECT_NEAR(ck.write_time().value(), 0.02 * (112 * 0.8978 + 112e9 / (64 * 606.3e6)), 1e-9);
  EXPECT_NEAR(ck.read_time().value(), 112 * 0.8978 + 112e9 / (64 * 1260.4e6), 1e-9);
}

}  // namespace
}  // namespace aicost::costing

namespace aicost::costing {
namespace {

// With a paid spare pool the run also waits for repaired nodes: a share s of the wall time
// (reliability::spare_stall_share), so the wall time is the running time / (1 - s). Without
// reliability.spare_nodes nothing changes.
TEST(SpareStallInTheEstimate, WallTimeIsTheRunningTimeOverOneMinusTheStallShare) {
  workload::TrainingJob job;
  job.cluster.gpus = 1024;
  job.cluster.gpus_per_node = 8;
  perf::TrainingEstimate perf;
  perf.compute_time = core::Seconds(10 * 86400.0);
  CostInputs in;
  in.storage.checkpoint_size = core::Bytes(1e12);
  in.storage.checkpoint_write_bandwidth = core::gb_per_s(10);
  const auto free_pool = failure_overhead(job, perf, in);
  EXPECT_EQ(free_pool.spare_stall.value(), 0);
  in.reliability.spare_nodes = 1;
  const auto paid = failure_overhead(job, perf, in);
  const double s = reliability::spare_stall_share(in.reliability.failures, 1024, 1);
  ASSERT_GT(s, 0);
  EXPECT_DOUBLE_EQ(paid.spare_stall_share, s);
  const double running = perf.compute_time.value() + free_pool.total().value();
  EXPECT_NEAR(perf.compute_time.value() + paid.total().value(), running / (1 - s), 1e-6 * running);
}

}  // namespace
}  // namespace aicost::costing
