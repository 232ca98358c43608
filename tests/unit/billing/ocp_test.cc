// OpenShift usage reports (src/billing/ocp.cc): koku's pod and storage CSVs become unpriced CPU,
// memory and storage rows; the quantities follow koku's own rules (max of usage and request,
// bytes x 2^-30, GiB-months of the calendar month).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "aicost/billing/reader.h"
#include "aicost/ledger/rate_card.h"
#include "collected.h"
#include "ledger_test_support.h"

namespace aicost::billing {
namespace {

const char* kPodHeader =
    "report_period_start,report_period_end,pod,namespace,node,resource_id,interval_start,interval_"
    "end,"
    "pod_usage_cpu_core_seconds,pod_request_cpu_core_seconds,pod_limit_cpu_core_seconds,"
    "pod_usage_memory_byte_seconds,pod_request_memory_byte_seconds,pod_limit_memory_byte_seconds,"
    "node_capacity_cpu_cores,node_capacity_cpu_core_seconds,node_capacity_memory_bytes,"
    "node_capacity_memory_byte_seconds,pod_labels\n";
const char* kStorageHeader =
    "report_period_start,report_period_end,interval_start,interval_end,namespace,pod,"
    "persistentvolumeclaim,"
    "persistentvolume,storageclass,persistentvolumeclaim_capacity_bytes,persistentvolumeclaim_"
    "capacity_byte_seconds,"
    "volume_request_storage_byte_seconds,persistentvolumeclaim_usage_byte_seconds,persistentvolume_"
    "labels,"
    "persistentvolumeclaim_labels\n";
const char* kMonth = "2019-02-01 00:00:00 +0000 UTC,2019-03-01 00:00:00 +0000 UTC,";

const std::string* tag(const ledger::Charge& c, const std::string& key) {
  for (const auto& t : c.tags)
    if (t.key == key) return &t.value;
  return nullptr;
}

TEST(OcpReader, DetectedFromEitherReportsHeader) {
  EXPECT_EQ(detect_format(kPodHeader), Format::kOcp);
  EXPECT_EQ(detect_format(kStorageHeader), Format::kOcp);
  EXPECT_EQ(parse_format("ocp").value(), Format::kOcp);
}

// One pod-hour: it used 1800 core-seconds and requested 3600 (1 core for the hour): 1 core-hour
// held. Memory: used 2 GiB for the hour (2 x 2^30 x 3600 byte-seconds), requested 1 GiB: 2
// GiB-hours.
TEST(OcpReader, APodHourIsACpuRowAndAMemoryRowOfWhatItHeld) {
  const std::string text =
      std::string(kPodHeader) + kMonth +
      "web-1,shop,node-a,i-0abc,2019-02-03 05:00:00 +0000 UTC,2019-02-03 06:00:00 +0000 UTC,"
      "1800,3600,7200,7730941132800,3865470566400,0,4,14400,17179869184,61847529062400,"
      "label_app:web|label_team:checkout\n";
  auto got = collect(text, Format::kAuto);
  EXPECT_EQ(got.summary.format, Format::kOcp);
  EXPECT_EQ(got.summary.version, "ocp-pod");
  EXPECT_EQ(got.summary.records, 1);
  EXPECT_EQ(got.summary.loaded, 2);
  ASSERT_EQ(got.charges.size(), 2u) << got.errors();
  const auto& cpu = got.charges[0];
  const auto& memory = got.charges[1];
  EXPECT_EQ(cpu.pricing_unit, ledger::kCoreHours);
  EXPECT_DOUBLE_EQ(*cpu.pricing_quantity, 1.0);
  EXPECT_EQ(memory.pricing_unit, ledger::kGibHours);
  EXPECT_DOUBLE_EQ(*memory.pricing_quantity, 2.0);
  for (const auto* c : {&cpu, &memory}) {
    EXPECT_TRUE(c->currency.empty());
    EXPECT_TRUE(ledger::needs_price(*c));
    EXPECT_EQ(c->period_start, 1549170000);  // 2019-02-03T05:00:00Z
    EXPECT_EQ(c->period_end - c->period_start, 3600);
    EXPECT_EQ(c->provider, "OpenShift");
    EXPECT_EQ(c->sub_account_id, "shop");
    EXPECT_EQ(c->resource_id, "web-1");
    EXPECT_EQ(c->line, 2);
    ASSERT_TRUE(tag(*c, "namespace") && tag(*c, "pod") && tag(*c, "node") && tag(*c, "app") &&
                tag(*c, "team"));
    EXPECT_EQ(*tag(*c, "node"), "node-a");
    EXPECT_EQ(*tag(*c, "app"), "web");  // koku's label_ prefix is not part of the label
    EXPECT_EQ(*tag(*c, "node_resource_id"), "i-0abc");
  }
  EXPECT_NE(cpu.charge_description.find("the larger of used 0.5 and requested 1"),
            std::string::npos)
      << cpu.charge_description;
}

TEST(OcpReader, TheReportsOwnEffectiveUsageWinsWhereItIsWritten) {
  const std::string text =
      "interval_start,interval_end,namespace,pod,pod_usage_cpu_core_seconds,pod_request_cpu_core_"
      "seconds,"
      "pod_effective_usage_cpu_core_seconds,pod_usage_memory_byte_seconds,pod_request_memory_byte_"
      "seconds\n"
      "2019-02-03 05:00:00 +0000 UTC,2019-02-03 06:00:00 +0000 UTC,ns,p,1800,3600,5400,0,0\n";
  auto got = collect(text, Format::kOcp);
  ASSERT_EQ(got.charges.size(), 2u) << got.errors();
  EXPECT_DOUBLE_EQ(*got.charges[0].pricing_quantity, 1.5);
  EXPECT_DOUBLE_EQ(*got.charges[1].pricing_quantity, 0.0);  // nothing held: priced at 0
}

// 1 GiB claimed (2 GiB of capacity provisioned) for the hour 14:00-14:59:59 of a day of February
// 2019 (28 days): 2 GiB x 1 h / (28 x 24 h) GiB-months.
TEST(OcpReader, AVolumeHourIsGibMonthsOfItsCalendarMonth) {
  const std::string text =
      std::string(kStorageHeader) + kMonth +
      "2019-02-10 14:00:00 +0000 UTC,2019-02-10 14:59:59 +0000 UTC,data,db-0,pgdata,pvc-1,gp2,"
      "2147483648,7730941132800,3865470566400,386547056640,label_app:db,label_tier:gold\n";
  auto got = collect(text, Format::kAuto);
  EXPECT_EQ(got.summary.version, "ocp-storage");
  ASSERT_EQ(got.charges.size(), 1u) << got.errors();
  const auto& c = got.charges[0];
  EXPECT_EQ(c.period_end - c.period_start, 3600);  // the hour's last second is in it
  EXPECT_EQ(c.pricing_unit, ledger::kGibMonths);
  EXPECT_NEAR(*c.pricing_quantity, 2.0 / (28 * 24), 1e-15);
  EXPECT_EQ(c.service_category, "Storage");
  EXPECT_EQ(c.resource_id, "pvc-1");
  EXPECT_EQ(c.resource_name, "pgdata");
  EXPECT_EQ(c.sku_id, "gp2");
  ASSERT_TRUE(tag(c, "storageclass") && tag(c, "app") && tag(c, "tier"));
  EXPECT_EQ(*tag(c, "tier"), "gold");
  // The same hour in January (31 days) is fewer GiB-months.
  auto jan = collect(
      std::string(kStorageHeader) + kMonth +
          "2019-01-10 14:00:00 +0000 UTC,2019-01-10 14:59:59 +0000 UTC,data,db-0,pgdata,pvc-1,gp2,"
          "2147483648,7730941132800,3865470566400,386547056640,,\n",
      Format::kOcp);
  ASSERT_EQ(jan.charges.size(), 1u);
  EXPECT_NEAR(*jan.charges[0].pricing_quantity, 2.0 / (31 * 24), 1e-15);
}

TEST(OcpReader, BadCellsAreErrorsWithTheirColumnAndTheRestLoads) {
  const std::string row = "2019-02-03 05:00:00 +0000 UTC,2019-02-03 06:00:00 +0000 UTC,ns,p,";
  const std::string text =
      "interval_start,interval_end,namespace,pod,pod_usage_cpu_core_seconds,pod_request_"
      "cpu_core_seconds,"
      "pod_usage_memory_byte_seconds,pod_request_memory_byte_seconds\n" +
      row + "-5,0,0,0\n" + row + "1e400,0,0,0\n" + row + "0,0,nan,0\n" +
      "2019-02-03 06:00:00 +0000 UTC,2019-02-03 05:00:00 +0000 UTC,ns,p,0,0,0,0\n" +
      "2019-02-03 05:00:00 +0000 UTC,2019-02-03 06:00:00 +0000 "
      "UTC,ns,p,3600000000000,0,0,0\n" +  // 1e9 cores
      row +
      "3600,3600,0,0\n";
  auto got = collect(text, Format::kOcp);
  EXPECT_EQ(got.summary.records, 6);
  EXPECT_EQ(got.summary.rejected, 5);
  EXPECT_EQ(got.charges.size(), 2u);
  EXPECT_TRUE(got.has_issue("pod_usage_cpu_core_seconds", "'-5' is not a number of seconds"))
      << got.errors();
  EXPECT_TRUE(got.has_issue("pod_usage_cpu_core_seconds", "'1e400' is not a number of seconds"));
  EXPECT_TRUE(got.has_issue("pod_usage_memory_byte_seconds", "'nan' is not a number of seconds"));
  EXPECT_TRUE(got.has_issue("interval_end", "the interval ends before it starts"));
  EXPECT_TRUE(got.has_issue("pod_usage_cpu_core_seconds", "not a reading"));
}

TEST(OcpReader, RefusesAReportWithoutTheColumnsItNeeds) {
  Collected got;
  auto r = read_text("interval_start,interval_end,namespace,pod,pod_usage_cpu_core_seconds\n",
                     "pods.csv", Format::kAuto, got.sink());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().what().find("not an OpenShift pod usage report aicost can read: no "
                                  "pod_request_cpu_core_seconds, pod_usage_memory_byte_seconds, "
                                  "pod_request_memory_byte_seconds column"),
            std::string::npos)
      << r.error().what();
}

// koku's own files (tests/data/ocp/). The sums were computed independently with Python's csv
// module (tests/data/ocp/expected.py): sum of max(usage, request) / 3600 core-hours,
// / 3600 / 2^30 GiB-hours, and max(capacity, request, usage) / 2^30 / 3600 / (24 x the days of the
// interval's month) GiB-months.
TEST(OcpReader, KokusReportsLoadEveryRowWithKokusQuantities) {
  const std::string dir = std::string(AICOST_SOURCE_DIR) + "/tests/data/ocp/";
  struct Case {
    const char* file;
    std::int64_t records, loaded;
    double core_hours, gib_hours, gib_months;
  };
  for (const Case& k : {Case{"pod_usage.csv", 480, 960, 2430.6111111111127, 40.84692189898862, 0},
                        Case{"storage_usage.csv", 381, 381, 0, 0, 9.377400153609887}}) {
    Collected got;
    auto r = read_file(dir + k.file, Format::kAuto, got.sink());
    ASSERT_TRUE(r) << r.error().what();
    EXPECT_EQ(r->format, Format::kOcp) << k.file;
    EXPECT_EQ(r->records, k.records) << k.file;
    EXPECT_EQ(r->loaded, k.loaded) << k.file;
    EXPECT_EQ(r->rejected, 0) << got.errors();
    double sums[3] = {0, 0, 0};
    for (const auto& c : got.charges) {
      const int at = c.pricing_unit == ledger::kCoreHours  ? 0
                     : c.pricing_unit == ledger::kGibHours ? 1
                                                           : 2;
      sums[at] += *c.pricing_quantity;
    }
    EXPECT_NEAR(sums[0], k.core_hours, 1e-9 * k.core_hours) << k.file;
    EXPECT_NEAR(sums[1], k.gib_hours, 1e-9 * k.gib_hours) << k.file;
    EXPECT_NEAR(sums[2], k.gib_months, 1e-9 * k.gib_months) << k.file;
  }
}

}  // namespace
}  // namespace aicost::billing
