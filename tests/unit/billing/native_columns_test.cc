// The native billing dialects (AWS CUR, Azure, GCP, OCI) column by column: Azure's header sets
// and values, CUR tags, GPU counts and line item types, OCI and GCP tags and credits, and a
// missing cost column.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "aicost/billing/reader.h"
#include "collected.h"
#include "ledger_test_support.h"

namespace aicost::billing {
namespace {

std::string sample(const std::string& rel) { return testing::samples_dir() + rel; }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string* tag(const ledger::Charge& c, const std::string& key) {
  for (const auto& t : c.tags)
    if (t.key == key) return &t.value;
  return nullptr;
}

// The six header dialects opencost collected (EA, MCA camelCase, pay-as-you-go, BOM, German,
// mixed).
TEST(AzureHeaders, EveryOpencostHeaderSetIsAzureAndAccepted) {
  for (const char* set : {"BOM", "Enterprise", "EnterpriseCamel", "German", "PayAsYouGo", "YA"}) {
    const auto text =
        slurp(sample(std::string("opencost/azure_billingexport_headersets_") + set + ".csv"));
    const auto header = text.substr(0, text.find('\n') + 1);
    EXPECT_EQ(detect_format(header), Format::kAzure) << set;
    Collected got;
    auto sink = got.sink();
    auto summary = read_text(header, set, Format::kAuto, sink);
    ASSERT_TRUE(summary) << set << ": " << summary.error().what();
    EXPECT_EQ(summary->format, Format::kAzure) << set;
  }
}

TEST(AzureHeaders, GermanHeadersAreReadByTheEnglishNameInParentheses) {
  Collected got;
  auto sink = got.sink();
  auto summary =
      read_file(sample("opencost/azure_billingexport_headersets_German.csv"), Format::kAuto, sink);
  ASSERT_TRUE(summary) << summary.error().what();
  ASSERT_EQ(got.charges.size(), 1u) << got.errors();
  const auto& c = got.charges[0];
  EXPECT_EQ(c.billed, 75'000'000);  // PreTaxCost (PreTaxCost) 0.075
  EXPECT_EQ(c.currency, "USD");
  EXPECT_EQ(c.sub_account_id,
            "11111111-12ab-34dc-56ef-123456abcdef");  // Abonnement-GUID (SubscriptionGuid)
  EXPECT_EQ(c.region_id, "US East");                  // Ressourcenstandort (ResourceLocation)
  EXPECT_EQ(c.resource_type, "Microsoft.Network/loadBalancers");
  EXPECT_EQ(c.pricing_unit, "100 Hours");  // Maßeinheit (UnitOfMeasure)
  EXPECT_EQ(c.period_end - c.period_start, 86400);
}

TEST(AzureHeaders, TheBomHeaderSetRowWithoutACostIsRejectedNamingTheColumn) {
  // The BOM header set carries a placeholder row with only a date: nothing to bill, so an error.
  Collected got;
  auto sink = got.sink();
  auto summary =
      read_file(sample("opencost/azure_billingexport_headersets_BOM.csv"), Format::kAuto, sink);
  ASSERT_TRUE(summary) << summary.error().what();
  EXPECT_EQ(summary->rejected, 1);
  EXPECT_NE(got.errors().find("PreTaxCost is null"), std::string::npos) << got.errors();
}

TEST(AzureValues, BracelessTagsAreReadAndNoted) {
  Collected got;
  auto sink = got.sink();
  ASSERT_TRUE(read_file(sample("opencost/azure_billingexport_values_MissingBrackets.csv"),
                        Format::kAuto, sink));
  ASSERT_EQ(got.charges.size(), 1u);
  const auto& c = got.charges[0];
  ASSERT_NE(tag(c, "creationSource"), nullptr);
  EXPECT_EQ(*tag(c, "creationSource"), "aks-aks-nodepool1-12345678-vmss");
  EXPECT_EQ(c.billed, 4'000'000'000);
  EXPECT_EQ(c.list, 5'000'000'000);  // paygcostinbillingcurrency
  EXPECT_EQ(c.currency, "XXX");
  bool noted = false;
  for (const auto& i : got.issues)
    noted |= i.column == "Tags" && i.message.find("outer braces") != std::string::npos;
  EXPECT_TRUE(noted);

  Collected ea;
  auto ea_sink = ea.sink();
  ASSERT_TRUE(read_file(sample("focus-converters/azure_ea_sample-anonymous-ea-export-dataset.csv"),
                        Format::kAuto, ea_sink));
  ASSERT_FALSE(ea.charges.empty());
  ASSERT_NE(tag(ea.charges[0], "tagB"), nullptr);
  EXPECT_EQ(*tag(ea.charges[0], "tagB"), "valueB");
  EXPECT_EQ(ea.charges[0].provider, "Microsoft");
  EXPECT_EQ(ea.charges[0].currency, "CAD");
}

TEST(AzureValues, AmortisedViewMapsCommitmentsAndListPrice) {
  Collected got;
  auto sink = got.sink();
  ASSERT_TRUE(read_file(sample("microsoft-finops-toolkit/EA_AmortizedCost_Small.csv"),
                        Format::kAuto, sink));
  ASSERT_GE(got.charges.size(), 2u);
  const auto& ri = got.charges[0];  // Reservation usage, 8 × 0.061644, PayGPrice 0
  EXPECT_EQ(ri.billed, 493'152'000);
  EXPECT_EQ(ri.effective, ri.billed);
  EXPECT_EQ(ri.list, ri.billed);  // a zero pay-as-you-go price says nothing
  EXPECT_EQ(ri.pricing_category, "Committed");
  EXPECT_EQ(ri.commitment_discount_status, "Used");
  EXPECT_NE(ri.commitment_discount_id.find("Microsoft.Capacity"), std::string::npos);
  const auto& sp = got.charges[1];  // SavingsPlan usage: PayGPrice 0.0416 × 0.32085564
  EXPECT_EQ(sp.list, 13'347'595);   // 0.013347594624 rounded to 1e-9
  EXPECT_EQ(sp.charge_category, "Usage");
  EXPECT_EQ(sp.charge_frequency, "Usage-Based");
  EXPECT_EQ(got.charges[2].pricing_category, "Standard");
}

TEST(AwsCur, ResourceTagColumnsBecomeTags) {
  const std::string csv =
      "identity/TimeInterval,lineItem/LineItemType,lineItem/UsageStartDate,lineItem/UsageEndDate,"
      "lineItem/UnblendedCost,lineItem/CurrencyCode,resourceTags/user:team,resourceTags/"
      "aws:createdBy,"
      "resourceTags/user:cost-center\n"
      "2024-01-01T00:00:00Z/"
      "2024-01-02T00:00:00Z,Usage,2024-01-01T00:00:00Z,2024-01-01T01:00:00Z,1.5,USD,ml,"
      "IAMUser:abc,\n";
  Collected got;
  auto sink = got.sink();
  auto summary = read_text(csv, "cur.csv", Format::kAuto, sink);
  ASSERT_TRUE(summary) << summary.error().what();
  EXPECT_EQ(summary->format, Format::kAwsCur);
  ASSERT_EQ(got.charges.size(), 1u) << got.errors();
  const auto& c = got.charges[0];
  ASSERT_EQ(c.tags.size(), 2u);  // the empty cost-center cell is no tag
  EXPECT_EQ(*tag(c, "team"), "ml");
  EXPECT_EQ(*tag(c, "aws:createdBy"), "IAMUser:abc");
  EXPECT_EQ(c.period_end - c.period_start, 3600);
}

// CUR 2.0 keeps the GPU count in the product map (key "gpu"), legacy CUR in product/gpu: the
// same instance-hours give the same GPU-hours. 2 h of a p5.48xlarge (8 GPUs) = 16 GPU-hours; the
// EBS row's map has a gpu key but is no instance-hour, the m5 row's map none.
TEST(AwsCur, Cur2ReadsTheGpuCountFromTheProductMap) {
  const std::string rows[][4] = {
      {"USE1-BoxUsage:p5.48xlarge", "2", "Hrs", "8"},
      {"USE1-EBS:VolumeUsage.gp3", "100", "GB-Mo", "8"},
      {"USE1-BoxUsage:m5.large", "1", "Hrs", ""},
  };
  std::string legacy =
      "lineItem/LineItemType,lineItem/UsageStartDate,lineItem/UnblendedCost,lineItem/CurrencyCode,"
      "lineItem/UsageType,lineItem/UsageAmount,pricing/unit,product/gpu\n";
  std::string cur2 =
      "line_item_line_item_type,line_item_usage_start_date,line_item_unblended_cost,line_item_"
      "currency_code,"
      "line_item_usage_type,line_item_usage_amount,pricing_unit,product\n";
  for (const auto& r : rows) {
    const std::string head =
        "Usage,2025-01-01T00:00:00Z,1,USD," + r[0] + "," + r[1] + "," + r[2] + ",";
    legacy += head + r[3] + "\n";
    cur2 += head + "\"{\"\"instance_type\"\":\"\"x\"\"" +
            (r[3].empty() ? "" : ",\"\"gpu\"\":\"\"" + r[3] + "\"\"") + "}\"\n";
  }
  const auto a = collect(legacy, Format::kAuto);
  const auto b = collect(cur2, Format::kAuto);
  ASSERT_EQ(a.charges.size(), 3u) << a.errors();
  ASSERT_EQ(b.charges.size(), 3u) << b.errors();
  EXPECT_EQ(b.summary.format, Format::kAwsCur);
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_DOUBLE_EQ(b.charges[i].gpu_hours, a.charges[i].gpu_hours) << i;
  EXPECT_DOUBLE_EQ(b.charges[0].gpu_hours, 16.0);
  EXPECT_DOUBLE_EQ(b.charges[1].gpu_hours, 0.0);
  EXPECT_DOUBLE_EQ(b.charges[2].gpu_hours, 0.0);
}

TEST(AwsCur, LineItemTypesMapToFocusAndEffectiveCost) {
  const std::string csv =
      "lineItem/LineItemType,lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/UnblendedCost,"
      "lineItem/NetUnblendedCost,lineItem/CurrencyCode,reservation/EffectiveCost,reservation/"
      "ReservationARN,"
      "savingsPlan/SavingsPlanEffectiveCost,savingsPlan/SavingsPlanARN,pricing/publicOnDemandCost,"
      "lineItem/UsageType,lineItem/UsageAmount,pricing/unit,product/gpu\n"
      "DiscountedUsage,2024-01-01T00:00:00Z,2024-01-01T01:00:00Z,0,,USD,20.5,arn:ri,,,32.77,USE1-"
      "BoxUsage:p4d.24xlarge,2,Hrs,8\n"
      "SavingsPlanCoveredUsage,2024-01-01T00:00:00Z,2024-01-01T01:00:00Z,10,,USD,,,6.25,arn:sp,10,"
      "USE1-BoxUsage:m5.large,1,Hrs,\n"
      "SavingsPlanNegation,2024-01-01T00:00:00Z,2024-01-01T01:00:00Z,-10,,USD,,,,arn:sp,,,,,\n"
      "Tax,2024-01-01T00:00:00Z,2024-02-01T00:00:00Z,3,,USD,,,,,,,,,\n"
      "Credit,2024-01-01T00:00:00Z,2024-02-01T00:00:00Z,-4,,USD,,,,,,,,,\n"
      "Usage,2024-01-01T00:00:00Z,2024-01-01T01:00:00Z,5,4.5,USD,,,,,,USE1-SpotUsage:g5.xlarge,1,"
      "Hrs,1\n";
  Collected got;
  auto sink = got.sink();
  auto summary = read_text(csv, "cur.csv", Format::kAwsCur, sink);
  ASSERT_TRUE(summary) << summary.error().what();
  ASSERT_EQ(got.charges.size(), 6u) << got.errors();
  const auto& ri = got.charges[0];
  EXPECT_EQ(ri.charge_category, "Usage");
  EXPECT_EQ(ri.effective, 20'500'000'000);
  EXPECT_EQ(ri.list, 32'770'000'000);
  EXPECT_EQ(ri.pricing_category, "Committed");
  EXPECT_EQ(ri.commitment_discount_id, "arn:ri");
  EXPECT_EQ(ri.commitment_discount_status, "Used");
  EXPECT_DOUBLE_EQ(ri.gpu_hours, 16.0);
  EXPECT_EQ(got.charges[1].effective, 6'250'000'000);
  EXPECT_EQ(got.charges[1].commitment_discount_id, "arn:sp");
  EXPECT_DOUBLE_EQ(got.charges[1].gpu_hours, 0.0);
  EXPECT_EQ(got.charges[2].effective, 0);
  EXPECT_EQ(got.charges[2].charge_category, "Adjustment");
  EXPECT_EQ(got.charges[3].charge_category, "Tax");
  EXPECT_EQ(got.charges[4].charge_category, "Credit");
  const auto& spot = got.charges[5];
  EXPECT_EQ(spot.billed, 4'500'000'000);  // NetUnblendedCost when present
  EXPECT_EQ(spot.effective, spot.billed);
  EXPECT_EQ(spot.list, spot.billed);
  EXPECT_EQ(spot.pricing_category, "Dynamic");
  EXPECT_DOUBLE_EQ(spot.gpu_hours, 1.0);
}

TEST(Oci, TagColumnsBecomeNamespacedTags) {
  Collected got;
  auto sink = got.sink();
  ASSERT_TRUE(read_file(sample("focus-converters/oci_reports_cost-csv_0000000030000269.csv"),
                        Format::kAuto, sink));
  ASSERT_FALSE(got.charges.empty());
  const auto& c = got.charges[0];
  ASSERT_NE(tag(c, "Oracle-Tags.CreatedBy"), nullptr);
  EXPECT_EQ(*tag(c, "Oracle-Tags.CreatedBy"), "default/phil.newman@oracle.com");
  EXPECT_EQ(*tag(c, "Valtest.Cat"), "boots");
  EXPECT_EQ(c.provider, "Oracle");
  EXPECT_EQ(c.service_name, "DATABASE");
  EXPECT_EQ(c.region_id, "us-sanjose-1");
  EXPECT_EQ(c.period_end - c.period_start, 3600);
  EXPECT_TRUE(got.charges[1].tags.empty());
}

TEST(Gcp, CreditsAndLabels) {
  Collected got;
  auto sink = got.sink();
  ASSERT_TRUE(read_file(sample("koku/gcp_billing_export_202011_2020-11-08_2020-11-11.csv"),
                        Format::kAuto, sink));
  ASSERT_FALSE(got.charges.empty());
  const auto& c = got.charges[0];
  EXPECT_EQ(c.billed, 5'000);  // 5e-06
  EXPECT_EQ(c.effective, 0);   // cost + FreeTrial credit of -5e-06
  EXPECT_EQ(c.provider, "Google Cloud");
  EXPECT_EQ(c.service_name, "Security Command Center");
  EXPECT_EQ(c.sub_account_id, "billing-example-00000");
  bool labelled = false;
  for (const auto& ch : got.charges)
    if (const auto* v = tag(ch, "goog-resource-type")) labelled |= v->rfind("bigquery_", 0) == 0;
  EXPECT_TRUE(labelled);

  const std::string json_labels =
      "billing_account_id,service.description,sku.description,usage_start_time,usage_end_time,cost,"
      "currency,"
      "credits,labels,usage.amount_in_pricing_units,usage.pricing_unit\n"
      "A,Compute Engine,Nvidia Tesla A100 GPU running in "
      "Americas,2024-01-01T00:00:00Z,2024-01-01T01:00:00Z,2.93,USD,"
      "\"[{\"\"name\"\": \"\"CUD\"\", \"\"amount\"\": -1.5}]\",\"[{\"\"key\"\": \"\"team\"\", "
      "\"\"value\"\": \"\"ml\"\"}]\",2,hour\n";
  Collected gpu;
  auto gpu_sink = gpu.sink();
  auto summary = read_text(json_labels, "gcp.csv", Format::kAuto, gpu_sink);
  ASSERT_TRUE(summary) << summary.error().what();
  ASSERT_EQ(gpu.charges.size(), 1u) << gpu.errors();
  EXPECT_EQ(gpu.charges[0].effective, 1'430'000'000);
  EXPECT_EQ(*tag(gpu.charges[0], "team"), "ml");
  EXPECT_DOUBLE_EQ(gpu.charges[0].gpu_hours, 2.0);
}

TEST(NativeHeaders, AMissingCostColumnIsAClearError) {
  struct Case {
    const char* header;
    Format format;
    const char* names;
  };
  for (const auto& k : {
           Case{"lineItem/LineItemType,lineItem/UsageStartDate,lineItem/CurrencyCode\n",
                Format::kAuto, "lineItem/UnblendedCost"},
           Case{"SubscriptionId,Date,MeterCategory,BillingCurrencyCode\n", Format::kAuto,
                "CostInBillingCurrency"},
           Case{"SubscriptionId,MeterCategory,CostInBillingCurrency\n", Format::kAuto, "Date"},
           Case{"usage_start_time,service.description,currency\n", Format::kAuto, "cost"},
           Case{"lineItem/intervalUsageStart,cost/currencyCode\n", Format::kOci, "cost/myCost"},
       }) {
    Collected got;
    auto sink = got.sink();
    auto summary = read_text(k.header, "x.csv", k.format, sink);
    ASSERT_FALSE(summary) << k.header;
    EXPECT_EQ(summary.error().code, core::ErrorCode::kInvalidInput);
    EXPECT_NE(summary.error().what().find(k.names), std::string::npos) << summary.error().what();
  }
}

}  // namespace
}  // namespace aicost::billing
