// Cell and header rules shared by the dialects (src/billing/cells.cc, dialect.cc): currency codes,
// duplicated columns, values out of range.
#include <gtest/gtest.h>

#include <string>

#include "aicost/billing/reader.h"
#include "collected.h"

namespace aicost::billing {
namespace {

using Severity = ledger::RowIssue::Severity;

Collected read(const std::string& text, Format format) { return collect(text, format); }

// --- currencies ----------------------------------------------------------------------------------

TEST(Currency, LowerCaseIsTheSameCurrency) {
  auto c = read(
      "BilledCost,ChargePeriodStart,BillingCurrency\n"
      "1,2024-09-01T00:00:00Z,usd\n2,2024-09-01T00:00:00Z,USD\n3,2024-09-01T00:00:00Z, Usd \n",
      Format::kFocus);
  ASSERT_EQ(c.charges.size(), 3u);
  for (const auto& ch : c.charges) EXPECT_EQ(ch.currency, "USD");
  EXPECT_TRUE(c.has_issue("BillingCurrency", "stored as USD"));
}

TEST(Currency, EveryDialectNormalises) {
  auto aws = read(
      "lineItem/UsageStartDate,lineItem/UnblendedCost,lineItem/"
      "CurrencyCode\n2024-09-01T00:00:00Z,1,eur\n",
      Format::kAwsCur);
  ASSERT_EQ(aws.charges.size(), 1u);
  EXPECT_EQ(aws.charges[0].currency, "EUR");
  auto gcp = read("usage_start_time,cost,currency\n2024-09-01T00:00:00Z,1,jpy\n", Format::kGcp);
  ASSERT_EQ(gcp.charges.size(), 1u);
  EXPECT_EQ(gcp.charges[0].currency, "JPY");
}

TEST(Currency, CodesIso4217DoesNotListAreWarned) {
  auto c = read(
      "BilledCost,ChargePeriodStart,BillingCurrency\n"
      "1,2024-09-01T00:00:00Z,ABC\n2,2024-09-01T00:00:00Z,ABC\n3,2024-09-01T00:00:00Z,US$\n"
      "4,2024-09-01T00:00:00Z,CHF\n5,2024-09-01T00:00:00Z,XXX\n",
      Format::kFocus);
  ASSERT_EQ(c.charges.size(), 5u);
  EXPECT_EQ(c.charges[0].currency, "ABC");  // kept: the money is not lost, the warning says why
  EXPECT_TRUE(c.has_issue("BillingCurrency",
                          "'ABC' is not an ISO 4217 currency code; stored as written (2 rows"));
  EXPECT_TRUE(c.has_issue("BillingCurrency", "'US$' is not an ISO 4217 currency code"));
  EXPECT_FALSE(c.has_issue("BillingCurrency", "'CHF'"));
  EXPECT_FALSE(c.has_issue("BillingCurrency", "'XXX'"));
}

// --- duplicated columns
// ----------------------------------------------------------------------------

TEST(DuplicateColumns, ADuplicatedColumnADialectReadsIsAnErrorNamingBothPositions) {
  const auto m = refusal("BilledCost,ChargePeriodStart,BilledCost\n1,2024-09-01T00:00:00Z,2\n",
                         Format::kFocus);
  EXPECT_NE(m.find("t.csv:1: column 'BilledCost' appears 2 times (columns 1 and 3)"),
            std::string::npos)
      << m;
}

TEST(DuplicateColumns, CaseDoesNotMakeADifferentColumn) {
  const auto m = refusal(
      "lineItem/UsageStartDate,lineItem/UnblendedCost,lineitem/"
      "unblendedcost\n2024-09-01T00:00:00Z,1,2\n",
      Format::kAwsCur);
  EXPECT_NE(m.find("(columns 2 and 3)"), std::string::npos) << m;
}

TEST(DuplicateColumns, DuplicatedTagColumnsAreRead) {
  const auto m = refusal(
      "lineItem/UsageStartDate,lineItem/UnblendedCost,resourceTags/user:team,resourceTags/"
      "user:team\n"
      "2024-09-01T00:00:00Z,1,a,b\n",
      Format::kAwsCur);
  EXPECT_NE(m.find("(columns 3 and 4)"), std::string::npos) << m;
}

TEST(DuplicateColumns, ADuplicatedColumnNobodyReadsIsAWarning) {
  auto c = read("BilledCost,ChargePeriodStart,x_Note,x_Note,x_Note\n1,2024-09-01T00:00:00Z,a,b,c\n",
                Format::kFocus);
  EXPECT_EQ(c.summary.loaded, 1);
  EXPECT_TRUE(c.has_issue("x_Note", "appears 3 times (columns 3, 4 and 5); it is not read"));
}

// A header of thousands of junk names: the first 50 named (with a did-you-mean each), the rest
// counted in one note, so the header costs neither an edit distance per name nor an issue each.
TEST(UnknownColumns, ManyAreCountedNotEachNamed) {
  std::string header = "BilledCost,ChargePeriodStart";
  for (int i = 0; i < 5000; ++i) header += ",Colum" + std::to_string(i);
  auto c = read(header + "\n1,2024-09-01T00:00:00Z\n", Format::kFocus);
  EXPECT_EQ(c.summary.loaded, 1);
  EXPECT_LT(c.issues.size(), 60u);
  EXPECT_TRUE(c.has_issue("", "4950 more columns are not FOCUS"));
}

// --- out of range
// ------------------------------------------------------------------------------------

TEST(OutOfRange, AnAmountAboveWhatOneValueHoldsSaysSo) {
  auto c = read(
      "BilledCost,ChargePeriodStart\n9.3e9,2024-09-01T00:00:00Z\n9300000000,2024-09-01T00:00:00Z\n"
      "1.2.3,2024-09-01T00:00:00Z\n",
      Format::kFocus);
  EXPECT_EQ(c.summary.rejected, 3);
  EXPECT_TRUE(c.has_issue("BilledCost", "'9.3e9' is out of range (max ±9223372036.854775807"))
      << c.errors();
  EXPECT_TRUE(c.has_issue("BilledCost", "'9300000000' is out of range (max ±9223372036.854775807"))
      << c.errors();
  EXPECT_TRUE(c.has_issue("BilledCost", "'1.2.3' is not a decimal number")) << c.errors();
}

TEST(OutOfRange, OtherCostsSayItToo) {
  auto c = read("BilledCost,ChargePeriodStart,EffectiveCost\n1,2024-09-01T00:00:00Z,-1e10\n",
                Format::kFocus);
  EXPECT_EQ(c.summary.loaded, 1);
  EXPECT_TRUE(c.has_issue("EffectiveCost", "out of range (max ±9223372036.854775807"))
      << c.errors();
}

TEST(OutOfRange, DatesFrom2262SaySo) {
  auto c = read(
      "BilledCost,ChargePeriodStart,ChargePeriodEnd\n"
      "1,2262-04-12T00:00:00Z,2262-04-13T00:00:00Z\n"
      "1,2024-09-01T00:00:00Z,2262-04-13T00:00:00Z\n"
      "1,1899-12-31T00:00:00Z,\n"
      "1,2024-13-01T00:00:00Z,\n",
      Format::kFocus);
  EXPECT_TRUE(c.has_issue("ChargePeriodStart",
                          "'2262-04-12T00:00:00Z' is out of range (max 2200-12-31T23:59:59Z)"))
      << c.errors();
  EXPECT_TRUE(c.has_issue("ChargePeriodEnd",
                          "'2262-04-13T00:00:00Z' is out of range (max 2200-12-31T23:59:59Z)"));
  EXPECT_TRUE(c.has_issue("ChargePeriodStart", "out of range (min 1900-01-01T00:00:00Z)"));
  EXPECT_TRUE(c.has_issue("ChargePeriodStart", "'2024-13-01T00:00:00Z' is not a date-time"));
}

TEST(OutOfRange, NativeDialectsSayItToo) {
  auto aws = read(
      "lineItem/UsageStartDate,lineItem/"
      "UnblendedCost\n2262-04-12T00:00:00Z,1\n2024-09-01T00:00:00Z,1e10\n",
      Format::kAwsCur);
  EXPECT_TRUE(aws.has_issue("lineItem/UsageStartDate", "out of range (max 2200-12-31T23:59:59Z)"))
      << aws.errors();
  EXPECT_TRUE(aws.has_issue("lineItem/UnblendedCost", "out of range (max ±9223372036.854775807"))
      << aws.errors();
  auto azure = read("Date,CostInBillingCurrency\n4/12/2262,1\n", Format::kAzure);
  EXPECT_TRUE(azure.has_issue("Date", "out of range (max 2200-12-31T23:59:59Z)")) << azure.errors();
  auto dcgm = read("metric,gpu,value,timestamp\nDCGM_FI_DEV_GPU_UTIL,0,5,9300000000000000\n",
                   Format::kDcgmCsv);
  EXPECT_TRUE(dcgm.has_issue("timestamp", "out of range (max 2200-12-31T23:59:59Z)"))
      << dcgm.errors();
}

// Each value fits, their sum does not: EffectiveCost falls back to the cost rather than wrapping.
TEST(OutOfRange, SumsOfValuesDoNotWrap) {
  auto gcp = read(
      "usage_start_time,cost,credits\n"
      "2024-09-01T00:00:00Z,-9000000000,\"[{'amount': -9000000000}]\"\n"
      "2024-09-01T00:00:00Z,1,\"[{'amount': 9000000000}, {'amount': 9000000000}]\"\n",
      Format::kGcp);
  ASSERT_EQ(gcp.charges.size(), 2u) << gcp.errors();
  EXPECT_EQ(gcp.charges[0].effective, gcp.charges[0].billed);
  EXPECT_EQ(gcp.charges[1].effective, gcp.charges[1].billed);
  auto aws = read(
      "lineItem/UsageStartDate,lineItem/UnblendedCost,lineItem/LineItemType,"
      "savingsPlan/TotalCommitmentToDate,savingsPlan/UsedCommitment\n"
      "2024-09-01T00:00:00Z,5,SavingsPlanRecurringFee,9000000000,-9000000000\n",
      Format::kAwsCur);
  ASSERT_EQ(aws.charges.size(), 1u) << aws.errors();
  EXPECT_EQ(aws.charges[0].effective, aws.charges[0].billed);
}

}  // namespace
}  // namespace aicost::billing
