// Parquet billing exports (src/billing/parquet.h): read with DuckDB and handed to the CSV readers,
// so a Parquet copy of a file loads exactly what the CSV loads. The copies are made here with
// DuckDB's own COPY ... TO (FORMAT parquet), from the CSV fixture, in a folder the test removes.
// AWS CUR 2.0, row issues, damaged and compressed files and the CLI: parquet_cur_test.cc.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "aicost/billing/ingest.h"
#include "aicost/store/open.h"
#include "collected.h"
#include "compress_support.h"
#include "ledger_test_support.h"
#include "parquet_support.h"
#include "temp_dir.h"

namespace aicost::billing {
namespace {

using namespace parquet_testing;  // the DuckDB copies and comparisons

// The sample as DuckDB's CSV reader types it: amounts and quantities DOUBLE, times TIMESTAMP
// (ContractedCost, with its NULL texts, stays VARCHAR): how most tools write a FOCUS Parquet.
TEST(ParquetReader, FocusSampleWithDuckdbTypesLoadsWhatTheCsvLoads) {
  testing::TempDir dir("aicost-parquet");
  const auto path = to_parquet("FROM read_csv('" + kSample + "')", dir.file("focus.parquet"));
  expect_same_rows(read(kSample), read(path));
}

// Amounts as DECIMAL(38,11) (the sample's 11 decimals; Spark and AWS CUR 2.0 write DECIMAL).
TEST(ParquetReader, FocusSampleWithDecimalAmountsLoadsWhatTheCsvLoads) {
  testing::TempDir dir("aicost-parquet");
  std::string casts;
  for (const char* c : {"BilledCost", "EffectiveCost", "ListCost", "ContractedCost"})
    casts += std::string(casts.empty() ? "" : ", ") + "TRY_CAST(\"" + c +
             "\" AS DECIMAL(38,11)) AS \"" + c + "\"";
  const auto path = to_parquet(
      "SELECT * REPLACE (" + casts + ") FROM read_csv('" + kSample + "', all_varchar = true)",
      dir.file("focus.parquet"));
  expect_same_rows(read(kSample), read(path));
}

// Every column as text: the readers see the CSV's own cells.
TEST(ParquetReader, FocusSampleAsTextLoadsWhatTheCsvLoads) {
  testing::TempDir dir("aicost-parquet");
  const auto path =
      to_parquet("FROM read_csv('" + kSample + "', all_varchar = true)", dir.file("focus.parquet"));
  const auto csv = read(kSample), parquet = read(path);
  expect_same_rows(csv, parquet);
  // The same findings, each on the row of its CSV line (line = row + 1; the header is row 0).
  ASSERT_EQ(parquet.issues.size(), csv.issues.size());
  for (std::size_t i = 0; i < csv.issues.size(); ++i) {
    EXPECT_EQ(parquet.issues[i].line, csv.issues[i].line - 1) << csv.issues[i].message;
    EXPECT_EQ(parquet.issues[i].column, csv.issues[i].column);
    EXPECT_EQ(parquet.issues[i].message, csv.issues[i].message);
  }
}

TEST(ParquetReader, IngestGivesTheCsvTotals) {
  testing::TempDir dir("aicost-parquet");
  const auto path = to_parquet("FROM read_csv('" + kSample + "')", dir.file("focus.parquet"));
  store::StoreOptions options;
  options.mode = store::OpenMode::kCreate;
  auto csv_store = store::open_store(dir.file("csv.db"), options);
  auto parquet_store = store::open_store(dir.file("parquet.db"), options);
  ASSERT_TRUE(csv_store && parquet_store);
  auto csv = ingest_file(**csv_store, kSample, {});
  auto parquet = ingest_file(**parquet_store, path, {});
  ASSERT_TRUE(csv) << csv.error().what();
  ASSERT_TRUE(parquet) << parquet.error().what();
  EXPECT_EQ(parquet->record.rows, 1000);
  EXPECT_EQ(parquet->record.rows, csv->record.rows);
  EXPECT_EQ(parquet->record.rejected, csv->record.rejected);
  ASSERT_EQ(parquet->record.totals.size(), csv->record.totals.size());
  for (std::size_t i = 0; i < csv->record.totals.size(); ++i) {
    EXPECT_EQ(parquet->record.totals[i].currency, csv->record.totals[i].currency);
    EXPECT_TRUE(parquet->record.totals[i].billed == csv->record.totals[i].billed);
    EXPECT_TRUE(parquet->record.totals[i].effective == csv->record.totals[i].effective);
  }
  // The source is the Parquet file's own bytes.
  auto hash = sha256_file(path);
  ASSERT_TRUE(hash);
  EXPECT_EQ(parquet->record.file.sha256, *hash);
}

// 123456789.123456789 has 18 significant digits, more than a double holds: exact only if the
// DECIMAL is read as its decimal text. Its nano-units are the digits themselves.
TEST(ParquetReader, DecimalAmountsAreExact) {
  testing::TempDir dir("aicost-parquet");
  const auto path = to_parquet(
      "SELECT 123456789.123456789::DECIMAL(38,9) AS BilledCost, TIMESTAMP '2024-09-01 00:00:00' AS "
      "ChargePeriodStart, "
      "'USD' AS BillingCurrency",
      dir.file("exact.parquet"));
  const auto c = read(path);
  ASSERT_EQ(c.charges.size(), 1u);
  EXPECT_EQ(c.charges[0].billed, 123'456'789'123'456'789);
}

// Times: 2024-09-01T00:00:00Z is 1725148800 s after the epoch (19967 days × 86400).
TEST(ParquetReader, TimesAreUtc) {
  testing::TempDir dir("aicost-parquet");
  const auto path = to_parquet(
      "SELECT 1.5 AS BilledCost, TIMESTAMPTZ '2024-09-01 02:00:00+02:00' AS ChargePeriodStart, "
      "DATE '2024-09-02' AS ChargePeriodEnd, TIMESTAMP_MS '2024-09-01 00:00:00.250' AS "
      "BillingPeriodStart",
      dir.file("times.parquet"));
  const auto c = read(path);
  ASSERT_EQ(c.charges.size(), 1u) << c.errors();
  EXPECT_EQ(c.charges[0].period_start, 1725148800);
  EXPECT_EQ(c.charges[0].period_end, 1725148800 + 86400);
  EXPECT_EQ(c.charges[0].billing_period_start, 1725148800);
  for (const auto& i : c.issues) EXPECT_EQ(i.column.find("Period"), std::string::npos) << i.message;
}

// DuckDB's read_parquet expands *, ? and [...] in a path; the reader hands it the open file
// instead, so a name holding them is read as written (and a second file the glob would match is
// not read too).
TEST(ParquetReader, PathsWithGlobCharactersAreReadAsWritten) {
  testing::TempDir dir("aicost-parquet");
  const std::string row = "SELECT 1.5 AS BilledCost, TIMESTAMP '2024-09-01' AS ChargePeriodStart";
  const auto path = to_parquet(row, dir.file("focus[1]*.parquet"));
  to_parquet(row, dir.file("focus1x.parquet"));
  const auto c = read(path);
  EXPECT_EQ(c.charges.size(), 1u);
}

TEST(ParquetReader, TagsAsAMapAreTags) {
  testing::TempDir dir("aicost-parquet");
  const auto path = to_parquet(
      "SELECT 1.5 AS BilledCost, TIMESTAMP '2024-09-01' AS ChargePeriodStart, "
      "MAP {'team': 'ml', 'env': 'prod'} AS Tags",
      dir.file("tags.parquet"));
  const auto c = read(path);
  ASSERT_EQ(c.charges.size(), 1u);
  EXPECT_EQ(ledger::tagset_text(c.charges[0].tags),
            ledger::tagset_text({{"team", "ml"}, {"env", "prod"}}));
}

}  // namespace
}  // namespace aicost::billing
