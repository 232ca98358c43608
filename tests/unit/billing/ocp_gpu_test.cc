// The OpenShift GPU report (src/billing/ocp_gpu.cc): koku's metrics operator's rows of a pod's
// hour on an NVIDIA GPU become unpriced GPU rows of GPU-hours, by GPU model, a MIG instance
// counting its share of the GPU as koku's cost model does.
#include <gtest/gtest.h>

#include <string>

#include "aicost/billing/reader.h"
#include "aicost/core/text.h"
#include "aicost/ledger/rate_card.h"
#include "collected.h"

namespace aicost::billing {
namespace {

const char* kGpuHeader =
    "report_period_start,report_period_end,interval_start,interval_end,node,namespace,pod,gpu_uuid,"
    "gpu_model_name,"
    "gpu_vendor_name,gpu_memory_capacity_mib,gpu_pod_uptime,gpu_pod_utilization,gpu_max_slices,mig_"
    "instance_id,"
    "mig_profile,mig_strategy\n";
const char* kHour =
    "2025-06-01 00:00:00 +0000 UTC,2025-07-01 00:00:00 +0000 UTC,2025-06-03 05:00:00 +0000 UTC,"
    "2025-06-03 05:59:59 +0000 UTC,";

TEST(OcpGpu, DetectedFromTheGpuReportsHeader) {
  EXPECT_EQ(detect_format(kGpuHeader), Format::kOcp);
}

// A whole GPU up 2,700 s of the hour: 0.75 GPU-hours. A 3g.20gb MIG instance of a 7-slice GPU up
// the whole hour (3,600 s): 3/7 GPU-hours (koku: rate x uptime x mig_slice_count / gpu_max_slices).
TEST(OcpGpu, ARowIsGpuHoursOfItsModelAndAMigInstanceItsShare) {
  const std::string text =
      std::string(kGpuHeader) + kHour +
      "gpu-n1,ml,train-0,GPU-aaaa,NVIDIA H100 80GB HBM3,nvidia0,81559,2700,2000,,,,\n" + kHour +
      "gpu-n2,ml,infer-0,GPU-bbbb,NVIDIA "
      "A100-SXM4-80GB,nvidia1,81920,3600,3000,7,2,3g.20gb,mixed\n";
  auto got = collect(text, Format::kAuto);
  EXPECT_EQ(got.summary.version, "ocp-gpu");
  ASSERT_EQ(got.charges.size(), 2u) << got.errors();
  const auto& whole = got.charges[0];
  const auto& mig = got.charges[1];
  EXPECT_DOUBLE_EQ(whole.gpu_hours, 0.75);
  EXPECT_DOUBLE_EQ(mig.gpu_hours, 3.0 / 7.0);
  for (const auto* c : {&whole, &mig}) {
    EXPECT_TRUE(c->currency.empty());
    EXPECT_TRUE(ledger::needs_price(*c));
    EXPECT_EQ(c->consumed_unit, "GPU-Hours");
    EXPECT_DOUBLE_EQ(*c->consumed_quantity, c->gpu_hours);
    EXPECT_EQ(c->period_end - c->period_start, 3600);  // 05:59:59 ends the hour
    EXPECT_EQ(c->provider, "OpenShift");
    EXPECT_EQ(c->sub_account_id, "ml");
    ASSERT_TRUE(tag_of(*c, "namespace") && tag_of(*c, "pod") && tag_of(*c, "node") &&
                tag_of(*c, "gpu_uuid") && tag_of(*c, "gpu_type"));
  }
  EXPECT_EQ(whole.sku_id,
            "NVIDIA H100 80GB HBM3");  // the card prices it as "nvidia h100 80gb hbm3"
  // The resource's last part is the node: the waste scan joins it with dcgm-exporter's Hostname.
  EXPECT_EQ(whole.resource_id, "train-0/gpu-n1");
  EXPECT_EQ(*tag_of(mig, "mig_profile"), "3g.20gb");
  EXPECT_EQ(*tag_of(mig, "mig_instance"), "2");
  EXPECT_NE(mig.charge_description.find("MIG 3g.20gb (3 of 7 slices)"), std::string::npos)
      << mig.charge_description;
}

TEST(OcpGpu, AMigInstanceWithoutItsGpusSlicesCountsTheWholeGpuWithAWarning) {
  const std::string text = std::string(kGpuHeader) + kHour +
                           "n,ml,p,GPU-c,Tesla A100,nvidia0,40960,3600,0,,1,3g.20gb,single\n" +
                           kHour +
                           "n,ml,p,GPU-c,Tesla A100,nvidia0,40960,3600,0,7,1,half.gpu,single\n";
  auto got = collect(text, Format::kOcp);
  ASSERT_EQ(got.charges.size(), 2u) << got.errors();
  EXPECT_DOUBLE_EQ(got.charges[0].gpu_hours, 1.0);
  EXPECT_DOUBLE_EQ(got.charges[1].gpu_hours, 1.0);
  EXPECT_TRUE(got.has_issue("gpu_max_slices", "the row counts the whole GPU"));
  EXPECT_TRUE(got.has_issue("mig_profile", "the row counts the whole GPU"));
}

// A slice count no GPU has (2.4e12, 7.5) is not a share: the row counts the whole GPU with a
// warning that names the cell. 2.4e12 was cast to int before it was checked (found by fuzz_ocp:
// undefined behaviour; kept as fuzz/regressions/ocp-huge-max-slices).
TEST(OcpGpu, ASliceCountNoGpuHasCountsTheWholeGpuWithAWarning) {
  const std::string text = std::string(kGpuHeader) + kHour +
                           "n,ml,p,GPU-c,Tesla A100,nvidia0,40960,3600,0,2417300000000,1,3g.20gb,"
                           "single\n" +
                           kHour +
                           "n,ml,p,GPU-c,Tesla A100,nvidia0,40960,3600,0,7.5,1,3g.20gb,single\n";
  auto got = collect(text, Format::kOcp);
  ASSERT_EQ(got.charges.size(), 2u) << got.errors();
  EXPECT_DOUBLE_EQ(got.charges[0].gpu_hours, 1.0);
  EXPECT_DOUBLE_EQ(got.charges[1].gpu_hours, 1.0);
  EXPECT_TRUE(got.has_issue("gpu_max_slices", "gpu_max_slices 2.4173e+12 is not a slice count"));
  EXPECT_TRUE(got.has_issue("gpu_max_slices", "gpu_max_slices 7.5 is not a slice count"));
}

TEST(OcpGpu, ImpossibleReadingsAreErrorsOnTheirRowAndTheRestLoads) {
  const std::string text = std::string(kGpuHeader) + kHour +
                           "n,ml,p,GPU-c,Tesla T4,nvidia0,15360,7200,0,,,,\n" + kHour +
                           "n,ml,p,GPU-c,Tesla T4,nvidia0,15360,-5,0,,,,\n" + kHour +
                           "n,ml,p,GPU-c,Tesla A100,nvidia0,40960,60,0,4,1,7g.80gb,single\n" +
                           kHour + "n,ml,p,GPU-c,Tesla T4,nvidia0,15360,3600,0,,,,\n";
  auto got = collect(text, Format::kOcp);
  EXPECT_EQ(got.summary.rejected, 3);
  ASSERT_EQ(got.charges.size(), 1u);
  EXPECT_EQ(got.charges[0].line, 5);
  EXPECT_TRUE(got.has_issue("gpu_pod_uptime", "7200.000000 s of uptime in an interval of 3600 s"));
  EXPECT_TRUE(got.has_issue("gpu_pod_uptime", "'-5' is not a number of seconds"));
  EXPECT_TRUE(got.has_issue("mig_profile", "holds more slices than its GPU's 4"));
}

// A GPU up no second of the hour (0, or an empty cell) used nothing: the row is taken without a
// charge, neither loaded nor rejected (a 0 GPU-hour row could not be priced; found by fuzz_ocp).
TEST(OcpGpu, AGpuUpNoSecondOfTheHourChargesNothing) {
  const std::string text = std::string(kGpuHeader) + kHour +
                           "n,ml,p,GPU-c,Tesla T4,nvidia0,15360,0,0,,,,\n" + kHour +
                           "n,ml,p,GPU-c,Tesla T4,nvidia0,15360,,0,,,,\n" + kHour +
                           "n,ml,p,GPU-c,Tesla T4,nvidia0,15360,1800,0,,,,\n";
  auto got = collect(text, Format::kOcp);
  EXPECT_EQ(got.summary.rejected, 0) << got.errors();
  ASSERT_EQ(got.charges.size(), 1u);
  EXPECT_EQ(got.charges[0].line, 4);
  EXPECT_DOUBLE_EQ(got.charges[0].gpu_hours, 0.5);
}

// The description holds the whole model name, however long: a fixed buffer cut "ü" of a name of
// 198 letters in half, leaving text that is not UTF-8 (found by fuzz_ocp).
TEST(OcpGpu, ALongModelNameStaysWholeInTheDescription) {
  const std::string model = std::string(198, 'A') + "\xC3\xBC";  // "AAA...Aü"
  const std::string text =
      std::string(kGpuHeader) + kHour + "n,ml,p,GPU-c," + model + ",nvidia0,15360,3600,0,,,,\n";
  auto got = collect(text, Format::kOcp);
  ASSERT_EQ(got.charges.size(), 1u) << got.errors();
  const std::string& d = got.charges[0].charge_description;
  EXPECT_TRUE(core::utf8_clean(d));
  EXPECT_EQ(d, model + ": 1 GPU-hours for 3600 s up");
}

TEST(OcpGpu, RefusesAGpuReportWithoutTheColumnsItNeeds) {
  const std::string text = "interval_start,interval_end,namespace,pod,gpu_pod_uptime\n";
  EXPECT_NE(refusal(text, Format::kOcp)
                .find("not an OpenShift GPU usage report aicost can read: no gpu_model_name"),
            std::string::npos)
      << refusal(text, Format::kOcp);
}

// The operator's own expected GPU report (tests/data/ocp/operator/, README.md): six rows each up
// 60 s of the hour, four whole GPUs and two MIG instances of 7-slice GPUs (1g.5gb and 3g.20gb):
// (4 + 1/7 + 3/7) x 60 / 3600 GPU-hours (tests/data/ocp/expected.py: 0.07619047619047618).
TEST(OcpGpu, TheOperatorsReportLoadsEveryRowWithItsGpuHours) {
  Collected got;
  auto r = read_file(std::string(AICOST_SOURCE_DIR) +
                         "/tests/data/ocp/operator/cm-openshift-nvidia-gpu-usage-202011.csv",
                     Format::kAuto, got.sink());
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->format, Format::kOcp);
  EXPECT_EQ(r->records, 6);
  EXPECT_EQ(r->loaded, 6);
  EXPECT_EQ(r->rejected, 0) << got.errors();
  double sum = 0;
  for (const auto& c : got.charges) sum += c.gpu_hours;
  EXPECT_NEAR(sum, (4.0 + 1.0 / 7 + 3.0 / 7) * 60 / 3600, 1e-15);
  EXPECT_NEAR(sum, 0.07619047619047618, 1e-15);
}

}  // namespace
}  // namespace aicost::billing
