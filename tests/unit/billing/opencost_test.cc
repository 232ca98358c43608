// OpenCost's allocation CSV export (src/billing/opencost.cc), on OpenCost's own expected outputs
// (tests/data/opencost/README.md): GPU-hours from GPUs x 24 h, TotalCost as the row's cost, the
// allocation's properties and labels as tags.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "aicost/billing/reader.h"
#include "collected.h"

namespace aicost::billing {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(AICOST_SOURCE_DIR) + "/tests/data/opencost/" + name,
                   std::ios::binary);
  EXPECT_TRUE(in) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string tag(const ledger::Charge& c, const std::string& key) {
  for (const auto& t : c.tags)
    if (t.key == key) return t.value;
  return "(none)";
}

TEST(OpenCostReader, ReadsOpenCostsOwnExport) {
  const std::string text = fixture("export.csv");
  EXPECT_EQ(detect_format(text), Format::kOpenCost);
  const auto c = collect(text, Format::kAuto);
  ASSERT_EQ(c.charges.size(), 1u) << c.errors();
  const auto& g = c.charges[0];
  // The upstream test's input has GPUHours 48 over the day: GPUs 2 x 24 h.
  EXPECT_DOUBLE_EQ(g.gpu_hours, 48.0);
  // TotalCost 4.6000000000000005: exact to the nano-unit, the float's tail rounded away.
  EXPECT_EQ(g.effective, 4'600'000'000);
  EXPECT_EQ(g.billed, g.effective);
  EXPECT_EQ(g.currency, "USD");
  EXPECT_EQ(g.period_start, 1609459200);  // 2021-01-01T00:00:00Z
  EXPECT_EQ(g.period_end, 1609459200 + 86400);
  EXPECT_EQ(g.sub_account_id, "test-namespace");
  EXPECT_EQ(g.resource_id, "test-pod");
  EXPECT_EQ(tag(g, "namespace"), "test-namespace");
  EXPECT_EQ(tag(g, "controller_kind"), "test-controller-kind");
  EXPECT_EQ(tag(g, "controller"), "test-controller-name");
  EXPECT_EQ(tag(g, "pod"), "test-pod");
  EXPECT_EQ(tag(g, "container"), "test-container");
  EXPECT_EQ(tag(g, "test-label1"), "test-value1");
  EXPECT_EQ(tag(g, "test-label2"), "test-value2");
  EXPECT_EQ(c.summary.version, "opencost");
}

// Rows of an older export merged under a newer header have no TotalCost: the parts they have are
// summed (0.3 + 0.6), with one warning.
TEST(OpenCostReader, MergedExportWithoutTotalCost) {
  const auto c = collect(fixture("merged.csv"), Format::kAuto);
  ASSERT_EQ(c.charges.size(), 2u) << c.errors();
  EXPECT_EQ(c.charges[0].effective, 900'000'000);
  EXPECT_DOUBLE_EQ(c.charges[0].gpu_hours, 0.0);
  EXPECT_EQ(c.charges[1].effective, 1'000'000'000);
  EXPECT_EQ(c.summary.rejected, 0);
  EXPECT_TRUE(
      c.has_issue("TotalCost", "taken as the sum of the row's cost columns (CPUCost + RAMCost)"));
}

TEST(OpenCostReader, ARowWithoutAnyCostIsAnError) {
  const auto c =
      collect("Date,Namespace,GPUs,GPUCost,TotalCost\n2021-01-01,ns,1,,\n2021-01-01,ns,1,x,\n",
              Format::kOpenCost);
  EXPECT_TRUE(c.charges.empty());
  EXPECT_EQ(c.summary.rejected, 2);
  EXPECT_TRUE(c.has_issue("TotalCost", "every other cost column"));
  EXPECT_TRUE(c.has_issue("GPUCost", "'x' is not a decimal number"));
  EXPECT_NE(refusal("Namespace,GPUCost\nns,1\n", Format::kOpenCost)
                .find("no Date and no TotalCost column"),
            std::string::npos);
}

}  // namespace
}  // namespace aicost::billing
