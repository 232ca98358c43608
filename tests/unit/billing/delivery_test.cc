// What `ledger ingest ARG` loads as one delivery: a folder's files, or the parts a manifest lists
// (AWS Data Exports, legacy CUR, Azure), found in a synced copy of the bucket (billing/delivery.h).
#include <gtest/gtest.h>

#include <filesystem>

#include "../../../src/billing/delivery.h"  // internal to billing
#include "temp_dir.h"

namespace aicost::billing {
namespace {

namespace fs = std::filesystem;

std::string canonical(const std::string& p) { return fs::weakly_canonical(p).string(); }

TEST(Delivery, ManifestNames) {
  EXPECT_TRUE(is_manifest_name("focus-export-Manifest.json"));
  EXPECT_TRUE(is_manifest_name("manifest.json"));
  EXPECT_TRUE(is_manifest_name("report-manifest.json"));
  EXPECT_FALSE(is_manifest_name("focus-export-00001.csv.gz"));
  EXPECT_FALSE(is_manifest_name("mymanifest.json"));
}

// An Azure export run: <export>/<YYYYMMDD-YYYYMMDD>/<run id>/ with its parts and manifest.json,
// whose blobName is the path in the storage container.
TEST(Delivery, AzureExportFolderReadsItsManifest) {
  testing::TempDir dir("aicost-delivery");
  const std::string run = "costs/gpu-actual/20250601-20250630/run-1/";
  const auto a = dir.write(run + "part_0_0001.csv.gz", "x");
  const auto b = dir.write(run + "part_1_0001.csv.gz", "y");
  dir.write(
      run + "manifest.json",
      R"({"blobCount": 2, "exportConfig": {"exportName": "gpu-actual", "resourceId": "/subscriptions/s/providers/Microsoft.CostManagement/exports/gpu-actual", "type": "ActualCost"},
                "runInfo": {"startDate": "2025-06-01T00:00:00"},
                "blobs": [{"blobName": "costs/gpu-actual/20250601-20250630/run-1/part_0_0001.csv.gz"},
                          {"blobName": "costs/gpu-actual/20250601-20250630/run-1/part_1_0001.csv.gz"}]})");
  auto d = resolve_delivery(dir.file(run));
  ASSERT_TRUE(d) << d.error().what();
  EXPECT_EQ(d->parts, (std::vector<std::string>{canonical(a), canonical(b)}));
  EXPECT_EQ(d->export_name,
            "/subscriptions/s/providers/Microsoft.CostManagement/exports/gpu-actual");
  EXPECT_TRUE(d->whole_periods);
  EXPECT_EQ(d->path, canonical(dir.file(run + "manifest.json")));
}

// Legacy CUR: reportKeys are keys in the bucket; the manifest sits in the period's folder.
TEST(Delivery, LegacyCurManifestFindsItsKeysUnderTheSyncedFolder) {
  testing::TempDir dir("aicost-delivery");
  const auto part = dir.write("sync/cur/gpu/20250601-20250701/asm-1/gpu-00001.csv.gz", "x");
  const auto manifest = dir.write(
      "sync/cur/gpu/20250601-20250701/gpu-Manifest.json",
      R"({"reportName": "gpu", "reportKeys": ["cur/gpu/20250601-20250701/asm-1/gpu-00001.csv.gz"]})");
  auto d = resolve_delivery(manifest);
  ASSERT_TRUE(d) << d.error().what();
  EXPECT_EQ(d->parts, (std::vector<std::string>{canonical(part)}));
  EXPECT_EQ(d->export_name, "gpu");
}

TEST(Delivery, AMissingPartIsNamed) {
  testing::TempDir dir("aicost-delivery");
  const auto manifest =
      dir.write("m/x-Manifest.json", R"({"dataFiles": ["s3://b/p/x/data/x-00001.csv.gz"]})");
  auto d = resolve_delivery(manifest);
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("'p/x/data/x-00001.csv.gz'"), std::string::npos)
      << d.error().message;
  EXPECT_NE(d.error().message.find("copy the whole delivery"), std::string::npos);
}

TEST(Delivery, AFolderWithoutManifestIsEveryFileInPathOrder) {
  testing::TempDir dir("aicost-delivery");
  const auto b = dir.write("d/b.csv", "x");
  const auto a2 = dir.write("d/sub/a.csv.gz", "x");
  const auto a = dir.write("d/a.csv", "x");
  dir.write("d/.hidden.csv", "x");
  dir.write("d/notes.json", "{}");
  auto d = resolve_delivery(dir.file("d"));
  ASSERT_TRUE(d) << d.error().what();
  EXPECT_EQ(d->parts, (std::vector<std::string>{a, b, a2}));
  EXPECT_TRUE(d->whole_periods);
}

TEST(Delivery, AFolderOfSeveralDeliveriesIsRefusedNamingThem) {
  testing::TempDir dir("aicost-delivery");
  dir.write("exp/metadata/BILLING_PERIOD=2025-05/exp-Manifest.json", "{}");
  dir.write("exp/metadata/BILLING_PERIOD=2025-06/exp-Manifest.json", "{}");
  auto d = resolve_delivery(dir.file("exp"));
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("this folder holds 2 manifests"), std::string::npos)
      << d.error().message;
  EXPECT_NE(d.error().message.find("BILLING_PERIOD=2025-05/exp-Manifest.json"), std::string::npos);
}

TEST(Delivery, StandardInputAndPlainFiles) {
  auto in = resolve_delivery("-");
  ASSERT_TRUE(in);
  EXPECT_EQ(in->path, "(stdin)");
  EXPECT_FALSE(in->whole_periods);
  testing::TempDir dir("aicost-delivery");
  auto f = resolve_delivery(dir.write("e.csv", "x"));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->parts.size(), 1u);
  EXPECT_FALSE(f->whole_periods);
}

}  // namespace
}  // namespace aicost::billing
