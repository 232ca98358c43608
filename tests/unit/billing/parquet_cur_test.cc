// Parquet billing exports (src/billing/parquet.h), continued: AWS CUR 2.0 as Parquet, row issues
// that name the row and column, corrupt and incomplete files, Parquet inside a zip or compressed,
// Parquet text in memory, and the CLI. The copies are made with DuckDB in folders the tests remove.
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

// AWS CUR 2.0 (Data Exports) as Parquet: snake-case names, DECIMAL costs, TIMESTAMP dates and
// the tags in a map. The usage row's EffectiveCost is its BilledCost (focus_converters recipe);
// the DiscountedUsage row's is reservation/EffectiveCost.
TEST(ParquetReader, AwsCur2IsReadByTheCurReader) {
  testing::TempDir dir("aicost-parquet");
  const auto path = to_parquet(
      "SELECT * FROM (VALUES "
      "('Usage', 0.123456789012::DECIMAL(30,12), NULL::DECIMAL(30,12), TIMESTAMP '2025-01-01 "
      "00:00:00', "
      " TIMESTAMP '2025-01-01 01:00:00', 'USD', 'AmazonEC2', MAP {'user_team': 'ml', "
      "'aws_created_by': 'x'}), "
      "('DiscountedUsage', 2.5::DECIMAL(30,12), 1.75::DECIMAL(30,12), TIMESTAMP '2025-01-01 "
      "01:00:00', "
      " TIMESTAMP '2025-01-01 02:00:00', 'USD', 'AmazonEC2', MAP {'user_team': 'web'})) "
      "AS t(line_item_line_item_type, line_item_unblended_cost, reservation_effective_cost, "
      "line_item_usage_start_date, line_item_usage_end_date, line_item_currency_code, "
      "line_item_product_code, "
      "resource_tags)",
      dir.file("cur2.parquet"));
  const auto c = read(path);
  EXPECT_EQ(c.summary.format, Format::kAwsCur);
  ASSERT_EQ(c.charges.size(), 2u) << c.errors();
  EXPECT_EQ(c.charges[0].billed, 123'456'789);  // 0.123456789|012: digits below 1e-9 rounded
  EXPECT_EQ(c.charges[0].effective, 123'456'789);
  EXPECT_EQ(c.charges[0].period_start, 1735689600);  // 2025-01-01T00:00:00Z: 20089 days
  EXPECT_EQ(c.charges[0].period_end, 1735689600 + 3600);
  EXPECT_EQ(c.charges[0].service_name, "AmazonEC2");
  EXPECT_EQ(ledger::tagset_text(c.charges[0].tags),
            ledger::tagset_text({{"team", "ml"}, {"aws_created_by", "x"}}));
  EXPECT_EQ(c.charges[1].billed, 2'500'000'000);
  EXPECT_EQ(c.charges[1].effective, 1'750'000'000);
  EXPECT_EQ(c.charges[1].commitment_discount_status, "Used");
}

// CUR 2.0's product map as a Parquet MAP: 3 h of a p4d.24xlarge (8 GPUs) = 24 GPU-hours, as the
// CSV gives (AwsCur.Cur2ReadsTheGpuCountFromTheProductMap).
TEST(ParquetReader, AwsCur2GpuHoursFromTheProductMap) {
  testing::TempDir dir("aicost-parquet");
  const auto path = to_parquet(
      "SELECT * FROM (VALUES "
      "('Usage', 98.32::DECIMAL(30,12), TIMESTAMP '2025-01-01 00:00:00', 'USD', "
      "'USE1-BoxUsage:p4d.24xlarge', "
      " 3.0::DECIMAL(30,12), 'Hrs', MAP {'instance_type': 'p4d.24xlarge', 'gpu': '8'}), "
      "('Usage', 0.5::DECIMAL(30,12), TIMESTAMP '2025-01-01 00:00:00', 'USD', "
      "'USE1-BoxUsage:m5.large', "
      " 1.0::DECIMAL(30,12), 'Hrs', MAP {'instance_type': 'm5.large'})) "
      "AS t(line_item_line_item_type, line_item_unblended_cost, line_item_usage_start_date, "
      "line_item_currency_code, "
      "line_item_usage_type, line_item_usage_amount, pricing_unit, product)",
      dir.file("cur2-gpu.parquet"));
  const auto c = read(path);
  ASSERT_EQ(c.charges.size(), 2u) << c.errors();
  EXPECT_DOUBLE_EQ(c.charges[0].gpu_hours, 24.0);
  EXPECT_DOUBLE_EQ(c.charges[1].gpu_hours, 0.0);
}

// A bad cell is an issue on its row (counted from 1) and column; the other rows load.
TEST(ParquetReader, RowIssuesNameTheRowAndColumn) {
  testing::TempDir dir("aicost-parquet");
  const auto path = to_parquet(
      "SELECT * FROM (VALUES ('1.5', '2024-09-01T00:00:00Z'), ('2.5', '2024-09-01T00:00:00Z'), "
      "('abc', '2024-09-01T00:00:00Z'), ('4', 'not a time')) AS t(BilledCost, ChargePeriodStart)",
      dir.file("bad.parquet"));
  const auto c = read(path);
  EXPECT_EQ(c.charges.size(), 2u);
  EXPECT_EQ(c.summary.rejected, 2);
  ASSERT_EQ(c.errors(),
            "3 BilledCost: 'abc' is not a decimal number\n4 ChargePeriodStart: 'not a time' is not "
            "a date-time\n");
}

TEST(ParquetReader, CorruptFileIsAClearError) {
  testing::TempDir dir("aicost-parquet");
  const auto junk = dir.write("junk.parquet", "PAR1 this is no Parquet file at all");
  const auto message = file_refusal(junk);
  EXPECT_NE(message.find("this Parquet file cannot be read"), std::string::npos) << message;
  EXPECT_NE(message.find(junk), std::string::npos) << message;
  EXPECT_EQ(message.find("/proc/self/fd"), std::string::npos) << message;

  // A real file cut in half: its footer is gone.
  const auto whole = to_parquet("FROM read_csv('" + kSample + "')", dir.file("whole.parquet"));
  const auto size = std::filesystem::file_size(whole);
  std::string bytes(size / 2, '\0');
  std::ifstream(whole, std::ios::binary)
      .read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  const auto cut = dir.write("cut.parquet", bytes);
  const auto cut_message = file_refusal(cut);
  EXPECT_NE(cut_message.find("this Parquet file cannot be read"), std::string::npos) << cut_message;
}

TEST(ParquetReader, MissingRequiredColumnIsNamed) {
  testing::TempDir dir("aicost-parquet");
  const auto path =
      to_parquet("SELECT * EXCLUDE (ChargePeriodStart) FROM read_csv('" + kSample + "')",
                 dir.file("no-start.parquet"));
  const auto message = file_refusal(path, Format::kFocus);
  EXPECT_NE(message.find("not a FOCUS cost-and-usage file: no ChargePeriodStart column"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(path), std::string::npos) << message;
  // Without --format, the column names tell no format.
  EXPECT_NE(file_refusal(path).find("cannot tell the format from the column names"),
            std::string::npos);
}

// Parquet needs a file to seek in. Inside a zip and compressed (and from standard input,
// ParquetCli below) it is copied to a nameless temporary file in $TMPDIR first: the rows and
// totals are those of the plain file, and nothing is left in $TMPDIR, read or refused.
TEST(ParquetReader, InsideAZipOrCompressedItIsSpooledAndReadAsTheFile) {
  testing::TempDir dir("aicost-parquet");
  testing::TempDir tmp("aicost-spool");
  ScopedEnv tmpdir("TMPDIR", tmp.path().string());
  const auto plain = to_parquet("FROM read_csv('" + kSample + "')", dir.file("focus.parquet"));
  const auto bytes = testing::slurp(plain);
  const auto want = read(plain);
  ASSERT_EQ(want.charges.size(), 1000u);
  for (auto [name, packing] : {std::pair{"focus.zip", testing::Packing::kZip},
                               {"focus.parquet.gz", testing::Packing::kGzip},
                               {"focus.parquet.xz", testing::Packing::kXz}}) {
    const auto path = dir.file(name);
    testing::write_packed(path, packing, {{"focus.parquet", bytes}});
    Collected c;
    auto r = read_source(path, Format::kAuto, c.sink(), true);
    ASSERT_TRUE(r) << name << ": " << r.error().what();
    EXPECT_TRUE(r->summary.rows_numbered) << name;
    ASSERT_EQ(c.charges.size(), want.charges.size()) << name;
    for (std::size_t i = 0; i < c.charges.size(); ++i) {
      ASSERT_EQ(c.charges[i].billed, want.charges[i].billed) << name << " row " << i;
      ASSERT_EQ(c.charges[i].effective, want.charges[i].effective) << name << " row " << i;
    }
    // The identity is the Parquet file's bytes, as when it is loaded plain.
    EXPECT_EQ(delivery_identity(r->member_sha256), *sha256_file(plain)) << name;
    EXPECT_TRUE(std::filesystem::is_empty(tmp.path())) << name;
  }
  // Cut short inside a gzip: refused naming the member's source, and nothing is left behind.
  const auto cut = dir.file("cut.parquet.gz");
  testing::write_packed(cut, testing::Packing::kGzip, {{"x", bytes.substr(0, bytes.size() / 2)}});
  const auto message = file_refusal(cut);
  EXPECT_NE(message.find("this Parquet file cannot be read"), std::string::npos) << message;
  EXPECT_NE(message.find(cut), std::string::npos) << message;
  EXPECT_TRUE(std::filesystem::is_empty(tmp.path()));
}

// In memory there is no file to spool to: refused with what to do.
TEST(ParquetReader, ParquetTextInMemoryIsRefusedWithWhatToDo) {
  const auto message = billing::refusal("PAR1\x15\x04", Format::kAuto, "x.parquet");
  EXPECT_NE(message.find("this is a Parquet file; save it to a file and load that"),
            std::string::npos)
      << message;
}

struct Run {
  int exit_code = -1;
  std::string out;
};

Run aicost(const testing::TempDir& dir, const std::string& args) {
  const std::string out = dir.file("out.txt");
  const int status =
      std::system((std::string(AICOST_BINARY) + " " + args + " >" + out + " 2>&1").c_str());
  Run r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(out);
  r.out.assign(std::istreambuf_iterator<char>(in), {});
  return r;
}

// Standard input: the same rows as the file, and the same identity (the file is then "already
// loaded").
TEST(ParquetCli, StandardInputIsReadAsTheFile) {
  testing::TempDir dir("aicost-parquet");
  const auto path = to_parquet("FROM read_csv('" + kSample + "')", dir.file("focus.parquet"));
  const auto piped = aicost(dir, "ledger ingest --db " + dir.file("l.db") + " - < " + path);
  EXPECT_EQ(piped.exit_code, 0) << piped.out;
  EXPECT_NE(piped.out.find("-: loaded 1000 rows as source #1 (focus-1.0); USD 20.52 billed"),
            std::string::npos)
      << piped.out;
  const auto again = aicost(dir, "ledger ingest --db " + dir.file("l.db") + " " + path);
  EXPECT_EQ(again.exit_code, 0) << again.out;
  EXPECT_NE(again.out.find("already loaded"), std::string::npos) << again.out;
}

TEST(ParquetCli, LedgerIngestAndValidateAcceptParquet) {
  testing::TempDir dir("aicost-parquet");
  const auto path = to_parquet(
      "SELECT * FROM (VALUES (1.5::DECIMAL(10,2), TIMESTAMP '2024-09-01 00:00:00', 'USD', 'x'), "
      "(2.5::DECIMAL(10,2), TIMESTAMP '2024-09-01 00:00:00', 'USD', 'y')) "
      "AS t(BilledCost, ChargePeriodStart, BillingCurrency, Id)",
      dir.file("small.parquet"));
  const auto validate = aicost(dir, "ledger validate " + path);
  EXPECT_EQ(validate.exit_code, 1) << validate.out;  // the missing mandatory columns are findings
  EXPECT_NE(validate.out.find("small.parquet: focus-1.0, 2 rows, 2 loadable, 0 rejected"),
            std::string::npos)
      << validate.out;
  EXPECT_NE(validate.out.find("row  column"), std::string::npos) << validate.out;

  const auto ingest = aicost(dir, "ledger ingest --db " + dir.file("l.db") + " " + path);
  EXPECT_EQ(ingest.exit_code, 0) << ingest.out;
  EXPECT_NE(ingest.out.find("loaded 2 rows as source #1 (focus-1.0); USD 4.00 billed"),
            std::string::npos)
      << ingest.out;
  EXPECT_NE(ingest.out.find("row 0 Id: warning"), std::string::npos) << ingest.out;
}

}  // namespace
}  // namespace aicost::billing
