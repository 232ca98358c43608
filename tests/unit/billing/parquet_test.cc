// Parquet billing exports (src/billing/parquet.h): read with DuckDB and handed to the CSV readers,
// so a Parquet copy of a file loads exactly what the CSV loads. The copies are made here with
// DuckDB's own COPY ... TO (FORMAT parquet), from the CSV fixture, in a folder the test removes.
#include <duckdb.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "aicost/billing/ingest.h"
#include "aicost/store/open.h"
#include "collected.h"
#include "compress_support.h"
#include "ledger_test_support.h"
#include "temp_dir.h"

namespace aicost::billing {
namespace {

using testing::samples_dir;

const std::string kSample = samples_dir() + "focus-sample-data/focus_sample.csv";

// Runs SQL statements on an in-memory DuckDB; the test fails on an error.
void duck(const std::string& sql) {
  duckdb_database db = nullptr;
  duckdb_connection con = nullptr;
  ASSERT_EQ(duckdb_open(nullptr, &db), DuckDBSuccess);
  ASSERT_EQ(duckdb_connect(db, &con), DuckDBSuccess);
  duckdb_result r;
  const bool ok = duckdb_query(con, sql.c_str(), &r) == DuckDBSuccess;
  const std::string error = ok ? "" : duckdb_result_error(&r);
  duckdb_destroy_result(&r);
  duckdb_disconnect(&con);
  duckdb_close(&db);
  ASSERT_TRUE(ok) << sql << ": " << error;
}

// COPY (query) TO `path` as Parquet.
std::string to_parquet(const std::string& query, const std::string& path) {
  duck("COPY (" + query + ") TO '" + path + "' (FORMAT parquet)");
  return path;
}

// Sets an environment variable for the scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

Collected read(const std::string& path, Format format = Format::kAuto) {
  Collected c;
  auto r = read_file(path, format, c.sink());
  EXPECT_TRUE(r) << (r ? "" : r.error().what());
  if (r) c.summary = *r;
  return c;
}

std::string file_refusal(const std::string& path, Format format = Format::kAuto) {
  Collected c;
  auto r = read_file(path, format, c.sink());
  return r ? std::string() : r.error().what();
}

// Every field a reader fills, but the line (a CSV line is the Parquet row + 1).
void expect_same(const ledger::Charge& a, const ledger::Charge& b, std::size_t row) {
  SCOPED_TRACE("row " + std::to_string(row + 1));
  EXPECT_EQ(a.period_start, b.period_start);
  EXPECT_EQ(a.period_end, b.period_end);
  EXPECT_EQ(a.billing_period_start, b.billing_period_start);
  EXPECT_EQ(a.currency, b.currency);
  EXPECT_EQ(a.billed, b.billed);
  EXPECT_EQ(a.effective, b.effective);
  EXPECT_EQ(a.list, b.list);
  EXPECT_EQ(a.contracted, b.contracted);
  for (auto field : {&ledger::Charge::provider,
                     &ledger::Charge::billing_account_id,
                     &ledger::Charge::billing_account_name,
                     &ledger::Charge::sub_account_id,
                     &ledger::Charge::sub_account_name,
                     &ledger::Charge::service_name,
                     &ledger::Charge::service_category,
                     &ledger::Charge::region_id,
                     &ledger::Charge::resource_id,
                     &ledger::Charge::resource_name,
                     &ledger::Charge::resource_type,
                     &ledger::Charge::sku_id,
                     &ledger::Charge::charge_category,
                     &ledger::Charge::charge_class,
                     &ledger::Charge::charge_frequency,
                     &ledger::Charge::pricing_category,
                     &ledger::Charge::commitment_discount_id,
                     &ledger::Charge::commitment_discount_status,
                     &ledger::Charge::pricing_unit,
                     &ledger::Charge::consumed_unit,
                     &ledger::Charge::charge_description})
    EXPECT_EQ(a.*field, b.*field);
  EXPECT_EQ(a.pricing_quantity, b.pricing_quantity);
  EXPECT_EQ(a.consumed_quantity, b.consumed_quantity);
  EXPECT_EQ(a.gpu_hours, b.gpu_hours);
  EXPECT_EQ(ledger::tagset_text(a.tags), ledger::tagset_text(b.tags));
}

void expect_same_rows(const Collected& csv, const Collected& parquet) {
  ASSERT_EQ(parquet.charges.size(), csv.charges.size());
  EXPECT_EQ(parquet.summary.records, csv.summary.records);
  EXPECT_EQ(parquet.summary.rejected, csv.summary.rejected);
  EXPECT_EQ(parquet.summary.rounded, csv.summary.rounded);
  EXPECT_EQ(parquet.summary.version, csv.summary.version);
  EXPECT_TRUE(parquet.summary.rows_numbered);
  for (std::size_t i = 0; i < csv.charges.size(); ++i) {
    EXPECT_EQ(parquet.charges[i].line, static_cast<std::int64_t>(i + 1));
    expect_same(csv.charges[i], parquet.charges[i], i);
  }
}

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
