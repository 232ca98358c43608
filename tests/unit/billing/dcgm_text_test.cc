// The dcgm-exporter Prometheus text reader on tests/data/dcgm/scrape.prom (its values as in the
// DataDog fixture, with one garbage value, one timestamp and one malformed line; see the README
// there): fed whole and in chunks, line syntax, label forms, and unit conversion.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <tuple>

#include "../../../src/billing/dcgm.h"  // the reader itself, for chunked feeding
#include "aicost/billing/reader.h"
#include "dcgm_support.h"
#include "ledger_test_support.h"

namespace aicost::billing {
namespace {

using ledger::GpuMetric;
using ledger::GpuSample;
using ledger::RowIssue;
using namespace dcgm_testing;  // the shared fixtures

// --- the Prometheus text fixture ----------------------------------------------------------------

TEST(DcgmTextReader, ScrapeFixture) {
  for (const Format f : {Format::kAuto, Format::kDcgmPrometheus}) {
    const auto c = read(kScrape, f);
    EXPECT_EQ(c.summary.records, 20);  // sample lines, comments excluded
    EXPECT_EQ(c.summary.loaded, 14);   // 20 - 4 clock/temperature - 1 garbage - 1 malformed
    EXPECT_EQ(c.summary.rejected, 1);
    ASSERT_EQ(c.samples.size(), 14u);

    const auto* p0 = c.find(GpuMetric::kPower, "0");
    const auto* p1 = c.find(GpuMetric::kPower, "1");
    ASSERT_TRUE(p0 && p1);
    EXPECT_DOUBLE_EQ(p0->value, 8.969);
    EXPECT_DOUBLE_EQ(p1->value, 70);
    EXPECT_EQ(p0->line, 11);
    EXPECT_EQ(p0->host, "424773df46e0");
    EXPECT_EQ(p0->uuid, "GPU-20c56d28-0da5-6d26-a36a-e7af1ce2586e");
    EXPECT_EQ(p0->model_name, "Tesla T4");
    EXPECT_EQ(p0->pod, "");  // GPU 0 is held by no pod
    EXPECT_EQ(p1->uuid, "GPU-9ef1b6d0-3643-5dd7-b823-c0ec20dcf2d5");
    EXPECT_EQ(p1->ns, "ray-llm");
    EXPECT_EQ(p1->pod, "ray-1111111");
    EXPECT_EQ(p1->container, "ray-worker");
    EXPECT_EQ(p0->time, mtime(kScrape));  // no timestamp: the scrape (file) time

    const auto* e1 = c.find(GpuMetric::kEnergy, "1");
    ASSERT_NE(e1, nullptr);
    EXPECT_DOUBLE_EQ(e1->value, 128996.013);
    EXPECT_EQ(e1->time, 1700000000);  // 1700000000123 ms
    EXPECT_EQ(e1->line, 16);

    ASSERT_NE(c.find(GpuMetric::kGpuUtil, "0"), nullptr);
    EXPECT_DOUBLE_EQ(c.find(GpuMetric::kGpuUtil, "0")->value, 0);
    EXPECT_EQ(c.find(GpuMetric::kGpuUtil, "1"), nullptr);  // 4294967295
    EXPECT_DOUBLE_EQ(c.find(GpuMetric::kFbUsed, "1")->value, 15109 * kMiB);
    EXPECT_DOUBLE_EQ(c.find(GpuMetric::kFbFree, "0")->value, 15109 * kMiB);
    EXPECT_DOUBLE_EQ(c.find(GpuMetric::kDramActive, "1")->value, 0.000003);
    EXPECT_NE(c.find(GpuMetric::kTensorActive, "0"), nullptr);
    EXPECT_EQ(c.find(GpuMetric::kTensorActive, "1"), nullptr);  // the malformed line

    ASSERT_EQ(c.issues.size(), 2u);
    const auto* garbage = c.issue_at(20);
    ASSERT_NE(garbage, nullptr);
    EXPECT_EQ(garbage->severity, RowIssue::Severity::kWarning);
    EXPECT_NE(garbage->message.find("4294967295"), std::string::npos);
    EXPECT_NE(garbage->message.find("DCGM_FI_DEV_GPU_UTIL"), std::string::npos);
    const auto* bad = c.issue_at(36);
    ASSERT_NE(bad, nullptr);
    EXPECT_EQ(bad->severity, RowIssue::Severity::kError);
    EXPECT_NE(bad->message.find("line 36"), std::string::npos) << bad->message;
  }
}

// The CSV and text forms of the same samples give the same samples.
TEST(DcgmTextReader, AgreesWithTheCsvForm) {
  const auto text = read_string(
      "# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).\n"
      "# TYPE DCGM_FI_DEV_FB_USED gauge\n"
      "DCGM_FI_DEV_FB_USED{gpu=\"2\",UUID=\"GPU-y\",modelName=\"NVIDIA H100 80GB "
      "HBM3\",Hostname=\"n7\","
      "namespace=\"ml\",pod=\"train-0\",container=\"main\"} 40960 1700000000000\n",
      Format::kDcgmPrometheus);
  const auto csv = read_string(
      "metric,gpu,UUID,modelName,Hostname,namespace,pod,container,timestamp,value\n"
      "DCGM_FI_DEV_FB_USED,2,GPU-y,NVIDIA H100 80GB HBM3,n7,ml,train-0,main,1700000000000,40960\n",
      Format::kDcgmCsv);
  ASSERT_EQ(text.samples.size(), 1u);
  ASSERT_EQ(csv.samples.size(), 1u);
  const auto &a = text.samples[0], &b = csv.samples[0];
  EXPECT_EQ(a.metric, b.metric);
  EXPECT_EQ(a.value, b.value);
  EXPECT_EQ(a.time, b.time);
  EXPECT_EQ(std::tie(a.host, a.gpu, a.uuid, a.model_name, a.ns, a.pod, a.container, a.job),
            std::tie(b.host, b.gpu, b.uuid, b.model_name, b.ns, b.pod, b.container, b.job));
  EXPECT_DOUBLE_EQ(a.value, 40960 * kMiB);
}

// --- streaming
// ------------------------------------------------------------------------------------

struct Streamed {
  std::vector<GpuSample> samples;
  std::vector<RowIssue> issues;
  std::int64_t records = 0, loaded = 0, rejected = 0;
};

Streamed feed_in_chunks(std::string_view text, std::size_t chunk) {
  Streamed out;
  Sink sink;
  sink.sample = [&](GpuSample&& g) {
    out.samples.push_back(std::move(g));
    return core::Status{};
  };
  sink.issue = [&](RowIssue&& i) { out.issues.push_back(std::move(i)); };
  IssueLog log;
  DcgmTextReader reader(sink, log, 1234);
  for (std::size_t i = 0; i < text.size(); i += chunk)
    EXPECT_TRUE(reader.feed(text.substr(i, chunk)));
  EXPECT_TRUE(reader.finish());
  log.flush(sink);
  out.records = reader.records();
  out.loaded = reader.loaded();
  out.rejected = reader.rejected();
  return out;
}

void expect_same(const Streamed& a, const Streamed& b) {
  EXPECT_EQ(a.records, b.records);
  EXPECT_EQ(a.loaded, b.loaded);
  EXPECT_EQ(a.rejected, b.rejected);
  ASSERT_EQ(a.samples.size(), b.samples.size());
  for (std::size_t i = 0; i < a.samples.size(); ++i) {
    const auto &x = a.samples[i], &y = b.samples[i];
    EXPECT_EQ(std::tie(x.line, x.time, x.metric, x.value, x.host, x.gpu, x.uuid, x.model_name, x.ns,
                       x.pod, x.container, x.job),
              std::tie(y.line, y.time, y.metric, y.value, y.host, y.gpu, y.uuid, y.model_name, y.ns,
                       y.pod, y.container, y.job));
  }
  ASSERT_EQ(a.issues.size(), b.issues.size());
  for (std::size_t i = 0; i < a.issues.size(); ++i) {
    EXPECT_EQ(a.issues[i].line, b.issues[i].line);
    EXPECT_EQ(a.issues[i].message, b.issues[i].message);
  }
}

TEST(DcgmTextReader, ChunkedFeedingGivesTheSameSamples) {
  const std::string text = slurp(kScrape);
  ASSERT_FALSE(text.empty());
  const auto whole = feed_in_chunks(text, text.size());
  EXPECT_EQ(whole.loaded, 14);
  EXPECT_EQ(whole.samples[0].time, 1234);  // the scrape time given to the reader
  for (const std::size_t chunk : {1, 2, 7, 64, 333}) {
    SCOPED_TRACE(chunk);
    expect_same(whole, feed_in_chunks(text, chunk));
  }
  // Without the final newline the last sample is still read.
  const auto cut = feed_in_chunks(std::string_view(text).substr(0, text.size() - 1), 5);
  expect_same(whole, cut);
  // CRLF line ends.
  std::string crlf;
  for (char ch : text) crlf += ch == '\n' ? std::string("\r\n") : std::string(1, ch);
  expect_same(whole, feed_in_chunks(crlf, 3));
}

// --- line syntax
// ----------------------------------------------------------------------------------

TEST(DcgmTextReader, MalformedLinesNameTheirLine) {
  const char* bad[] = {
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\" 5",            // no closing brace
      "DCGM_FI_DEV_GPU_UTIL{gpu=0} 5",               // unquoted label value
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0} 5",             // unterminated value
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} abc",         // not a number
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"}",             // no value
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5 1.5e12",    // OpenMetrics-style seconds, not ms
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5 1000 xyz",  // trailing text
      "{gpu=\"0\"} 5",                               // no name
      "DCGM-FI-DEV-GPU-UTIL 5",                      // not a metric name
  };
  for (const char* line : bad) {
    SCOPED_TRACE(line);
    const std::string text =
        "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n\nDCGM_FI_DEV_GPU_UTIL{gpu=\"1\"} "
        "50\n" +
        std::string(line) + "\nDCGM_FI_DEV_GPU_UTIL{gpu=\"2\"} 60\n";
    const auto c = read_string(text, Format::kDcgmPrometheus);
    EXPECT_EQ(c.summary.records, 3);
    EXPECT_EQ(c.summary.loaded, 2);
    EXPECT_EQ(c.summary.rejected, 1);
    ASSERT_EQ(c.issues.size(), 1u);
    EXPECT_EQ(c.issues[0].line, 4);
    EXPECT_EQ(c.issues[0].severity, RowIssue::Severity::kError);
    EXPECT_NE(c.issues[0].message.find("line 4, column "), std::string::npos)
        << c.issues[0].message;
  }
}

TEST(DcgmTextReader, LabelEscapesSpacingAndSpecialValues) {
  const auto c = read_string(
      "DCGM_FI_DEV_POWER_USAGE{ gpu = \"0\" , pod=\"a\\\\b\\\"c\\nd\", container=\"x\\ty\", } "
      "250.5\n"
      "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\"} NaN\n"
      "DCGM_FI_DEV_POWER_USAGE{gpu=\"2\"} +Inf\n"
      "DCGM_FI_DEV_POWER_USAGE{gpu=\"3\"} -1\n"
      "DCGM_FI_DEV_POWER_USAGE 99 -1500\n"
      "\t DCGM_FI_DEV_POWER_USAGE{gpu=\"4\",pod=\"\"} 1e2\n",
      Format::kDcgmPrometheus);
  ASSERT_EQ(c.samples.size(), 3u);
  EXPECT_EQ(c.samples[0].gpu, "0");
  EXPECT_EQ(c.samples[0].pod, "a\\b\"c\nd");
  EXPECT_EQ(c.samples[0].container, "x\\ty");  // an unknown escape stays as written
  EXPECT_DOUBLE_EQ(c.samples[0].value, 250.5);
  EXPECT_EQ(c.samples[1].time, -2);  // -1500 ms, floored
  EXPECT_EQ(c.samples[1].gpu, "");
  EXPECT_DOUBLE_EQ(c.samples[2].value, 100);
  EXPECT_EQ(c.samples[2].pod, "");
  EXPECT_EQ(c.summary.rejected, 0);
  EXPECT_EQ(c.summary.records, 6);
  // NaN, +Inf, -1: one warning for the three; and one for the sample with no gpu label.
  std::int64_t warnings = 0;
  for (const auto& i : c.issues) warnings += i.severity == RowIssue::Severity::kWarning;
  EXPECT_EQ(warnings, 2);
  ASSERT_NE(c.issue_at(2), nullptr);
  EXPECT_NE(c.issue_at(2)->message.find("3 rows"), std::string::npos) << c.issue_at(2)->message;
}

TEST(DcgmTextReader, LegacyNamesAndLabels) {
  const auto c = read_string(
      "# HELP dcgm_gpu_utilization GPU utilization (in %).\n"
      "# TYPE dcgm_gpu_utilization gauge\n"
      "dcgm_gpu_utilization{gpu=\"0\",uuid=\"GPU-z\",pod_name=\"p\",pod_namespace=\"n\",container_"
      "name=\"c\"} 75\n"
      "dcgm_fb_used{gpu=\"0\",uuid=\"GPU-z\"} 1\n"
      "dcgm_total_energy_consumption{gpu=\"0\",uuid=\"GPU-z\"} 5000\n"
      "dcgm_gpu_temp{gpu=\"0\",uuid=\"GPU-z\"} 40\n",
      Format::kAuto);
  EXPECT_EQ(c.summary.format, Format::kDcgmPrometheus);
  ASSERT_EQ(c.samples.size(), 3u);
  EXPECT_EQ(c.samples[0].metric, GpuMetric::kGpuUtil);
  EXPECT_DOUBLE_EQ(c.samples[0].value, 0.75);
  EXPECT_EQ(c.samples[0].uuid, "GPU-z");
  EXPECT_EQ(c.samples[0].pod, "p");
  EXPECT_EQ(c.samples[0].ns, "n");
  EXPECT_EQ(c.samples[0].container, "c");
  EXPECT_DOUBLE_EQ(c.samples[1].value, kMiB);
  EXPECT_DOUBLE_EQ(c.samples[2].value, 5);
  EXPECT_EQ(c.summary.records, 4);
}

// Scraped through a Service, Prometheus renames the exporter's pod labels exported_*.
TEST(DcgmTextReader, ExportedLabelsWin) {
  const auto c = read_string(
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{pod=\"dcgm-exporter-x\",namespace=\"gpu-operator\",container="
      "\"exporter\","
      "exported_pod=\"train-3\",exported_namespace=\"ml\",exported_container=\"worker\",job="
      "\"dcgm\",gpu=\"0\"} 0.5\n",
      Format::kDcgmPrometheus);
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(c.samples[0].pod, "train-3");
  EXPECT_EQ(c.samples[0].ns, "ml");
  EXPECT_EQ(c.samples[0].container, "worker");
  EXPECT_EQ(c.samples[0].job, "dcgm");
  EXPECT_DOUBLE_EQ(c.samples[0].value, 0.5);
}

TEST(DcgmTextReader, AnOverlongLineStopsTheRead) {
  Collected c;
  const std::string text = "DCGM_FI_DEV_GPU_UTIL{gpu=\"" + std::string(2 << 20, 'x');
  auto s = read_text(text, "big", Format::kDcgmPrometheus, c.sink());
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, core::ErrorCode::kParse);
}

// --- unit conversion
// ------------------------------------------------------------------------------

TEST(ConvertDcgmValue, Units) {
  EXPECT_DOUBLE_EQ(*convert_dcgm_value(GpuMetric::kGpuUtil, 37), 0.37);
  EXPECT_DOUBLE_EQ(*convert_dcgm_value(GpuMetric::kGpuUtil, 100), 1.0);
  EXPECT_FALSE(convert_dcgm_value(GpuMetric::kGpuUtil, 4294967295.0));
  EXPECT_FALSE(convert_dcgm_value(GpuMetric::kGpuUtil, 100.5));
  EXPECT_FALSE(convert_dcgm_value(GpuMetric::kGpuUtil, -1));
  EXPECT_FALSE(convert_dcgm_value(GpuMetric::kGpuUtil, std::nan("")));
  for (const auto m : {GpuMetric::kSmActive, GpuMetric::kGrEngineActive, GpuMetric::kTensorActive,
                       GpuMetric::kDramActive}) {
    EXPECT_DOUBLE_EQ(*convert_dcgm_value(m, 0.25), 0.25);
    EXPECT_DOUBLE_EQ(*convert_dcgm_value(m, 1.02), 1.02);  // SM_ACTIVE > 1 on MIG (DCGM #152)
    EXPECT_FALSE(convert_dcgm_value(m, -0.1));
    EXPECT_FALSE(convert_dcgm_value(m, 4294967295.0));
  }
  EXPECT_DOUBLE_EQ(*convert_dcgm_value(GpuMetric::kFbUsed, 81559), 81559.0 * 1048576);
  EXPECT_DOUBLE_EQ(*convert_dcgm_value(GpuMetric::kFbFree, 1), 1048576);
  EXPECT_FALSE(convert_dcgm_value(GpuMetric::kFbUsed, 4294967295.0));
  EXPECT_DOUBLE_EQ(*convert_dcgm_value(GpuMetric::kPower, 699.5), 699.5);
  EXPECT_FALSE(convert_dcgm_value(GpuMetric::kPower, std::numeric_limits<double>::infinity()));
  EXPECT_DOUBLE_EQ(*convert_dcgm_value(GpuMetric::kEnergy, 128996013), 128996.013);
  // A counter since boot passes 2^32 mJ after about 12 h at 100 W.
  EXPECT_DOUBLE_EQ(*convert_dcgm_value(GpuMetric::kEnergy, 5e12), 5e9);
}

}  // namespace
}  // namespace aicost::billing
