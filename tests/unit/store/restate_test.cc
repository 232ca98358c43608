// Deliveries: a folder or manifest is one source of many parts; a re-delivered billing period
// replaces the earlier delivery of that period of the same export, in one transaction, also when
// the ingest is killed halfway (Store::restate, billing/delivery.h). Runs against every backend.
#include <gtest/gtest.h>

#include <cstdlib>

#include "aicost/billing/ingest.h"
#include "aicost/store/open.h"
#include "backends.h"
#include "compress_support.h"
#include "kill_support.h"
#include "ledger_test_support.h"
#include "temp_dir.h"

namespace aicost {
namespace {

using billing::IngestOptions;
using billing::IngestResult;
using testing::ledger_totals;

constexpr const char* kHeader =
    "BilledCost,EffectiveCost,ChargePeriodStart,BillingPeriodStart,BillingCurrency,ProviderName,"
    "BillingAccountId\n";

// `rows` charges of `cost` USD each in the billing period starting `period` (YYYY-MM), of account
// `account`. Its sum is rows x cost exactly (costs with few decimals).
std::string period_csv(const std::string& period, int rows, const std::string& cost,
                       const std::string& account = "111") {
  std::string out = kHeader;
  for (int i = 0; i < rows; ++i)
    out += cost + "," + cost + "," + period + "-0" + std::to_string(1 + i % 9) + "T00:00:00Z," +
           period + "-01T00:00:00Z,USD,AWS," + account + "\n";
  return out;
}

// Billed USD over the whole ledger, in nano-units.
core::WideNanos billed_usd(ledger::Store& store) {
  auto t = ledger_totals(store);
  return t.count("USD") ? t["USD"].billed : 0;
}
constexpr core::WideNanos kUsd = 1'000'000'000;

class RestateTest : public testing::BackendTest {
 protected:
  testing::TempDir dir_{"aicost-restate"};
};

TEST_P(RestateTest, ARedeliveredPeriodReplacesTheEarlierDeliveryAndKeepsOthers) {
  IngestOptions opts;
  opts.restate = true;
  const auto sep1 = dir_.write("sep-v1.csv", period_csv("2024-09", 10, "1.5"));
  const auto oct = dir_.write("oct.csv", period_csv("2024-10", 3, "1"));
  const auto other_account = dir_.write("sep-other.csv", period_csv("2024-09", 2, "7", "222"));
  const auto sep2 = dir_.write("sep-v2.csv", period_csv("2024-09", 8, "2.25"));
  for (const auto& f : {sep1, oct, other_account}) {
    auto r = billing::ingest_file(store(), f, opts);
    ASSERT_TRUE(r) << r.error().what();
    EXPECT_EQ(r->outcome, IngestResult::Outcome::kLoaded) << f;
  }
  EXPECT_EQ(billed_usd(store()), 15 * kUsd + 3 * kUsd + 14 * kUsd);
  auto r = billing::ingest_file(store(), sep2, opts);
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->outcome, IngestResult::Outcome::kReplaced);
  ASSERT_EQ(r->restated.size(), 1u);
  EXPECT_EQ(r->periods, (std::vector<std::string>{"2024-09-01"}));
  // September of account 111 is now 8 x 2.25 = 18 USD; October and account 222 stay.
  EXPECT_EQ(billed_usd(store()), 18 * kUsd + 3 * kUsd + 14 * kUsd);
  auto sources = store().sources();
  ASSERT_TRUE(sources);
  EXPECT_EQ(sources->size(), 3u);
}

TEST_P(RestateTest, WithoutRestateTwoFilesOfOnePeriodAddUp) {
  ASSERT_TRUE(
      billing::ingest_file(store(), dir_.write("a.csv", period_csv("2024-09", 10, "1.5")), {}));
  ASSERT_TRUE(
      billing::ingest_file(store(), dir_.write("b.csv", period_csv("2024-09", 8, "2.25")), {}));
  EXPECT_EQ(billed_usd(store()), 15 * kUsd + 18 * kUsd);
}

TEST_P(RestateTest, ADeliveryThatWouldDropAnotherPeriodIsRefusedAndChangesNothing) {
  IngestOptions opts;
  opts.restate = true;
  const auto both =
      dir_.write("both.csv", period_csv("2024-09", 4, "1") +
                                 period_csv("2024-10", 4, "1").substr(std::string(kHeader).size()));
  ASSERT_TRUE(billing::ingest_file(store(), both, opts));
  auto r =
      billing::ingest_file(store(), dir_.write("sep.csv", period_csv("2024-09", 2, "5")), opts);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("covers the billing period 2024-10-01"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(billed_usd(store()), 8 * kUsd);
  auto sources = store().sources();
  ASSERT_TRUE(sources);
  EXPECT_EQ(sources->size(), 1u);
}

// An AWS Data Exports delivery: a manifest listing S3 URIs of gzip parts, synced to a local
// folder in the export's layout (data/ and metadata/ beside each other). The folder loads as one
// source of both parts; a second execution of the same period replaces it.
TEST_P(RestateTest, ManifestFolderLoadsItsPartsAsOneDeliveryAndARedeliveryReplacesIt) {
  auto deliver = [&](const std::string& execution, const std::vector<std::string>& parts) {
    std::string files;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::string key = "exports/gpu-cur/data/BILLING_PERIOD=2024-09/" + execution + "-0000" +
                              std::to_string(i + 1) + ".csv.gz";
      std::filesystem::create_directories(std::filesystem::path(dir_.file(key)).parent_path());
      testing::write_packed(dir_.file(key), testing::Packing::kGzip, {{"p.csv", parts[i]}});
      files += std::string(files.empty() ? "" : ", ") + "\"s3://my-bucket/" + key + "\"";
    }
    const std::string manifest =
        "exports/gpu-cur/metadata/BILLING_PERIOD=2024-09/" + execution + "/gpu-cur-Manifest.json";
    dir_.write(manifest,
               "{\"executionId\": \"" + execution +
                   "\", \"exportArn\": \"arn:aws:bcm-data-exports:us-east-1:111:export/gpu-cur\", "
                   "\"billingPeriod\": {\"start\": \"2024-09-01T00:00:00Z\"}, \"dataFiles\": [" +
                   files + "]}");
    return (dir_.path() / manifest).parent_path().string();
  };
  const auto first =
      deliver("e1", {period_csv("2024-09", 10, "1.5"), period_csv("2024-09", 6, "0.5")});
  auto r = billing::ingest_file(store(), first, {});
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->parts, 2u);
  EXPECT_EQ(r->record.rows, 16);
  EXPECT_EQ(r->encoding, billing::Encoding::kGzip);
  EXPECT_EQ(billed_usd(store()), 15 * kUsd + 3 * kUsd);
  auto again = billing::ingest_file(store(), first, {});
  ASSERT_TRUE(again) << again.error().what();
  EXPECT_EQ(again->outcome, IngestResult::Outcome::kAlreadyLoaded);

  const auto second = deliver("e2", {period_csv("2024-09", 4, "3")});
  auto restated = billing::ingest_file(store(), second, {});
  ASSERT_TRUE(restated) << restated.error().what();
  EXPECT_EQ(restated->outcome, IngestResult::Outcome::kReplaced);
  EXPECT_EQ(restated->restated, (std::vector<std::int64_t>{r->record.id}));
  EXPECT_EQ(billed_usd(store()), 12 * kUsd);
}

// An export in "overwrite" mode writes its new delivery over the old files and manifest: the same
// path with other bytes replaces the earlier load (no --replace needed for a delivery).
TEST_P(RestateTest, ADeliveryOverwrittenInPlaceReplacesTheEarlierOne) {
  const auto manifest = dir_.write(
      "azure/run/manifest.json",
      R"({"exportConfig": {"exportName": "gpu"}, "blobs": [{"blobName": "azure/run/part_0_0001.csv"}]})");
  dir_.write("azure/run/part_0_0001.csv", period_csv("2024-09", 10, "1.5"));
  auto first = billing::ingest_file(store(), manifest, {});
  ASSERT_TRUE(first) << first.error().what();
  dir_.write("azure/run/part_0_0001.csv", period_csv("2024-09", 2, "4"));
  auto second = billing::ingest_file(store(), dir_.file("azure/run"), {});
  ASSERT_TRUE(second) << second.error().what();
  EXPECT_EQ(second->outcome, IngestResult::Outcome::kReplaced);
  EXPECT_EQ(second->replaced, (std::vector<std::int64_t>{first->record.id}));
  EXPECT_EQ(billed_usd(store()), 8 * kUsd);
}

TEST_P(RestateTest, KilledRestatementLeavesTheOldPeriodAndTheRerunTheNew) {
  IngestOptions opts;
  opts.restate = true;
  opts.batch = 100;  // many store round trips, so the kill lands mid-transaction
  const auto sep1 = dir_.write("sep-v1.csv", period_csv("2024-09", 300, "1.25"));
  const auto oct = dir_.write("oct.csv", period_csv("2024-10", 3, "1"));
  const auto sep2 = dir_.write("sep-v2.csv", period_csv("2024-09", 1000, "0.75"));
  ASSERT_TRUE(billing::ingest_file(store(), sep1, opts));
  ASSERT_TRUE(billing::ingest_file(store(), oct, opts));
  const core::WideNanos before = 375 * kUsd + 3 * kUsd, after = 750 * kUsd + 3 * kUsd;
  ASSERT_EQ(billed_usd(store()), before);
  const std::string db = fresh_.db;
  fresh_.store.reset();

  ASSERT_NO_FATAL_FAILURE(testing::ingest_killed_after(db, sep2, opts));

  auto reopened = store::open_store(db);
  ASSERT_TRUE(reopened) << reopened.error().what();
  EXPECT_EQ(billed_usd(**reopened), before);
  auto rerun = billing::ingest_file(**reopened, sep2, opts);
  ASSERT_TRUE(rerun) << rerun.error().what();
  EXPECT_EQ(rerun->outcome, IngestResult::Outcome::kReplaced);
  EXPECT_EQ(billed_usd(**reopened), after);
  auto sources = (*reopened)->sources();
  ASSERT_TRUE(sources);
  EXPECT_EQ(sources->size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Backends, RestateTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost
