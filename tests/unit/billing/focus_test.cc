// The FOCUS reader on the real sample and the specification's worked examples, one test per
// quirk that real exports have (../shared/reference/finops.md §1.6).
#include <gtest/gtest.h>

#include <filesystem>

#include "aicost/billing/reader.h"
#include "collected.h"
#include "ledger_test_support.h"

namespace aicost::billing {
namespace {

using testing::samples_dir;

Collected read(const std::string& path) {
  Collected c;
  auto s = read_file(path, Format::kAuto, c.sink());
  EXPECT_TRUE(s) << (s ? "" : s.error().what());
  if (s) c.summary = *s;
  return c;
}

Collected read_string(const std::string& text) {
  Collected c;
  auto s = read_text(text, "test.csv", Format::kFocus, c.sink());
  EXPECT_TRUE(s) << (s ? "" : s.error().what());
  if (s) c.summary = *s;
  return c;
}

const std::string kSample = samples_dir() + "focus-sample-data/focus_sample.csv";

TEST(FocusReader, SampleLoadsEveryRow) {
  const auto c = read(kSample);
  EXPECT_EQ(c.summary.format, Format::kFocus);
  EXPECT_EQ(c.summary.version, "focus-1.0");
  EXPECT_EQ(c.summary.records, 1000);
  EXPECT_EQ(c.summary.loaded, 1000);
  EXPECT_EQ(c.summary.rejected, 0);
  ASSERT_EQ(c.charges.size(), 1000u);
  // Line numbers point into the file: the first data row is line 2.
  EXPECT_EQ(c.charges.front().line, 2);
  EXPECT_EQ(c.charges.back().line, 1001);
}

TEST(FocusReader, QuirkLiteralNullIsNull) {
  const auto c = read(kSample);
  const auto& first = c.charges.front();  // AvailabilityZone, ChargeClass... are the text NULL
  EXPECT_EQ(first.charge_class, "");
  EXPECT_EQ(first.resource_name, "");
  EXPECT_TRUE(first.tags.empty());
}

TEST(FocusReader, QuirkDatesWithoutTAndZAreReadAsUtcAndReported) {
  const auto c = read(kSample);
  // "2024-09-18 22:00:00" -> 2024-09-18T22:00:00Z
  EXPECT_EQ(c.charges.front().period_start, 1726696800);
  EXPECT_EQ(c.charges.front().period_end - c.charges.front().period_start, 3600);
  EXPECT_TRUE(c.has_issue("ChargePeriodStart", "without T and Z"));
  EXPECT_TRUE(c.has_issue("ChargePeriodStart", "1000 rows"));  // one summary, not 1000 lines
}

TEST(FocusReader, QuirkQuotedNumbersAreNumbers) {
  const auto c = read(kSample);
  // BilledCost 0.00000080000 (unquoted) and ListUnitPrice "0.0000004" (quoted) both read exactly.
  EXPECT_EQ(c.charges.front().billed, 800);
  EXPECT_EQ(c.charges.front().list, 800);
}

TEST(FocusReader, QuirkExtraIdColumnIsNamedAndIgnored) {
  const auto c = read(kSample);
  EXPECT_TRUE(c.has_issue("Id", "not a FOCUS 1.0 column and has no x_ prefix"));
}

TEST(FocusReader, QuirkTagsAreJson) {
  const auto c = read(kSample);
  const auto& second = c.charges[1];
  ASSERT_EQ(second.tags.size(), 3u);
  EXPECT_EQ(second.tags[0].key, "application");
  EXPECT_EQ(second.tags[0].value, "BrightLensMatrix");
  std::size_t tagged = 0;
  for (const auto& ch : c.charges) tagged += !ch.tags.empty();
  EXPECT_EQ(tagged, 711u);  // as the sample's README counts
}

TEST(FocusReader, QuirkNullContractedCostIsKeptNullAndReported) {
  const auto c = read(kSample);
  std::size_t null_contracted = 0;
  for (const auto& ch : c.charges) null_contracted += !ch.contracted.has_value();
  EXPECT_EQ(null_contracted, 7u);  // FOCUS-Sample-Data issue #2: ContractedCost null in 7 rows
  EXPECT_TRUE(c.has_issue("ContractedCost", "7 rows"));
}

TEST(FocusReader, CommitmentExamplesKeepBilledAndEffectiveApart) {
  // The spec's worked examples: a commitment's usage is billed 0 and amortised at its share.
  const auto usage =
      read(samples_dir() + "focus-spec-examples/commitment_discount_usage_scenario_3.csv");
  ASSERT_EQ(usage.charges.size(), 2u);
  EXPECT_EQ(usage.charges[0].billed, 0);
  EXPECT_EQ(usage.charges[0].effective, 750'000'000);
  EXPECT_EQ(usage.charges[1].commitment_discount_status, "Unused");
  EXPECT_EQ(usage.charges[1].effective, 250'000'000);
  EXPECT_TRUE(usage.has_issue("BillingCurrency", "XXX"));  // the examples have no currency column
  EXPECT_EQ(usage.charges[0].currency, "XXX");
  const auto purchase =
      read(samples_dir() + "focus-spec-examples/commitment_discount_purchase_scenario_2.csv");
  ASSERT_EQ(purchase.charges.size(), 3u);
  EXPECT_EQ(purchase.charges[0].billed, 1'000'000'000);
  EXPECT_EQ(purchase.charges[0].effective, 0);
  // "2023-02-01T30:00:00Z" (hour 30) in the example is not a time: reported, not guessed.
  EXPECT_TRUE(purchase.has_issue("ChargePeriodEnd", "T30:00:00Z"));
}

TEST(FocusReader, EverySpecExampleLoads) {
  for (const auto& entry :
       std::filesystem::directory_iterator(samples_dir() + "focus-spec-examples")) {
    if (entry.path().extension() != ".csv") continue;
    const auto c = read(entry.path().string());
    EXPECT_EQ(c.summary.rejected, 0) << entry.path();
    EXPECT_GT(c.summary.loaded, 0) << entry.path();
  }
}

TEST(FocusReader, VersionFollowsTheColumns) {
  EXPECT_EQ(
      read(samples_dir() + "focus-spec-examples/saas_spend_agreements_b2.csv").summary.version,
      "focus-1.1");
  EXPECT_EQ(read(samples_dir() + "focus-spec-examples/virtual_currency_pricing_model_a1.csv")
                .summary.version,
            "focus-1.2");
}

TEST(FocusReader, BadRowsAreReportedWithLineAndColumnAndTheRestLoads) {
  const auto c = read_string(
      "ChargePeriodStart,BilledCost,EffectiveCost,BillingCurrency,Tags\n"
      "2024-09-01T00:00:00Z,1.5,1.5,USD,\n"
      "yesterday,2,2,USD,\n"
      "2024-09-01T00:00:00Z,12 USD,1,USD,\n"
      "2024-09-01T00:00:00Z,NULL,1,USD,\n"
      "2024-09-01T00:00:00Z,3,oops,EUR,{not json}\n");
  EXPECT_EQ(c.summary.records, 5);
  EXPECT_EQ(c.summary.loaded, 2);
  EXPECT_EQ(c.summary.rejected, 3);
  EXPECT_TRUE(c.has_issue("ChargePeriodStart", "'yesterday' is not a date-time"));
  EXPECT_TRUE(c.has_issue("BilledCost", "'12 USD' is not a decimal number"));
  EXPECT_TRUE(c.has_issue("BilledCost", "BilledCost is null"));
  EXPECT_TRUE(c.has_issue("EffectiveCost", "taken as BilledCost"));
  EXPECT_TRUE(c.has_issue("Tags", "not a JSON object"));
  for (const auto& i : c.issues)
    if (i.column == "BilledCost") {
      EXPECT_TRUE(i.line == 4 || i.line == 5) << i.line;
    }
  ASSERT_EQ(c.charges.size(), 2u);
  EXPECT_EQ(c.charges[1].effective, 3'000'000'000);
  EXPECT_EQ(c.charges[1].currency, "EUR");
}

TEST(FocusReader, MultiLineQuotedFieldsKeepLineNumbers) {
  const auto c = read_string(
      "ChargePeriodStart,BilledCost,ChargeDescription\n"
      "2024-09-01T00:00:00Z,1,\"two\nlines\"\n"
      "2024-09-01T00:00:00Z,bad,x\n");
  ASSERT_EQ(c.charges.size(), 1u);
  EXPECT_EQ(c.charges[0].charge_description, "two\nlines");
  EXPECT_TRUE(c.has_issue("BilledCost", "'bad'"));
  for (const auto& i : c.issues)
    if (i.column == "BilledCost") {
      EXPECT_EQ(i.line, 4);
    }
}

TEST(FocusReader, MissingRequiredColumnIsAFileError) {
  Collected c;
  auto s = read_text("ChargePeriodStart,Cost\n2024-09-01,1\n", "x.csv", Format::kFocus, c.sink());
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("BilledCost"), std::string::npos);
  EXPECT_NE(s.error().what().find("x.csv:1"), std::string::npos);
}

TEST(FocusReader, UnterminatedQuoteIsAParseErrorNotATruncatedLoad) {
  Collected c;
  auto s = read_text("ChargePeriodStart,BilledCost\n2024-09-01,\"1\n", "x.csv", Format::kFocus,
                     c.sink());
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, core::ErrorCode::kParse);
}

TEST(FocusReader, GpuHoursFromSkuPriceDetails) {
  const auto c = read_string(
      "ChargePeriodStart,BilledCost,ConsumedQuantity,ConsumedUnit,SkuPriceDetails\n"
      "2025-01-01T00:00:00Z,98.32,1,Hours,\"{\"\"GpuCount\"\": 8, \"\"InstanceType\"\": "
      "\"\"p5.48xlarge\"\"}\"\n");
  ASSERT_EQ(c.charges.size(), 1u);
  EXPECT_DOUBLE_EQ(c.charges[0].gpu_hours, 8.0);
}

TEST(FocusReader, DetectsFormatFromTheHeader) {
  EXPECT_EQ(detect_format("\xEF\xBB\xBF\"BilledCost\",\"ChargePeriodStart\"\n"), Format::kFocus);
  EXPECT_EQ(detect_format("hello,world\n"), Format::kAuto);
}

}  // namespace
}  // namespace aicost::billing
