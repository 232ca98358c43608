// The native billing dialects (AWS CUR, Azure, GCP, OCI) against the public samples in
// ../shared/data/billing-samples/: detection, no rejected rows, and per-currency BilledCost totals
// that match a sum computed here independently of the reader.
// Each dialect's own columns (headers, tags, line item types): native_columns_test.cc.
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "aicost/billing/reader.h"
#include "collected.h"
#include "ledger_test_support.h"

namespace aicost::billing {
namespace {

using Wide = testing::Int128;  // exact sums at 1e-18

std::string sample(const std::string& rel) { return testing::samples_dir() + rel; }

struct Expected {
  std::map<std::string, Wide> by_currency;  // 1e-18 units
  std::int64_t rows = 0;
};

// BilledCost as the first non-empty of `cost_columns`, per value of `currency_column` ("" → XXX).
Expected expected_totals(const std::string& path, const std::vector<std::string>& cost_columns,
                         const std::string& currency_column) {
  const auto rows = testing::naive_csv(path);
  Expected e;
  if (rows.empty()) return e;
  auto index = [&](const std::string& name) {
    for (std::size_t i = 0; i < rows[0].size(); ++i)
      if (rows[0][i] == name) return static_cast<int>(i);
    return -1;
  };
  const int currency = currency_column.empty() ? -1 : index(currency_column);
  EXPECT_TRUE(currency_column.empty() || currency >= 0) << currency_column;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const auto& row = rows[r];
    auto at = [&](int i) {
      return i >= 0 && static_cast<std::size_t>(i) < row.size() ? row[static_cast<std::size_t>(i)]
                                                                : std::string();
    };
    std::string cost;
    for (const auto& c : cost_columns)
      if (cost.empty()) cost = at(index(c));
    const std::string cur = currency < 0 ? "XXX" : at(currency);
    if (!cost.empty() && cost != "NULL") e.by_currency[cur] += testing::atto(cost);
    ++e.rows;
  }
  return e;
}

struct Export {
  const char* file;
  Format format;
  std::vector<std::string> cost_columns;
  const char* currency_column;
};

class NativeExport : public ::testing::TestWithParam<Export> {};

TEST_P(NativeExport, DetectsLoadsEveryRowAndBillsTheExactTotal) {
  const auto& p = GetParam();
  const auto path = sample(p.file);
  Collected got;
  auto sink = got.sink();
  auto summary = read_file(path, Format::kAuto, sink);
  ASSERT_TRUE(summary) << summary.error().what();
  EXPECT_EQ(summary->format, p.format);
  EXPECT_EQ(summary->rejected, 0) << got.errors();

  const auto want = expected_totals(path, p.cost_columns, p.currency_column);
  ASSERT_GT(want.rows, 0);
  EXPECT_EQ(summary->loaded, want.rows);
  std::map<std::string, Wide> billed;
  for (const auto& c : got.charges) {
    billed[c.currency] += static_cast<Wide>(c.billed) * 1'000'000'000;
    EXPECT_GE(c.period_end, c.period_start) << "line " << c.line;
    EXPECT_FALSE(c.provider.empty());
    EXPECT_FALSE(c.charge_category.empty()) << "line " << c.line;
  }
  ASSERT_EQ(billed.size(), want.by_currency.size());
  // Each row rounds to 1e-9 at most half a unit: rows × 0.5e-9 in 1e-18 units.
  const Wide tolerance = static_cast<Wide>(want.rows) * 500'000'000;
  for (const auto& [currency, total] : want.by_currency) {
    ASSERT_TRUE(billed.count(currency)) << currency;
    const Wide diff = billed[currency] - total;
    EXPECT_LE(diff < 0 ? -diff : diff, tolerance)
        << currency << ": read " << static_cast<double>(billed[currency]) * 1e-18 << ", summed "
        << static_cast<double>(total) * 1e-18;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Samples, NativeExport,
    ::testing::Values(
        Export{"focus-converters/aws_cur_legacy_sample-anonymous-aws-export-dataset.csv",
               Format::kAwsCur,
               {"lineItem/NetUnblendedCost", "lineItem/UnblendedCost"},
               "lineItem/CurrencyCode"},
        Export{"koku/aws_test_cur.csv",
               Format::kAwsCur,
               {"lineItem/NetUnblendedCost", "lineItem/UnblendedCost"},
               "lineItem/CurrencyCode"},
        Export{"focus-converters/azure_ea_sample-anonymous-ea-export-dataset.csv",
               Format::kAzure,
               {"CostInBillingCurrency"},
               "BillingCurrencyCode"},
        Export{"microsoft-finops-toolkit/EA_ActualCost_Small.csv",
               Format::kAzure,
               {"Cost"},
               "BillingCurrency"},
        Export{"microsoft-finops-toolkit/EA_AmortizedCost_Small.csv",
               Format::kAzure,
               {"Cost"},
               "BillingCurrency"},
        Export{"koku/azure_version_2.csv",
               Format::kAzure,
               {"CostInBillingCurrency"},
               "BillingCurrencyCode"},
        Export{"koku/azure_costreport_legacy.csv", Format::kAzure, {"PreTaxCost"}, "Currency"},
        Export{"opencost/azure_billingexport_values_Template.csv",
               Format::kAzure,
               {"costinbillingcurrency"},
               ""},
        Export{"opencost/azure_billingexport_values_VirtualMachine.csv",
               Format::kAzure,
               {"costinbillingcurrency"},
               ""},
        Export{"opencost/azure_billingexport_values_MissingBrackets.csv",
               Format::kAzure,
               {"costinbillingcurrency"},
               ""},
        Export{"koku/gcp_billing_export_202011_2020-11-08_2020-11-11.csv",
               Format::kGcp,
               {"cost"},
               "currency"},
        Export{"koku/gcp_billing_export_2022-08-01_5.csv", Format::kGcp, {"cost"}, "currency"},
        Export{"focus-converters/oci_reports_cost-csv_0000000030000269.csv",
               Format::kOci,
               {"cost/myCost"},
               "cost/currencyCode"}),
    [](const ::testing::TestParamInfo<Export>& info) {
      std::string name = info.param.file;
      name = name.substr(name.find('/') + 1);
      for (auto& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return name;
    });

}  // namespace
}  // namespace aicost::billing
