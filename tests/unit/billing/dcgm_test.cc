// The dcgm-exporter readers: telling the two forms apart, and the CSV form on the DataDog fixture
// (a real scrape); the Prometheus text form is dcgm_text_test.cc's. Units:
// ../shared/reference/finops.md §9.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "aicost/billing/reader.h"
#include "dcgm_support.h"
#include "ledger_test_support.h"

namespace aicost::billing {
namespace {

using ledger::GpuMetric;
using ledger::RowIssue;
using namespace dcgm_testing;  // the shared fixtures

// --- format detection ---------------------------------------------------------------------------

TEST(DcgmReader, DetectsBothForms) {
  EXPECT_EQ(detect_format(slurp(kScrape).substr(0, 4096)), Format::kDcgmPrometheus);
  EXPECT_EQ(detect_format(slurp(kDatadogCsv).substr(0, 4096)), Format::kDcgmCsv);
  EXPECT_EQ(detect_format("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5\n"), Format::kDcgmPrometheus);
  EXPECT_EQ(detect_format("# HELP dcgm_gpu_utilization GPU utilization (in %).\n"),
            Format::kDcgmPrometheus);
  EXPECT_EQ(read(kScrape).summary.format, Format::kDcgmPrometheus);
  EXPECT_EQ(read(kDatadogCsv).summary.format, Format::kDcgmCsv);
  EXPECT_EQ(read(kScrape).summary.version, "dcgm-prometheus");
  EXPECT_EQ(read(kDatadogCsv).summary.version, "dcgm-csv");
}

// --- the DataDog fixture (CSV) ------------------------------------------------------------------

// The fixture's rows checked against a table of this test's own: name, metric, factor to the
// ledger's unit.
TEST(DcgmCsvReader, EveryKeptSampleOfTheDatadogFixture) {
  const std::map<std::string, std::pair<GpuMetric, double>> kept{
      {"DCGM_FI_DEV_GPU_UTIL", {GpuMetric::kGpuUtil, 0.01}},
      {"DCGM_FI_PROF_SM_ACTIVE", {GpuMetric::kSmActive, 1}},
      {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", {GpuMetric::kGrEngineActive, 1}},
      {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", {GpuMetric::kTensorActive, 1}},
      {"DCGM_FI_PROF_DRAM_ACTIVE", {GpuMetric::kDramActive, 1}},
      {"DCGM_FI_DEV_FB_USED", {GpuMetric::kFbUsed, kMiB}},
      {"DCGM_FI_DEV_FB_FREE", {GpuMetric::kFbFree, kMiB}},
      {"DCGM_FI_DEV_POWER_USAGE", {GpuMetric::kPower, 1}},
      {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", {GpuMetric::kEnergy, 0.001}},
  };
  for (const Format f : {Format::kAuto, Format::kDcgmCsv}) {
    const auto c = read(kDatadogCsv, f);
    const auto rows = testing::naive_csv(kDatadogCsv);
    ASSERT_EQ(rows.size(), 39u);  // header + 38 samples
    const auto& h = rows[0];
    auto col = [&](const std::string& n) {
      return static_cast<std::size_t>(std::find(h.begin(), h.end(), n) - h.begin());
    };
    EXPECT_EQ(c.summary.records, 38);
    EXPECT_EQ(c.summary.rejected, 0);
    EXPECT_EQ(c.errors(), 0);
    std::size_t next = 0;
    for (std::size_t r = 1; r < rows.size(); ++r) {
      const auto it = kept.find(rows[r][col("metric")]);
      if (it == kept.end()) continue;
      ASSERT_LT(next, c.samples.size()) << rows[r][0];
      const auto& s = c.samples[next++];
      SCOPED_TRACE(rows[r][0]);
      EXPECT_EQ(s.line, static_cast<std::int64_t>(r + 1));  // one line per row in this file
      EXPECT_EQ(s.metric, it->second.first);
      EXPECT_DOUBLE_EQ(s.value, std::stod(rows[r][col("value")]) * it->second.second);
      EXPECT_EQ(s.host, rows[r][col("Hostname")]);
      EXPECT_EQ(s.gpu, rows[r][col("gpu")]);
      EXPECT_EQ(s.uuid, rows[r][col("uuid")]);
      EXPECT_EQ(s.model_name, rows[r][col("modelName")]);
      EXPECT_EQ(s.ns, rows[r][col("namespace")]);
      EXPECT_EQ(s.pod, rows[r][col("pod")]);
      EXPECT_EQ(s.container, rows[r][col("container")]);
      EXPECT_EQ(s.job, "");
      EXPECT_EQ(s.time, mtime(kDatadogCsv));  // no timestamp column: the file's time
    }
    EXPECT_EQ(next, c.samples.size());
    EXPECT_EQ(c.summary.loaded, 9);
    ASSERT_EQ(c.samples.size(), 9u);
  }
}

TEST(DcgmCsvReader, DatadogFixtureValuesInLedgerUnits) {
  const auto c = read(kDatadogCsv);
  const auto* power = c.find(GpuMetric::kPower, "0");
  ASSERT_NE(power, nullptr);
  EXPECT_DOUBLE_EQ(power->value, 8.969);
  EXPECT_EQ(power->host, "424773df46e0");
  EXPECT_EQ(power->uuid, "GPU-20c56d28-0da5-6d26-a36a-e7af1ce2586e");
  EXPECT_EQ(power->model_name, "Tesla T4");
  const auto* energy = c.find(GpuMetric::kEnergy, "0");
  ASSERT_NE(energy, nullptr);
  EXPECT_DOUBLE_EQ(energy->value, 128996.013);  // 128996013 mJ
  const auto* fb_free = c.find(GpuMetric::kFbFree, "0");
  ASSERT_NE(fb_free, nullptr);
  EXPECT_DOUBLE_EQ(fb_free->value, 15109.0 * 1048576);
  const auto* dram = c.find(GpuMetric::kDramActive, "0");
  ASSERT_NE(dram, nullptr);
  EXPECT_DOUBLE_EQ(dram->value, 0.000003);  // already a ratio, though its help says "(in %)"
  EXPECT_EQ(dram->ns, "ray-llm");
  EXPECT_EQ(dram->pod, "ray-1111111");
  EXPECT_EQ(dram->container, "ray-worker");
  EXPECT_EQ(dram->uuid, "GPU-abc");
  EXPECT_EQ(dram->model_name, "NVIDIA A10G");
  // DCGM_FI_DEV_FB_USED_PERCENT is not FB_USED.
  for (const auto& s : c.samples)
    if (s.metric == GpuMetric::kFbUsed) {
      EXPECT_EQ(s.host, "424773df46e0");
    }
  // The dummy PROF block without labels is loaded, with one warning for the three rows.
  std::int64_t unlabelled = 0;
  for (const auto& s : c.samples) unlabelled += s.gpu.empty() && s.uuid.empty();
  EXPECT_EQ(unlabelled, 3);
  ASSERT_EQ(c.issues.size(), 1u);
  EXPECT_EQ(c.issues[0].column, "gpu");
  EXPECT_EQ(c.issues[0].severity, RowIssue::Severity::kWarning);
  EXPECT_NE(c.issues[0].message.find("3 rows"), std::string::npos) << c.issues[0].message;
}

TEST(DcgmCsvReader, LabelsFromJsonWhenNoColumn) {
  const auto c = read_string(
      "metric,value,labels_json\n"
      "DCGM_FI_DEV_POWER_USAGE,300,\"{\"\"Hostname\"\": \"\"n1\"\", \"\"gpu\"\": \"\"3\"\", "
      "\"\"UUID\"\": \"\"GPU-x\"\", "
      "\"\"pod\"\": \"\"dcgm-exporter-abc\"\", \"\"exported_pod\"\": \"\"trainer-0\"\", "
      "\"\"job\"\": \"\"gpu-metrics\"\"}\"\n",
      Format::kDcgmCsv);
  ASSERT_EQ(c.samples.size(), 1u);
  const auto& s = c.samples[0];
  EXPECT_EQ(s.host, "n1");
  EXPECT_EQ(s.gpu, "3");
  EXPECT_EQ(s.uuid, "GPU-x");
  EXPECT_EQ(s.pod, "trainer-0");  // exported_pod is the workload's; pod is the exporter's own
  EXPECT_EQ(s.job, "gpu-metrics");
}

TEST(DcgmCsvReader, Timestamps) {
  const auto c = read_string(
      "metric,gpu,timestamp,value\n"
      "DCGM_FI_DEV_POWER_USAGE,0,1700000000,100\n"
      "DCGM_FI_DEV_POWER_USAGE,0,1700000000999,100\n"
      "DCGM_FI_DEV_POWER_USAGE,0,2023-11-14T22:13:20Z,100\n"
      "DCGM_FI_DEV_POWER_USAGE,0,,100\n"
      "DCGM_FI_DEV_POWER_USAGE,0,yesterday,100\n",
      Format::kDcgmCsv);
  ASSERT_EQ(c.samples.size(), 4u);
  EXPECT_EQ(c.samples[0].time, 1700000000);
  EXPECT_EQ(c.samples[1].time, 1700000000);
  EXPECT_EQ(c.samples[2].time, 1700000000);
  EXPECT_EQ(c.samples[3].time, 0);  // read_text: no file time
  EXPECT_EQ(c.summary.rejected, 1);
  ASSERT_NE(c.issue_at(6), nullptr);
  EXPECT_EQ(c.issue_at(6)->column, "timestamp");
  EXPECT_EQ(c.issue_at(6)->severity, RowIssue::Severity::kError);
}

TEST(DcgmCsvReader, GarbageIsSkippedWithAWarningAndBadValuesRejected) {
  const auto c = read_string(
      "metric,gpu,value\n"
      "DCGM_FI_DEV_GPU_UTIL,0,4294967295\n"
      "DCGM_FI_DEV_GPU_UTIL,1,37\n"
      "DCGM_FI_DEV_GPU_UTIL,2,n/a\n"
      "DCGM_FI_DEV_SM_CLOCK,0,1410\n",
      Format::kDcgmCsv);
  EXPECT_EQ(c.summary.records, 4);
  EXPECT_EQ(c.summary.loaded, 1);
  EXPECT_EQ(c.summary.rejected, 1);  // n/a; the garbage and the clock are skipped, not rejected
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_DOUBLE_EQ(c.samples[0].value, 0.37);
  ASSERT_NE(c.issue_at(2), nullptr);
  EXPECT_EQ(c.issue_at(2)->severity, RowIssue::Severity::kWarning);
  EXPECT_NE(c.issue_at(2)->message.find("4294967295"), std::string::npos);
  ASSERT_NE(c.issue_at(4), nullptr);
  EXPECT_EQ(c.issue_at(4)->severity, RowIssue::Severity::kError);
  EXPECT_EQ(c.issue_at(5), nullptr);
}

TEST(DcgmCsvReader, MissingColumnsAreAnError) {
  Collected c;
  auto s = read_text("metric,gpu\nDCGM_FI_DEV_GPU_UTIL,0\n", "x.csv", Format::kDcgmCsv, c.sink());
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("'value'"), std::string::npos) << s.error().what();
}

}  // namespace
}  // namespace aicost::billing
