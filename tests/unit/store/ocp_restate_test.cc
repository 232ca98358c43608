// OpenShift (koku) uploads re-send days: the metrics operator's daily reports grow through the day
// and each upload carries the whole of every day it holds so far, so the same day arrives again in
// a later upload. A later delivery of a day replaces the earlier rows of that day and report of
// the same cluster, never adds to them (koku/masu/external/kafka_msg_handler.py, divide_csv_daily:
// koku splits an upload by day and report and keeps the latest). One transaction, also when the
// ingest is killed halfway. Runs against every backend.
#include <gtest/gtest.h>

#include "aicost/billing/ingest.h"
#include "aicost/ledger/rate_card.h"
#include "aicost/store/open.h"
#include "backends.h"
#include "kill_support.h"
#include "ledger_test_support.h"
#include "temp_dir.h"

namespace aicost {
namespace {

using billing::IngestOptions;
using billing::IngestResult;

constexpr const char* kPodHeader =
    "report_period_start,report_period_end,pod,namespace,node,resource_id,interval_start,interval_"
    "end,"
    "pod_usage_cpu_core_seconds,pod_request_cpu_core_seconds,pod_limit_cpu_core_seconds,"
    "pod_usage_memory_byte_seconds,pod_request_memory_byte_seconds,pod_limit_memory_byte_seconds,"
    "node_capacity_cpu_cores,node_capacity_cpu_core_seconds,node_capacity_memory_bytes,"
    "node_capacity_memory_byte_seconds,pod_labels\n";
constexpr const char* kStorageHeader =
    "report_period_start,report_period_end,interval_start,interval_end,namespace,pod,"
    "persistentvolumeclaim,"
    "persistentvolume,storageclass,persistentvolumeclaim_capacity_bytes,persistentvolumeclaim_"
    "capacity_byte_seconds,"
    "volume_request_storage_byte_seconds,persistentvolumeclaim_usage_byte_seconds,persistentvolume_"
    "labels,"
    "persistentvolumeclaim_labels\n";
constexpr const char* kMonth = "2019-02-01 00:00:00 +0000 UTC,2019-03-01 00:00:00 +0000 UTC,";
constexpr core::WideNanos kUsd = 1'000'000'000;

// Pod rows of February 2019 day `day`, hours [0, hours), pods p0..p{pods-1}, each pod-hour using
// `core_seconds` of CPU and no memory: core_seconds / 3600 core-hours each.
std::string pod_rows(int day, int hours, int pods, int core_seconds) {
  std::string out;
  char when[96];
  for (int h = 0; h < hours; ++h)
    for (int p = 0; p < pods; ++p) {
      std::snprintf(when, sizeof when,
                    "2019-02-%02d %02d:00:00 +0000 UTC,2019-02-%02d %02d:59:59 +0000 UTC,", day, h,
                    day, h);
      out += std::string(kMonth) + "p" + std::to_string(p) + ",ns,node-a,i-1," + when +
             std::to_string(core_seconds) + ",0,0,0,0,0,4,14400,0,0,\n";
    }
  return out;
}

// The card: 1 USD per core-hour, memory free, 5 USD per GiB-month.
ledger::RateCard card() {
  ledger::RateCard c;
  c.source = "test";
  c.currency = "USD";
  c.cpu = ledger::RateCard::Rate{1'000'000'000, "test:1", "rate card"};
  c.memory = ledger::RateCard::Rate{0, "test:2", "rate card"};
  c.storage = ledger::RateCard::Rate{5'000'000'000, "test:3", "rate card"};
  return c;
}

core::WideNanos billed_usd(ledger::Store& store) {
  auto t = testing::ledger_totals(store);
  return t.count("USD") ? t["USD"].billed : 0;
}

class OcpRestateTest : public testing::BackendTest {
 protected:
  // An operator upload: a folder with koku's manifest.json naming the cluster and its reports.
  std::string upload(const std::string& name, const std::string& cluster, const std::string& pods,
                     const std::string& storage = "") {
    std::string files = "\"" + name + "_openshift_usage_report.0.csv\"";
    dir_.write(name + "/" + name + "_openshift_usage_report.0.csv", kPodHeader + pods);
    if (!storage.empty()) {
      dir_.write(name + "/" + name + "_openshift_usage_report.1.csv", kStorageHeader + storage);
      files += ", \"" + name + "_openshift_usage_report.1.csv\"";
    }
    dir_.write(name + "/manifest.json", "{\"uuid\": \"" + name + "\", \"cluster_id\": \"" +
                                            cluster + "\", \"daily_reports\": true, \"files\": [" +
                                            files + "]}");
    return dir_.file(name);
  }
  IngestOptions options() {
    IngestOptions o;
    o.rate_card = &card_;
    return o;
  }
  testing::TempDir dir_{"aicost-ocp-restate"};
  ledger::RateCard card_ = card();
};

// One volume-hour of 672 GiB on 2019-02-02: 672 GiB-hours over February's 672 hours, 1 GiB-month,
// 5 USD.
std::string volume_row() {
  const long long byte_seconds = 672LL * 3600 * (1LL << 30);
  return std::string(kMonth) +
         "2019-02-02 00:00:00 +0000 UTC,"
         "2019-02-02 00:59:59 +0000 UTC,ns,p0,claim,pv-1,gp3,0," +
         std::to_string(byte_seconds) + ",0,0,,\n";
}

TEST_P(OcpRestateTest, AReSentDayReplacesItsEarlierRowsAndKeepsTheRest) {
  // Upload 1 (cluster c1): days 1 and 2, hour 0, two pods of 1 core-hour each: 4 USD; a volume on
  // day 2: 5 USD. Cluster c2's upload of day 2: 1 USD.
  auto first = billing::ingest_file(
      store(), upload("u1", "c1", pod_rows(1, 1, 2, 3600) + pod_rows(2, 1, 2, 3600), volume_row()),
      options());
  ASSERT_TRUE(first) << first.error().what();
  auto other =
      billing::ingest_file(store(), upload("u9", "c2", pod_rows(2, 1, 1, 3600)), options());
  ASSERT_TRUE(other) << other.error().what();
  EXPECT_EQ(billed_usd(store()), 4 * kUsd + 5 * kUsd + 1 * kUsd);

  // Upload 2 (c1) re-sends day 2, grown to hours 0-1 at 2 core-hours a pod-hour (8 USD), and
  // brings day 3 (one pod-hour, 1 USD); no storage report. Day 2's pods of upload 1 (2 USD) go;
  // day 1's stay, and so does day 2's volume (another report) and cluster c2's day 2.
  auto second = billing::ingest_file(
      store(), upload("u2", "c1", pod_rows(2, 2, 2, 7200) + pod_rows(3, 1, 1, 3600)), options());
  ASSERT_TRUE(second) << second.error().what();
  EXPECT_EQ(second->restated, (std::vector<std::int64_t>{first->record.id}));
  EXPECT_EQ(second->periods, (std::vector<std::string>{"2019-02-02", "2019-02-03"}));
  EXPECT_EQ(billed_usd(store()), 2 * kUsd + 8 * kUsd + 1 * kUsd + 5 * kUsd + 1 * kUsd);
  // Upload 1 keeps day 1's pods and day 2's volume: its listed totals are summed again.
  EXPECT_EQ(testing::listed_source_totals(store()),
            testing::charged_source_totals(GetParam(), fresh_.db));

  // The same upload again changes nothing; a third upload of all of upload 1's days and reports
  // leaves it no rows, and it goes.
  auto again = billing::ingest_file(
      store(), upload("u2", "c1", pod_rows(2, 2, 2, 7200) + pod_rows(3, 1, 1, 3600)), options());
  ASSERT_TRUE(again) << again.error().what();
  EXPECT_EQ(again->outcome, IngestResult::Outcome::kAlreadyLoaded);
  auto third = billing::ingest_file(
      store(), upload("u3", "c1", pod_rows(1, 1, 1, 3600) + pod_rows(2, 1, 1, 3600), volume_row()),
      options());
  ASSERT_TRUE(third) << third.error().what();
  // Left: day 1 and 2 of upload 3 (2 USD, 5 USD volume), day 3 of upload 2 (1 USD), c2 (1 USD).
  EXPECT_EQ(billed_usd(store()), 2 * kUsd + 5 * kUsd + 1 * kUsd + 1 * kUsd);
  EXPECT_EQ(testing::listed_source_totals(store()),
            testing::charged_source_totals(GetParam(), fresh_.db));
  auto sources = store().sources();
  ASSERT_TRUE(sources);
  ASSERT_EQ(sources->size(), 3u);  // upload 1 had nothing left
  for (const auto& s : *sources) EXPECT_NE(s.id, first->record.id);
  for (const auto& s : *sources) {
    if (s.id == second->record.id) {
      EXPECT_EQ(s.rows, 2);  // day 3's pod-hour: a CPU and a memory row
    }
  }
}

TEST_P(OcpRestateTest, KilledReSendLeavesTheOldDayAndTheRerunTheNew) {
  // Upload 1: day 2, 300 pod-hours at 1 core-hour (300 USD). Upload 2 re-sends day 2 as 400
  // pod-hours (800 rows, killed after 500) at 1 core-hour: 400 USD.
  ASSERT_TRUE(
      billing::ingest_file(store(), upload("u1", "c1", pod_rows(2, 3, 100, 3600)), options()));
  const auto second = upload("u2", "c1", pod_rows(2, 4, 100, 3600));
  ASSERT_EQ(billed_usd(store()), 300 * kUsd);
  const std::string db = fresh_.db;
  fresh_.store.reset();
  IngestOptions opts = options();
  opts.batch = 100;
  ASSERT_NO_FATAL_FAILURE(testing::ingest_killed_after(db, second, opts));
  auto reopened = store::open_store(db);
  ASSERT_TRUE(reopened) << reopened.error().what();
  EXPECT_EQ(billed_usd(**reopened), 300 * kUsd);
  auto rerun = billing::ingest_file(**reopened, second, opts);
  ASSERT_TRUE(rerun) << rerun.error().what();
  EXPECT_EQ(billed_usd(**reopened), 400 * kUsd);
}

TEST_P(OcpRestateTest, SeparateReportsOfOneDayDoNotReplaceEachOther) {
  // A pod report and a storage report of the same day, loaded as two files without a manifest:
  // each is its own report, both stay.
  const auto pods = dir_.write("pods.csv", std::string(kPodHeader) + pod_rows(2, 1, 2, 3600));
  const auto volumes = dir_.write("volumes.csv", std::string(kStorageHeader) + volume_row());
  ASSERT_TRUE(billing::ingest_file(store(), pods, options()));
  auto r = billing::ingest_file(store(), volumes, options());
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_TRUE(r->restated.empty());
  EXPECT_EQ(billed_usd(store()), 2 * kUsd + 5 * kUsd);
}

INSTANTIATE_TEST_SUITE_P(Backends, OcpRestateTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost
