// Every billing sample that is usage or cost data ingests (issue 18), with the rows, rejected rows
// and BilledCost per currency that tests/data/samples_expected.py computes apart from aicost's
// readers (Python's csv module and exact decimals; its docstring gives the rule of each format).
// The walk covers every file of ../shared/data/billing-samples/: each is either in kIngests or in
// kNotCostData with the reason, so a sample added there without either fails here. The repo's
// own copies (tests/data/, examples/) of the formats the shared folder lacks are in kIngests too.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "aicost/billing/ingest.h"
#include "aicost/config/catalog_loader.h"
#include "aicost/config/rate_card.h"
#include "aicost/store/open.h"
#include "ledger_test_support.h"
#include "temp_dir.h"

namespace aicost::billing {
namespace {

// The card samples_expected.py prices usage with (RATES there).
const char* kRates =
    "gpus: {h100: 2.10USD/h, a100: 1.29USD/h}\n"
    "untyped: 1.29USD/h\n"
    "cpu: 0.031611USD/core-hour\n"
    "memory: 0.004237USD/GiB-hour\n"
    "storage: 0.04USD/GiB-month\n";

struct Expected {
  const char* where;  // "shared": ../shared/data/billing-samples/; "repo": this checkout
  const char* path;
  std::int64_t loaded, rejected;
  const char* billed;  // "USD=1.5,EUR=2" (BilledCost per currency, rounded to the nano-unit)
};

// python3 tests/data/samples_expected.py
constexpr Expected kIngests[] = {
    {"shared", "focus-sample-data/focus_sample.csv", 1000, 0, "USD=20.520226729"},
    {"shared", "focus-spec-examples/commitment_discount_purchase_scenario_1.csv", 1, 0,
     "XXX=8760.000000000"},
    {"shared", "focus-spec-examples/commitment_discount_purchase_scenario_2.csv", 3, 0,
     "XXX=3.000000000"},
    {"shared", "focus-spec-examples/commitment_discount_purchase_scenario_3.csv", 4, 0,
     "XXX=4381.500000000"},
    {"shared", "focus-spec-examples/commitment_discount_usage_scenario_1.csv", 1, 0,
     "XXX=0.000000000"},
    {"shared", "focus-spec-examples/commitment_discount_usage_scenario_2.csv", 1, 0,
     "XXX=0.000000000"},
    {"shared", "focus-spec-examples/commitment_discount_usage_scenario_3.csv", 2, 0,
     "XXX=0.000000000"},
    {"shared", "focus-spec-examples/commitment_discount_usage_scenario_4.csv", 2, 0,
     "XXX=0.500000000"},
    {"shared",
     "focus-spec-examples/"
     "one_hundred_percent_utilization_with_commitment_discount_flexibility_with_1_resource.csv",
     3, 0, "XXX=2.750000000"},
    {"shared",
     "focus-spec-examples/"
     "one_hundred_percent_utilization_with_commitment_discount_flexibility_with_2_resources.csv",
     3, 0, "XXX=2.000000000"},
    {"shared",
     "focus-spec-examples/"
     "one_hundred_percent_utilization_without_commitment_discount_flexibility.csv",
     2, 0, "XXX=1.500000000"},
    {"shared", "focus-spec-examples/saas_spend_agreements_b2.csv", 14, 0, "USD=1200.000000000"},
    {"shared", "focus-spec-examples/virtual_currency_pricing_model_a1.csv", 1, 0,
     "USD=200000.000000000"},
    {"shared",
     "focus-spec-examples/zero_percent_utilization_without_commitment_discount_flexibility.csv", 3,
     0, "XXX=3.500000000"},
    {"shared", "focus-converters/aws_cur_legacy_sample-anonymous-aws-export-dataset.csv", 1281, 0,
     "USD=1.682308697"},
    {"shared", "koku/aws_test_cur.csv", 19, 0, "USD=0.082749984"},
    {"shared", "focus-converters/azure_ea_sample-anonymous-ea-export-dataset.csv", 27, 0,
     "CAD=1.261369265"},
    {"shared", "koku/azure_costreport_legacy.csv", 3, 0, "USD=0.000110160"},
    {"shared", "koku/azure_version_2.csv", 5, 0, "MC=19.998413754"},
    {"shared", "microsoft-finops-toolkit/EA_ActualCost_Small.csv", 11, 0, "USD=8.545007787"},
    {"shared", "microsoft-finops-toolkit/EA_AmortizedCost_Small.csv", 28, 0, "USD=16.296932137"},
    {"shared", "opencost/azure_billingexport_headersets_BOM.csv", 0, 1, ""},
    {"shared", "opencost/azure_billingexport_headersets_Enterprise.csv", 1, 0, "CAD=0.000000000"},
    {"shared", "opencost/azure_billingexport_headersets_EnterpriseCamel.csv", 1, 0,
     "USD=0.012000000"},
    {"shared", "opencost/azure_billingexport_headersets_German.csv", 1, 0, "USD=0.075000000"},
    {"shared", "opencost/azure_billingexport_headersets_PayAsYouGo.csv", 1, 0, "USD=0.075000000"},
    {"shared", "opencost/azure_billingexport_headersets_YA.csv", 1, 0, "USD=0.075000000"},
    {"shared", "opencost/azure_billingexport_values_MissingBrackets.csv", 1, 0, "XXX=4.000000000"},
    {"shared", "opencost/azure_billingexport_values_Template.csv", 87, 0, "XXX=16.393506212"},
    {"shared", "opencost/azure_billingexport_values_VirtualMachine.csv", 1, 0, "XXX=4.000000000"},
    {"shared", "koku/gcp_billing_export_202011_2020-11-08_2020-11-11.csv", 25, 0,
     "USD=0.000032000"},
    {"shared", "koku/gcp_billing_export_2022-08-01_5.csv", 9, 0, "USD=0.000012000"},
    {"shared", "focus-converters/oci_reports_cost-csv_0000000030000269.csv", 506, 0,
     "USD=2.523589325"},
    {"shared", "koku/ocp_pod_usage_February-2019-my-ocp-cluster-1.csv", 960, 0, "USD=77.007116247"},
    {"shared", "koku/ocp_storage_usage.csv", 381, 0, "USD=0.375095950"},
    {"shared", "datadog-dcgm-fixture/dcgm_exporter_metrics_fixture.csv", 9, 0, ""},
    {"repo", "tests/data/ocp/pod_usage.csv", 960, 0, "USD=77.007116247"},
    {"repo", "tests/data/ocp/storage_usage.csv", 381, 0, "USD=0.375095950"},
    {"repo", "tests/data/opencost/export.csv", 1, 0, "USD=4.600000000"},
    {"repo", "examples/usage/opencost-2025-06.csv", 168, 0, "USD=13392.838872000"},
    {"repo", "examples/usage/sacct-atlas-2025-06.txt", 240, 0, "USD=32673.222000000"},
    {"repo", "examples/ledger/focus-ai-lab-2025-06.csv", 74, 0, "USD=136213.396669000"},
};

// The files of the shared folder that are not usage or cost data, and what they are.
const std::map<std::string, std::string> kNotCostData = {
    {"README.md", "the folder's own description"},
    {"focus-converters/aws_category_mapping.csv",
     "a lookup table (product code to ServiceCategory)"},
    {"focus-converters/azure_category_mapping.csv",
     "a lookup table (ConsumedService to ServiceCategory)"},
    {"focus-converters/gcp_category_mapping.csv",
     "a lookup table (ConsumedService to ServiceCategory)"},
    {"focus-converters/conversion_rules_aws-cur.csv",
     "column mapping rules, native export to FOCUS"},
    {"focus-converters/conversion_rules_azure.csv", "column mapping rules, native export to FOCUS"},
    {"focus-converters/conversion_rules_gcp.csv", "column mapping rules, native export to FOCUS"},
    {"focus-converters/conversion_rules_oci.csv", "column mapping rules, native export to FOCUS"},
    {"focus-validator/model-1.2.json", "FOCUS 1.2 conformance rules (read by focus_rules)"},
    {"focus-validator/multiple_failure_examples.csv",
     "two FOCUS 0.5-era columns (ChargeType, InvoiceIssuer), no cost"},
    {"focus-validator/sample.parquet",
     "three FOCUS 0.5-era columns (InvoiceIssuer, ResourceID, ChargeType), no cost"},
    {"microsoft-finops-toolkit/FocusCost_1.0.json", "FOCUS metadata (column list), no rows"},
    {"microsoft-finops-toolkit/FocusCost_1.2-preview.json",
     "FOCUS metadata (column list), no rows"},
    {"microsoft-finops-toolkit/PricingUnits.csv", "a lookup table of Azure units"},
    {"microsoft-finops-toolkit/Regions.csv", "a lookup table of Azure regions"},
    {"microsoft-finops-toolkit/Services.csv", "a lookup table of Azure services"},
    {"nvidia-dcgm-exporter/1.x-compatibility-metrics.csv",
     "dcgm-exporter's list of counters to collect, no samples"},
    {"nvidia-dcgm-exporter/dcp-metrics-included.csv",
     "dcgm-exporter's list of counters to collect, no samples"},
    {"nvidia-dcgm-exporter/default-counters.csv",
     "dcgm-exporter's list of counters to collect, no samples"},
    {"opencost/default_pricing.json",
     "OpenCost's default prices (a rate card's source, not usage)"},
    {"opencost/pricing_schema.csv", "an OpenCost custom price sheet (prices, not usage)"},
    {"opencost/pricing_schema_mixed_gpu_ondemand.csv",
     "an OpenCost custom price sheet (prices, not usage)"},
    {"opencost/swagger.json", "OpenCost's API description"},
};

std::map<std::string, core::WideNanos> parse_totals(const std::string& text) {
  std::map<std::string, core::WideNanos> out;
  for (std::size_t at = 0; at < text.size();) {
    const auto comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    const auto eq = item.find('=');
    out[item.substr(0, eq)] =
        static_cast<core::WideNanos>(testing::atto(item.substr(eq + 1)) / 1'000'000'000);
    at = comma + 1;
  }
  return out;
}

TEST(Samples, EveryFileOfTheSharedFolderIsReadOrNamedAsNotCostData) {
  std::set<std::string> read;
  for (const auto& e : kIngests)
    if (std::string(e.where) == "shared") read.insert(e.path);
  const std::filesystem::path root = testing::samples_dir();
  std::size_t seen = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    ++seen;
    const std::string rel = std::filesystem::relative(entry.path(), root).generic_string();
    EXPECT_TRUE(read.count(rel) || kNotCostData.count(rel))
        << rel << " is neither ingested here nor named as not usage or cost data";
  }
  EXPECT_EQ(seen, read.size() + kNotCostData.size());
}

TEST(Samples, EveryUsageOrCostSampleIngestsWithItsIndependentTotals) {
  auto catalog = config::load_builtin_catalog();
  ASSERT_TRUE(catalog) << catalog.error().what();
  auto card = config::parse_rate_card(kRates, "rates.yaml", *catalog);
  ASSERT_TRUE(card) << card.error().what();
  aicost::testing::TempDir dir("aicost-samples");
  int n = 0;
  for (const auto& e : kIngests) {
    SCOPED_TRACE(e.path);
    const std::string path = std::string(e.where) == "shared"
                                 ? testing::samples_dir() + e.path
                                 : std::string(AICOST_SOURCE_DIR) + "/" + e.path;
    // A ledger per file: the same bytes under two paths (the repo's copies) would be "already
    // loaded".
    auto store = store::open_store(dir.file("l" + std::to_string(n++) + ".db"),
                                   {.mode = store::OpenMode::kCreate});
    ASSERT_TRUE(store) << store.error().what();
    IngestOptions options;
    options.rate_card = &*card;
    auto r = ingest_file(**store, path, options);
    ASSERT_TRUE(r) << r.error().what();
    EXPECT_EQ(r->record.rows, e.loaded);
    EXPECT_EQ(r->record.rejected, e.rejected);
    const auto want = parse_totals(e.billed);
    std::map<std::string, core::WideNanos> got;
    for (const auto& t : r->record.totals) got[t.currency] += t.billed;
    ASSERT_EQ(got.size(), want.size());
    // Each row is rounded to the nano-unit once (half a nano-unit), the expected sum once.
    const core::WideNanos tolerance = e.loaded / 2 + 1;
    for (const auto& [currency, total] : want) {
      ASSERT_TRUE(got.count(currency)) << currency;
      const core::WideNanos diff = got[currency] - total;
      EXPECT_LE(diff < 0 ? -diff : diff, tolerance)
          << currency << ": ingested " << static_cast<double>(got[currency]) * 1e-9 << ", expected "
          << static_cast<double>(total) * 1e-9;
    }
  }
}

}  // namespace
}  // namespace aicost::billing
